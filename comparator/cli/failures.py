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

from comparator.cli._common import err_console
from comparator.errors import (
    CalendarError,
    CatalogError,
    ConfigError,
    InputError,
    JobFileError,
    OptionError,
    PlanError,
    ProfileError,
    RenderError,
    SheetError,
    SourceError,
    SuanliError,
    UnknownGpuError,
    UnknownModelError,
)
from comparator.i18n import error_text, render, say

GLOBAL_OPTIONS = ("--db", "--lang", "--debug", "--version")

# error class → hint (a message id) when the error carries none of its own; first match wins
_DEFAULT_HINTS: tuple[tuple[type[SuanliError], str], ...] = (
    (
        UnknownModelError,
        "`suanli estimate --list-models` lists the built-in models; a size such as 7B or a "
        "Hugging Face config.json works too",
    ),
    (
        JobFileError,
        "`suanli schema job` prints every key a job file takes; examples/ holds job files to "
        "start from",
    ),
    (
        ProfileError,
        "`suanli schema profile` prints every key a provider profile takes",
    ),
    (
        SheetError,
        "fix the rows listed and import the sheet again (README, section Price sheets)",
    ),
    (
        CalendarError,
        "SUANLI_HOLIDAYS_FILE names the holiday file (README, section Settings)",
    ),
    (
        OptionError,
        "`{command} --help` lists what each option accepts",
    ),
    (
        UnknownGpuError,
        "`suanli offers` lists the catalog's GPUs; A100 is the 40 GB card, write A100-80G "
        "for 80 GB",
    ),
    (
        CatalogError,
        "`suanli init` creates the catalog; `--db` or SUANLI_DB chooses the database",
    ),
    (
        ConfigError,
        "check the SUANLI_* settings (README, section Settings)",
    ),
    (
        SourceError,
        "the source's last good snapshot stays current; `suanli refresh --provider ID` "
        "retries it alone",
    ),
    (
        PlanError,
        "loosen the job's requirements or deadline; `suanli offers --compliant-for JOB.toml` "
        "lists the eligible offers",
    ),
    (
        RenderError,
        "PDF needs the pdf extra and Pango (README, section Install)",
    ),
    (
        InputError,
        "`{command} --help` shows what each option and file expects",
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


def command_of(args: Sequence[str]) -> str:
    """``suanli`` and the command words of a command line (``suanli report market``), read
    without parsing it: the words after the global options, up to the first option."""
    index = 0
    while index < len(args):
        if args[index] in ("--db", "--lang"):
            index += 2
        elif args[index] == "--debug" or args[index].startswith(("--db=", "--lang=")):
            index += 1
        else:
            break
    words = ["suanli"]
    for arg in args[index:]:
        if arg.startswith("-"):
            break
        words.append(arg)
        if arg != "report":  # the one group: `report market`
            break
    return " ".join(words)


def report_error(exc: SuanliError, lang: str, command: str = "suanli COMMAND") -> int:
    """Print a content error (exit code 1; 2 for an option's bad value)."""
    hint = exc.hint
    shown_hint = render(hint, lang) if hint is not None else _default_hint(exc, lang, command)
    print_failure(error_text(exc, lang), shown_hint)
    return int(getattr(exc, "exit_code", 1))


def _default_hint(exc: SuanliError, lang: str, command: str) -> str | None:
    hints = (say(lang, h, command=command) for kind, h in _DEFAULT_HINTS if isinstance(exc, kind))
    return next(hints, None)


def _command_path(exc: Any) -> str:
    ctx = getattr(exc, "ctx", None)
    return str(ctx.command_path) if ctx is not None else "suanli"


def usage_message(exc: Any, lang: str) -> tuple[str, str]:
    """A usage error of the command-line parser in our words, with its hint."""
    path = _command_path(exc)
    help_hint = say(lang, "`{path} --help` lists every option", path=path)
    name = type(exc).__name__
    if name == "NoSuchOption":
        option = str(exc.option_name)
        message = say(lang, "unknown option {option}", option=option)
        if option.split("=")[0] in GLOBAL_OPTIONS and path != "suanli":
            return message, say(
                lang,
                "global options go before the command: suanli {option} … {removeprefix}",
                option=option,
                removeprefix=path.removeprefix("suanli "),
            )
        if exc.possibilities:
            close = ", ".join(sorted(exc.possibilities))
            return message, say(lang, "did you mean {close}?", close=close)
        return message, help_hint
    if name == "MissingParameter":
        what = _param_name(exc)
        return say(lang, "missing {what}", what=what), help_hint
    if name == "BadParameter":
        what, detail = _param_name(exc), _bad_value(exc.message, lang)
        accepts = say(lang, "`{path} --help` says what {what} accepts", path=path, what=what)
        return say(lang, "{what}: {detail}", what=what, detail=detail), accepts
    text = exc.format_message()
    if text.startswith("No such command"):
        command = text.split("'")[1] if "'" in text else text
        return say(lang, "unknown command {command}", command=command), say(
            lang, "`suanli --help` lists every command"
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
    (re.compile(r"^Input should be a valid integer.*$"), "expected a whole number"),
    (re.compile(r"^Input should be a valid number.*$"), "expected a number"),
    (
        re.compile(r"^Input should be greater than or equal to (?P<low>\S+)$"),
        "expected {low} or more",
    ),
    (
        re.compile(r"^Input should be less than or equal to (?P<high>\S+)$"),
        "expected {high} or less",
    ),
    (
        re.compile(r"^'?(?P<value>.*?)'? is not a valid integer\.?$"),
        "expected a whole number, got {value}",
    ),
    (
        re.compile(r"^'?(?P<value>.*?)'? is not a valid float\.?$"),
        "expected a number, got {value}",
    ),
    (
        re.compile(r"^'?(?P<value>.*?)'? is not a valid boolean\.?$"),
        "expected true or false, got {value}",
    ),
    (
        re.compile(r"^'?(?P<value>.*?)'? is not in the range (?P<range>.*?)\.?$"),
        "{value} is out of range ({range})",
    ),
    (
        re.compile(r"^(?:File|Path) '(?P<path>.*?)' does not exist\.?$", re.IGNORECASE),
        "no such file {path}",
    ),
    (
        re.compile(r"^(?:File|Path) '(?P<path>.*?)' is a directory\.?$", re.IGNORECASE),
        "{path} is a folder, expected a file",
    ),
    (
        re.compile(r"^is required \(or use (?P<option>--[\w-]+)\)$"),
        "is required (or use {option})",
    ),
)
# click's other usage errors (the whole message), in our words
_USAGE = (
    (
        re.compile(r"^Got unexpected extra argument(?:s|\(s\))? \((?P<args>.*)\)$"),
        "unexpected extra argument(s): {args!r}",
    ),
    (
        re.compile(r"^Option '(?P<option>.*?)' requires an argument\.?$"),
        "option {option} needs a value",
    ),
    (
        re.compile(r"^Option '(?P<option>.*?)' requires (?P<count>\d+) arguments\.?$"),
        "option {option} needs {count} values",
    ),
    (
        re.compile(r"^Option '(?P<option>.*?)' does not take a value\.?$"),
        "option {option} takes no value",
    ),
)


def _in_our_words(message: str, table: tuple[tuple[re.Pattern[str], str], ...], lang: str) -> str:
    """click's English ``message`` in the catalogue's words: the message of the first pattern
    that matches, filled with the pattern's named groups."""
    for pattern, text in table:
        match = pattern.match(message)
        if match:
            return say(lang, text, **match.groupdict())
    return message


def _bad_value(message: str, lang: str) -> str:
    return _in_our_words(message, _BAD_VALUE, lang)


def report_usage_error(exc: Any, lang: str) -> int:
    """Print a usage error (exit code 2, as click's)."""
    message, hint = usage_message(exc, lang)
    print_failure(message, hint)
    return int(getattr(exc, "exit_code", 2))
