"""How every failure reads: ``error: what went wrong`` then ``hint: what to do next``.

Usage errors (unknown option, missing argument, bad value) and content errors (a bad sheet, a
missing catalog) look the same; usage errors exit 2, the others 1. The language is the one of
``--lang`` even when parsing failed before the global options were read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.markup import escape

from comparator.cli._common import err_console, tr
from comparator.errors import (
    CatalogError,
    ConfigError,
    InputError,
    PlanError,
    RenderError,
    SourceError,
    SuanliError,
    UnknownGpuError,
)
from comparator.i18n import error_text, render

GLOBAL_OPTIONS = ("--db", "--lang", "--debug", "--version")

# error class → (zh, en) hint when the error carries none of its own; first match wins
_DEFAULT_HINTS: tuple[tuple[type[SuanliError], tuple[str, str]], ...] = (
    (
        UnknownGpuError,
        (
            "`suanli offers` 列出目录里的卡型；A100 指 40 GB 卡，80 GB 请写 A100-80G",
            "`suanli offers` lists the catalog's GPUs; A100 is the 40 GB card, write A100-80G "
            "for 80 GB",
        ),
    ),
    (
        CatalogError,
        (
            "`suanli init` 创建目录数据库；`--db` 或 SUANLI_DB 选择数据库",
            "`suanli init` creates the catalog; `--db` or SUANLI_DB chooses the database",
        ),
    ),
    (
        ConfigError,
        (
            "检查 SUANLI_* 环境变量（README 的 Settings 一节）",
            "check the SUANLI_* settings (README, section Settings)",
        ),
    ),
    (
        SourceError,
        (
            "该来源上一次成功的快照仍然有效；`suanli refresh --provider ID` 可单独重试",
            "the source's last good snapshot stays current; `suanli refresh --provider ID` "
            "retries it alone",
        ),
    ),
    (
        PlanError,
        (
            "放宽任务要求或截止时间；`suanli offers --compliant-for JOB.toml` 列出可用报价",
            "loosen the job's requirements or deadline; `suanli offers --compliant-for JOB.toml` "
            "lists the eligible offers",
        ),
    ),
    (
        RenderError,
        (
            "PDF 需要 pdf 附加包和 Pango（README 的 Install 一节）",
            "PDF needs the pdf extra and Pango (README, section Install)",
        ),
    ),
    (
        InputError,
        (
            "`suanli 命令 --help` 说明每个选项和文件的格式",
            "`suanli COMMAND --help` shows what each option and file expects",
        ),
    ),
)


def lang_of(args: Sequence[str]) -> str:
    """The ``--lang`` of a command line, read without parsing it (default ``zh``)."""
    for index, arg in enumerate(args):
        if arg == "--lang" and index + 1 < len(args):
            return "en" if args[index + 1] == "en" else "zh"
        if arg.startswith("--lang="):
            return "en" if arg.removeprefix("--lang=") == "en" else "zh"
    return "zh"


def print_failure(message: str, hint: str | None) -> None:
    out = err_console()
    out.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    if hint:
        out.print(f"[bold]hint:[/] {escape(hint)}", soft_wrap=True)


def report_error(exc: SuanliError, lang: str) -> int:
    """Print a content error (exit code 1)."""
    hint = exc.hint
    shown_hint = render(hint, lang) if hint is not None else _default_hint(exc, lang)
    print_failure(error_text(exc, lang), shown_hint)
    return 1


def _default_hint(exc: SuanliError, lang: str) -> str | None:
    return next((tr(lang, *h) for kind, h in _DEFAULT_HINTS if isinstance(exc, kind)), None)


def _command_path(exc: Any) -> str:
    ctx = getattr(exc, "ctx", None)
    return str(ctx.command_path) if ctx is not None else "suanli"


def usage_message(exc: Any, lang: str) -> tuple[str, str]:
    """A usage error of the command-line parser in our words, with its hint."""
    path = _command_path(exc)
    help_hint = tr(lang, f"`{path} --help` 列出全部选项", f"`{path} --help` lists every option")
    name = type(exc).__name__
    if name == "NoSuchOption":
        option = str(exc.option_name)
        message = tr(lang, f"未知选项 {option}", f"unknown option {option}")
        if option.split("=")[0] in GLOBAL_OPTIONS and path != "suanli":
            return message, tr(
                lang,
                f"全局选项放在命令之前：suanli {option} … {path.removeprefix('suanli ')}",
                f"global options go before the command: suanli {option} … "
                f"{path.removeprefix('suanli ')}",
            )
        if exc.possibilities:
            close = ", ".join(sorted(exc.possibilities))
            return message, tr(lang, f"是否想用 {close}？", f"did you mean {close}?")
        return message, help_hint
    if name == "MissingParameter":
        what = _param_name(exc)
        return tr(lang, f"缺少 {what}", f"missing {what}"), help_hint
    if name == "BadParameter":
        what, detail = _param_name(exc), _bad_value(exc.message, lang)
        return tr(lang, f"{what}：{detail}", f"{what}: {detail}"), help_hint
    text = exc.format_message()
    if text.startswith("No such command"):
        command = text.split("'")[1] if "'" in text else text
        return tr(lang, f"未知命令 {command}", f"unknown command {command}"), tr(
            lang, "`suanli --help` 列出全部命令", "`suanli --help` lists every command"
        )
    return _in_our_words(text, _USAGE, lang), help_hint


def _param_name(exc: Any) -> str:
    hint, param = exc.param_hint, exc.param
    if hint is None and param is not None:
        if param.param_type_name == "argument":
            return str(param.name).upper()
        hint = param.get_error_hint()
    if isinstance(hint, list | tuple):
        hint = " / ".join(str(h) for h in hint)
    return str(hint or "").replace("'", "")


_BAD_VALUE = (
    (
        re.compile(r"^Input should be a valid integer.*$()"),
        ("应为整数", "expected a whole number"),
    ),
    (re.compile(r"^Input should be a valid number.*$()"), ("应为数字", "expected a number")),
    (
        re.compile(r"^Input should be greater than or equal to (\S+)$"),
        ("应不小于 {0}", "expected {0} or more"),
    ),
    (
        re.compile(r"^Input should be less than or equal to (\S+)$"),
        ("应不大于 {0}", "expected {0} or less"),
    ),
    (
        re.compile(r"^'?(.*?)'? is not a valid integer\.?$"),
        ("应为整数，实为 {0}", "expected a whole number, got {0}"),
    ),
    (
        re.compile(r"^'?(.*?)'? is not a valid float\.?$"),
        ("应为数字，实为 {0}", "expected a number, got {0}"),
    ),
    (
        re.compile(r"^'?(.*?)'? is not a valid boolean\.?$"),
        ("应为 true 或 false，实为 {0}", "expected true or false, got {0}"),
    ),
    (
        re.compile(r"^'?(.*?)'? is not in the range (.*?)\.?$"),
        ("{0} 超出范围（{1}）", "{0} is out of range ({1})"),
    ),
    (
        re.compile(r"^(?:File|Path) '(.*?)' does not exist\.?$", re.IGNORECASE),
        ("文件 {0} 不存在", "no such file {0}"),
    ),
    (
        re.compile(r"^(?:File|Path) '(.*?)' is a directory\.?$", re.IGNORECASE),
        ("{0} 是文件夹，应为文件", "{0} is a folder, expected a file"),
    ),
    (
        re.compile(r"^is required \(or use (--[\w-]+)\)()$"),
        ("必须给出（或用 {0}）", "is required (or use {0})"),
    ),
)
# click's other usage errors (the whole message), in our words
_USAGE = (
    (
        re.compile(r"^Got unexpected extra argument(?:s|\(s\))? \((.*)\)$"),
        ("多余的参数：{0!r}", "unexpected extra argument(s): {0!r}"),
    ),
    (
        re.compile(r"^Option '(.*?)' requires an argument\.?$"),
        ("选项 {0} 需要一个值", "option {0} needs a value"),
    ),
    (
        re.compile(r"^Option '(.*?)' requires (\d+) arguments\.?$"),
        ("选项 {0} 需要 {1} 个值", "option {0} needs {1} values"),
    ),
    (
        re.compile(r"^Option '(.*?)' does not take a value\.?$"),
        ("选项 {0} 不接受值", "option {0} takes no value"),
    ),
)


def _in_our_words(
    message: str, table: tuple[tuple[re.Pattern[str], tuple[str, str]], ...], lang: str
) -> str:
    for pattern, (zh, en) in table:
        match = pattern.match(message)
        if match:
            return tr(lang, zh, en).format(*match.groups())
    return message


def _bad_value(message: str, lang: str) -> str:
    return _in_our_words(message, _BAD_VALUE, lang)


def report_usage_error(exc: Any, lang: str) -> int:
    """Print a usage error (exit code 2, as click's)."""
    message, hint = usage_message(exc, lang)
    print_failure(message, hint)
    return int(getattr(exc, "exit_code", 2))
