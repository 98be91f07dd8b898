"""Every error Suanli raises on purpose derives from :class:`SuanliError`.

Only the CLI turns these into one-line messages (and exit codes); library code raises them
with a message that already names the file, row/field and what was expected.

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
    └── RenderError            a report could not be rendered (e.g. WeasyPrint libraries missing)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class SuanliError(Exception):
    """Root of every error Suanli raises on purpose.

    ``hint`` (optional) tells the user what to do next; the CLI prints it as ``hint:``.
    """

    hint: str | None = None

    def __init__(self, *args: object, hint: str | None = None) -> None:
        super().__init__(*args)
        if hint is not None:
            self.hint = hint


class ConfigError(SuanliError):
    """A setting, environment variable or database URL is unusable."""


class InputError(SuanliError):
    """Bad user input: a file, a flag or a job description."""


@dataclass(frozen=True)
class RowProblem:
    """One bad cell of a price sheet: 1-based data row number as a spreadsheet shows it."""

    row: int
    column: str
    expected: str
    got: str = ""

    def __str__(self) -> str:
        got = f" (got {_cut(self.got)!r})" if self.got else ""
        return f"row {self.row}, column {_cut(self.column)}: expected {self.expected}{got}"


def _cut(text: str, limit: int = 80) -> str:
    """A cell as an error message shows it: long ones cut, with their length."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


class SheetError(InputError):
    """A price sheet with one or more bad rows; nothing of it was imported."""

    def __init__(self, path: str, problems: Sequence[RowProblem], limit: int = 50) -> None:
        self.path = path
        self.problems = list(problems)
        shown = self.problems[:limit]
        lines = [f"{path}: {len(self.problems)} bad row(s), nothing imported:"]
        lines += [f"  {p}" for p in shown]
        if len(self.problems) > limit:
            lines.append(f"  … and {len(self.problems) - limit} more")
        super().__init__("\n".join(lines))


class ProfileError(InputError):
    """A provider profile that is malformed (names the file and field)."""


class JobFileError(InputError):
    """A job file that is malformed (names the file and field)."""


class UnknownGpuError(InputError):
    """A GPU name the registry does not know."""

    def __init__(self, name: str, suggestions: Sequence[str] = ()) -> None:
        self.name = name
        self.suggestions = list(suggestions)
        hint = f"; did you mean {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"unknown GPU {name!r}{hint}")


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


class RenderError(SuanliError):
    """A report could not be rendered."""
