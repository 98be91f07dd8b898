"""Every error Suanli raises on purpose derives from :class:`SuanliError`.

Only the CLI turns these into one-line messages (and exit codes); library code raises them
with a message that already names the file, row/field and what was expected.

A message is a :class:`Msg`: its English text is its id (as gettext's msgid), written as a
``str.format`` template, and its parameters are kept apart, so the CLI renders it in the
chosen language from the one catalogue (``comparator.i18n.render``); ``str()`` of an error
is its English, for logs. A parameter may itself be a :class:`Msg` (rendered in the same
language) or a :class:`MsgList`. Where one English text needs two translations (``Change``: a
plan's change, 方案, or a price change, 变化), its id starts with a context and gettext's
separator ``\x04`` (``"price\x04Change"``), as gettext's msgctxt; English drops the context.

::

    SuanliError
    ├── ConfigError            a setting or the database URL is unusable
    ├── InputError             bad user input (files, flags, job files)
    │   ├── SheetError         a price sheet with bad rows (lists every bad row)
    │   ├── ProfileError       a provider profile (TOML) that is malformed
    │   ├── JobFileError       a job file (TOML) that is malformed
    │   ├── UnknownGpuError    a GPU name the registry does not know ("did you mean …")
    │   ├── UnknownModelError  a model name/size/config the estimator cannot read
    │   └── CalendarError      a malformed time-of-use rule, or a year without holiday data
    ├── CatalogError           the catalog database is missing data a command needs
    ├── SourceError            a refresh source failed (fetch, HTTP status, validation)
    ├── PlanError              the planner could not produce a plan
    │   └── AmountsTooLargeError  one candidate's amounts exceed the exact integer range
    └── RenderError            a report could not be rendered (e.g. WeasyPrint libraries missing)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

Lookup = Callable[[str], "str | None"]


class Msg:
    """A message id (its English ``str.format`` template) and the values it is filled with."""

    __slots__ = ("params", "text")

    def __init__(self, text: str, /, **params: object) -> None:
        self.text = text
        self.params: Mapping[str, object] = params

    def render(self, lookup: Lookup | None = None) -> str:
        """Filled in, in the language of ``lookup`` (English text → that language's template;
        ``None``: the English). A message without parameters is shown as written."""
        template = (lookup(self.text) if lookup else None) or english(self.text)
        if not self.params:
            return template
        return template.format(**{k: _shown(v, lookup) for k, v in self.params.items()})

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"Msg({self.text!r}, **{dict(self.params)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Msg) and (self.text, self.params) == (other.text, other.params)

    def __hash__(self) -> int:
        return hash(self.text)


@dataclass(frozen=True)
class MsgList:
    """Several messages shown as one parameter, joined by ``sep``."""

    items: Sequence[Msg | str]
    sep: str = "; "


CONTEXT = "\x04"


def english(text: str) -> str:
    """A message id's English: the id less its context (``"advice\\x04Change"`` → ``Change``)."""
    return text.rpartition(CONTEXT)[2]


def _shown(value: object, lookup: Lookup | None) -> object:
    if isinstance(value, Msg):
        return value.render(lookup)
    if isinstance(value, MsgList):
        return value.sep.join(str(_shown(item, lookup)) for item in value.items)
    return value


def as_msg(text: str | Msg, params: Mapping[str, object] | None = None) -> Msg:
    return text if isinstance(text, Msg) else Msg(text, **(params or {}))


def os_reason(exc: OSError) -> Msg:
    """Why a file could not be read or written, in the catalogue's words when it knows it."""
    import errno

    known = {
        errno.ENOENT: "no such file or folder",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.EISDIR: "is a folder",
        errno.ENOTDIR: "a part of the path is not a folder",
        errno.ENOSPC: "no space left on the disk",
        errno.EROFS: "the disk is read-only",
    }
    text = known.get(exc.errno or 0)
    return Msg(text) if text else Msg("{reason}", reason=exc.strerror or exc)


_TOML_AT = re.compile(r"^(.*?)\s*\(at (?:line (\d+), column (\d+)|end of document)\)$")


def toml_reason(exc: Exception) -> Msg:
    """Where a TOML parser stopped: "line 3, column 5" rather than its English sentence."""
    match = _TOML_AT.match(str(exc))
    if not match:
        return Msg("{reason}", reason=str(exc))
    if match.group(2) is None:
        return Msg("at the end of the file")
    return Msg("line {line}, column {column}", line=match.group(2), column=match.group(3))


class SuanliError(Exception):
    """Root of every error Suanli raises on purpose.

    ``SuanliError("{path}: no such file", path=p)``: the template is the message id, the
    keywords its parameters (see :class:`Msg`). ``hint`` (optional) tells the user what to do
    next; the CLI prints it as ``hint:``.
    """

    hint: str | Msg | None = None

    def __init__(
        self, message: str | Msg = "", /, *, hint: str | Msg | None = None, **params: object
    ) -> None:
        self.msg = as_msg(message, params)
        super().__init__(str(self.msg))
        if hint is not None:
            self.hint = hint


class ConfigError(SuanliError):
    """A setting, environment variable or database URL is unusable."""


class InputError(SuanliError):
    """Bad user input: a file, a flag or a job description."""


class Interrupted(SuanliError):
    """Ctrl-C: what was saved and how to finish (exit 130, as a shell reports SIGINT)."""

    exit_code = 130


class OptionError(InputError):
    """A command-line option or argument with a value it does not accept (``--cards 0``,
    ``--method dpo``): a usage error, so the CLI exits 2 like click's own."""

    exit_code = 2


@dataclass(frozen=True)
class RowProblem:
    """One bad cell of a price sheet: 1-based data row number as a spreadsheet shows it."""

    row: int
    column: str
    expected: str | Msg
    got: str = ""

    @property
    def msg(self) -> Msg:
        column = _cut(self.column)
        if not self.got:
            return Msg(
                "row {row}, column {column}: expected {expected}",
                row=self.row,
                column=column,
                expected=as_msg(self.expected),
            )
        return Msg(
            "row {row}, column {column}: expected {expected} (got {got!r})",
            row=self.row,
            column=column,
            expected=as_msg(self.expected),
            got=_cut(self.got),
        )

    def __str__(self) -> str:
        return str(self.msg)


def _cut(text: str, limit: int = 80) -> str:
    """A cell as an error message shows it: long ones cut, with their length."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


class SheetError(InputError):
    """A price sheet with one or more bad rows; nothing of it was imported."""

    def __init__(self, path: str, problems: Sequence[RowProblem], limit: int = 50) -> None:
        self.path = path
        self.problems = list(problems)
        lines: list[Msg | str] = [p.msg for p in self.problems[:limit]]
        if len(self.problems) > limit:
            lines.append(Msg("… and {count} more", count=len(self.problems) - limit))
        super().__init__(
            "{path}: {count} bad row(s), nothing imported:\n  {rows}",
            path=path,
            count=len(self.problems),
            rows=MsgList(lines, "\n  "),
        )


class ProfileError(InputError):
    """A provider profile that is malformed (names the file and field)."""


class JobFileError(InputError):
    """A job file that is malformed (names the file and field)."""


class UnknownGpuError(InputError):
    """A GPU name the registry does not know."""

    def __init__(self, name: str, suggestions: Sequence[str] = ()) -> None:
        self.name = name
        self.suggestions = list(suggestions)
        if self.suggestions:
            super().__init__(
                "unknown GPU {name!r}; did you mean {names}?",
                name=name,
                names=", ".join(self.suggestions),
            )
        else:
            super().__init__("unknown GPU {name!r}", name=name)


class UnknownModelError(InputError):
    """A model name, size or config.json the estimator cannot read."""


class CalendarError(InputError):
    """A malformed time-of-use rule, or a year the holiday calendar does not cover."""


class CatalogError(SuanliError):
    """The catalog database lacks what a command needs (e.g. an unknown offer id)."""


class SourceError(SuanliError):
    """A refresh source failed: unreachable, bad HTTP status, or content that did not validate."""


class PlanError(SuanliError):
    """The planner could not produce a plan."""


class AmountsTooLargeError(PlanError):
    """One candidate's amounts exceed what the planner's integer cents hold exactly; the
    planner leaves that candidate out with this reason and plans the others."""


class RenderError(SuanliError):
    """A report could not be rendered."""
