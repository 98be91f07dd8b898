"""``--help`` as the tools our users know print it, in the ``--lang`` language.

Our own renderer, through click's public extension point: :class:`HelpCommand` and
:class:`HelpGroup` override ``format_help`` and write plain text to click's formatter, so no
typer or rich internals are touched. It prints

- ``Usage:`` / ``用法:``, then the description reflowed into paragraphs (no hard line breaks
  from the source, ``Example:`` lines kept whole);
- options with metavars that name what is expected (``FILE``, ``N``, ``1..``, ``zh|en``), never
  a Python type;
- text wrapped to the terminal: Latin text at spaces, CJK text between characters, and never a
  closing mark (``。``, ``，``, ``）``) at the start of a line.
"""

from __future__ import annotations

import re
from typing import Any

from rich.cells import cell_len
from typer.core import TyperCommand, TyperGroup

from comparator.i18n import HELP_CHROME_ZH, HELP_OPTION_ZH, HELP_WORDS_ZH, help_zh, is_en

HELP_LANG = {"lang": "zh"}  # set once per invocation by :func:`localize`
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_CLOSING = set("。，、；：？！）」』》〉】…,.;:!?)]%")
_OPENING = set("（「『《〈【([")
_UNIT = re.compile(
    r"[\u3400-\u9fff]|[\u3000-\u303f\uff00-\uffef]|\s+|[^\s\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+"
)
_EXAMPLE = re.compile(rf"^(Example:|{HELP_WORDS_ZH['example']})")


def _units(text: str) -> list[str]:
    """Breakable pieces of ``text``: Latin words, single CJK characters and single spaces;
    closing marks cling to the piece before them, opening marks to the piece after."""
    pieces: list[str] = []
    glue = False
    for token in _UNIT.findall(text):
        if token.isspace():
            pieces.append(" ")
            glue = False
            continue
        if pieces and not pieces[-1].isspace() and (glue or token[0] in _CLOSING):
            pieces[-1] += token
        else:
            pieces.append(token)
        glue = token[-1] in _OPENING
    return pieces


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells (a longer single word stands alone)."""
    lines: list[str] = []
    line = ""
    for unit in _units(text):
        if unit.isspace():
            if line:
                line += " "
            continue
        if line and cell_len(line + unit) > width:
            lines.append(line.rstrip())
            line = unit
        else:
            line += unit
    if line.strip():
        lines.append(line.rstrip())
    return lines or [""]


def paragraphs(text: str) -> list[str]:
    """The paragraphs of a help text: source lines joined (without a space between CJK
    characters), blank lines as breaks, ``Example:`` lines on their own."""
    result: list[str] = []
    current: list[str] = []
    for raw in [*text.split("\n"), ""]:
        line = raw.strip().replace("\b", "")
        if not line or _EXAMPLE.match(line):
            if current:
                result.append(_joined(current))
            current = []
            if line:
                result.append(line)
            continue
        current.append(line)
    return result


def _joined(lines: list[str]) -> str:
    text = lines[0]
    for line in lines[1:]:
        cjk_seam = _CJK.match(line[0]) or _CJK.match(text[-1])
        text += line if cjk_seam else " " + line
    return text


def _words(lang: str) -> dict[str, str]:
    """The renderer's own words in ``lang``."""
    if is_en(lang):
        return {
            "usage": "Usage:",
            "options": "Options:",
            "arguments": "Arguments:",
            "commands": "Commands:",
            "OPTIONS": "[OPTIONS]",
            "COMMAND": "COMMAND [ARGS]...",
            "default": "[default: {}]",
            "env": "[env var: {}]",
            "required": "[required]",
            "help": "Show this message and exit.",
        }
    return {
        "usage": HELP_WORDS_ZH["usage"],
        "options": HELP_CHROME_ZH["OPTIONS_PANEL_TITLE"] + ":",
        "arguments": HELP_CHROME_ZH["ARGUMENTS_PANEL_TITLE"] + ":",
        "commands": HELP_CHROME_ZH["COMMANDS_PANEL_TITLE"] + ":",
        "OPTIONS": HELP_WORDS_ZH["OPTIONS"],
        "COMMAND": HELP_WORDS_ZH["COMMAND"],
        "default": HELP_CHROME_ZH["DEFAULT_STRING"],
        "env": HELP_CHROME_ZH["ENVVAR_STRING"],
        "required": HELP_CHROME_ZH["REQUIRED_LONG_STRING"],
        "help": HELP_OPTION_ZH,
    }


# what an option expects, where its name in capitals would not say it (an option that
# declares its own ``metavar=`` keeps it)
_METAVARS = {
    "--db": "URL",
    "--lang": "zh|en",
    "--profile": "FILE",
    "--decimal": ".|,",
    "--compliant-for": "JOB.toml",
    "--job": "JOB.toml",
    "--today": "YYYY-MM-DD",
    "--method": "full|lora|qlora",
    "--precision": "bf16|fp16|fp32",
    "--optimizer": "adamw|adamw-8bit|sgd",
    "--lora-rank": "N",
    "--seq-len": "N",
    "--micro-batch": "N",
    "--global-batch": "N",
    "--recompute": "none|selective|op|full",
    "--zero": "0..3",
    "--tokens": "COUNT",
    "--samples": "N",
    "--avg-tokens": "N",
    "--epochs": "X",
    "--cards": "N",
    "--mfu": "X",
    "--headroom": "0..0.95",
    "--safety-factor": "X",
    "--objective": "cost|time",
    "--time-limit": "SECONDS",
    "--calibration": "FILE",
    "--output": "FILE",
    "--pdf": "FILE",
    "--show": "QUOTE-ID",
    "--config": "FILE",
    "--provider": "ID",
    "--nvidia-smi-xml": "FILE",
    "--topo": "FILE",
    "--offer": "ID",
    "--quote": "QUOTE-ID",
    "--nodes": "FILE",
    "--collective": "auto|ring|gloo|nccl",
    "--calibration-out": "FILE",
    "--policy": "FILE",
}


def _is_argument(param: Any) -> bool:
    return bool(param.param_type_name == "argument")


def metavar(param: Any) -> str:
    """What a parameter expects, as a user reads it: ``FILE``, ``N``, ``1..``, ``zh|en``.

    The option's declared ``metavar`` when it has one, else its bounds (``1..``, ``0..1``),
    else its name in capitals; flags take no value. Never the parameter's Python type."""
    name = (param.name or "").upper().replace("_", "-")
    if _is_argument(param):
        return str(param.metavar or name) + ("..." if param.nargs == -1 else "")
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return ""
    if param.metavar:
        return str(param.metavar)
    declared = next((_METAVARS[o] for o in param.opts if o in _METAVARS), None)
    if declared:
        return declared
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    if low is not None or high is not None:
        return f"{'' if low is None else low}..{'' if high is None else high}"
    return name


def _option_names(param: Any) -> str:
    names = ", ".join(sorted(param.opts, key=lambda o: (not o.startswith("--"), o)))
    if param.secondary_opts:
        names += " / " + ", ".join(param.secondary_opts)
    shown = metavar(param)
    return f"{names} {shown}" if shown else names


def _notes(param: Any, words: dict[str, str]) -> str:
    notes = []
    envvar = getattr(param, "envvar", None)
    if envvar:
        notes.append(words["env"].format(envvar))
    default = param.default
    flag = getattr(param, "is_flag", False)
    if not flag and isinstance(default, str | int | float) and default not in ("", None):
        notes.append(words["default"].format(default))
    if param.required and not _is_argument(param):
        notes.append(words["required"])
    return " ".join(notes)


def _wrap_noted(text: str, notes: str, width: int) -> list[str]:
    """``text`` wrapped, then ``notes`` (``[默认：zh]``) whole, on the last line if it fits."""
    lines = wrap(text, width) if text else []
    if not notes:
        return lines or [""]
    if lines and cell_len(f"{lines[-1]} {notes}") <= width:
        lines[-1] = f"{lines[-1]} {notes}"
    else:
        lines.append(notes)
    return lines


def _definitions(rows: list[tuple[str, str, str]], width: int) -> list[str]:
    """Two columns: a term, then its text wrapped beside it (below it when the term is long)."""
    if not rows:
        return []
    term_width = min(max(cell_len(term) for term, _, _ in rows), 28)
    text_width = max(width - term_width - 4, 24)
    lines = []
    for term, text, notes in rows:
        wrapped = _wrap_noted(text, notes, text_width)
        if cell_len(term) > term_width:
            lines.append(f"  {term}")
            lines += [f"  {' ' * term_width}  {line}".rstrip() for line in wrapped]
            continue
        lines.append(
            f"  {term.ljust(term_width - cell_len(term) + len(term))}  {wrapped[0]}".rstrip()
        )
        lines += [f"  {' ' * term_width}  {line}".rstrip() for line in wrapped[1:]]
    return lines


def _first_paragraph(command: Any) -> str:
    found = paragraphs(command.help or "")
    return found[0] if found else ""


def _example(line: str, width: int) -> list[str]:
    """An ``Example:`` line, continued with `` \\`` at a space before an option when long."""
    match = re.match(r"^(\S+\s+)(.*)$", line)
    if cell_len(line) <= width or match is None:
        return [line]
    indent = " " * cell_len(match.group(1))
    lines = [match.group(1)]
    for piece in re.split(r" (?=--?\w)", match.group(2)):
        if lines[-1].strip() and cell_len(f"{lines[-1]} {piece} \\") > width:
            lines[-1] += " \\"
            lines.append(indent + piece)
        else:
            lines[-1] += piece if not lines[-1].strip() or lines[-1].endswith(" ") else " " + piece
    return lines


def _usage(command: Any, ctx: Any, params: list[Any], words: dict[str, str]) -> str:
    pieces = [words["OPTIONS"]]
    for p in params:
        if _is_argument(p):
            pieces.append(metavar(p) if p.required else f"[{metavar(p)}]")
    if isinstance(command, TyperGroup):
        pieces.append(words["COMMAND"])
    return f"{words['usage']} {ctx.command_path} {' '.join(pieces)}"


def _sections(command: Any, ctx: Any, params: list[Any], words: dict[str, str]) -> list[Any]:
    """The argument, option and command lists: (title, rows of term, text, notes)."""
    arguments = [(metavar(p), getattr(p, "help", "") or "", "") for p in params if _is_argument(p)]
    options = [
        (_option_names(p), words["help"] if p.name == "help" else (p.help or ""), _notes(p, words))
        for p in params
        if not _is_argument(p) and not p.hidden
    ]
    commands = []
    if isinstance(command, TyperGroup):
        for name in command.list_commands(ctx):
            sub = command.commands[name]
            if not sub.hidden:
                commands.append((name, _first_paragraph(sub), ""))
    return [
        (words["arguments"], arguments),
        (words["options"], options),
        (words["commands"], commands),
    ]


def render_help(command: Any, ctx: Any, width: int) -> str:
    """The whole ``--help`` of ``command`` as plain text lines of at most ``width`` cells."""
    words = _words(HELP_LANG["lang"])
    params = command.get_params(ctx)
    lines = [_usage(command, ctx, params, words), ""]
    for paragraph in paragraphs(command.help or ""):
        lines += _example(paragraph, width) if _EXAMPLE.match(paragraph) else wrap(paragraph, width)
        lines.append("")
    for title, rows in _sections(command, ctx, params, words):
        if rows:
            lines += [title, *_definitions(rows, width), ""]
    return "\n".join(lines).rstrip() + "\n"


class HelpCommand(TyperCommand):
    """A typer command whose ``--help`` is :func:`render_help`."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        formatter.write(render_help(self, ctx, formatter.width or 78))


class HelpGroup(TyperGroup):
    """The ``suanli`` group: its ``--help`` is :func:`render_help`, commands in the order
    they were registered."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        formatter.write(render_help(self, ctx, formatter.width or 78))


def untranslated(command: Any) -> list[str]:
    """Every help text of ``command`` and its subcommands that the catalogue lacks."""
    missing: list[str] = []
    texts = [command.help, *(getattr(p, "help", None) for p in command.params)]
    missing += [t for t in texts if t and help_zh(t) is None]
    for sub in getattr(command, "commands", {}).values():
        missing += untranslated(sub)
    return missing


def _translate(command: Any) -> None:
    if command.help:
        command.help = help_zh(command.help) or command.help
    for param in command.params:
        if getattr(param, "help", None):
            param.help = help_zh(param.help) or param.help
    for sub in getattr(command, "commands", {}).values():
        _translate(sub)


def localize(command: Any, lang: str) -> Any:
    """``command`` (a click command tree) with its help in ``lang``; English is as written."""
    HELP_LANG["lang"] = lang
    if not is_en(lang):
        _translate(command)
    return command
