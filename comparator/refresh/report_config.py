"""The ``[report]`` table of a sources file: where the worker writes the weekly market report.

```toml
[report]
folder = "/var/lib/suanli/reports"   # relative paths are relative to the sources file
keep = 12                            # the newest N dates are kept (default 12)
lang = "zh"                          # zh (default) or en
pdf = false                          # also write the PDF (needs Pango)
weeks = 12                           # weeks on record in each report (default 12)
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from comparator.errors import InputError, Msg

REPORT_KEYS = ("folder", "keep", "lang", "pdf", "weeks")
DEFAULT_KEEP = 12
DEFAULT_WEEKS = 12


@dataclass(frozen=True)
class ReportConfig:
    folder: Path
    keep: int = DEFAULT_KEEP
    lang: str = "zh"
    pdf: bool = False
    weeks: int = DEFAULT_WEEKS


def parse_report(table: object, file: Path, where: str) -> ReportConfig:
    """The ``[report]`` table; InputError names the file, the key and what was expected."""
    if not isinstance(table, Mapping):
        raise InputError(
            "{where}: expected a table",
            where=where,
            hint=Msg(
                "`suanli schema sources` prints every key a sources file takes; "
                "examples/sources.toml shows each adapter"
            ),
        )
    unknown = [key for key in table if key not in REPORT_KEYS]
    if unknown:
        raise InputError(
            "{where}: unknown key {key!r}; expected one of {allowed}",
            where=where,
            key=unknown[0],
            allowed=", ".join(REPORT_KEYS),
            hint=Msg(
                "`suanli schema sources` prints every key a sources file takes; "
                "examples/sources.toml shows each adapter"
            ),
        )
    folder = table.get("folder")
    if not isinstance(folder, str) or not folder.strip():
        raise InputError(
            "{where} folder: expected the folder to write reports into, got {value!r}",
            where=where,
            value=folder,
            hint=Msg(
                "`suanli schema sources` prints every key a sources file takes; "
                "examples/sources.toml shows each adapter"
            ),
        )
    path = Path(folder).expanduser()
    return ReportConfig(
        folder=path if path.is_absolute() else file.parent / path,
        keep=_whole(table, "keep", DEFAULT_KEEP, 1, 520, where),
        lang=_lang(table, where),
        pdf=_flag(table, "pdf", where),
        weeks=_whole(table, "weeks", DEFAULT_WEEKS, 2, 104, where),
    )


def _whole(
    table: Mapping[str, object], key: str, default: int, low: int, high: int, where: str
) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(
            "{where} {key}: expected a whole number {low}–{high}, got {value!r}",
            where=where,
            key=key,
            low=low,
            high=high,
            value=value,
            hint=Msg(
                "`suanli schema sources` prints every key a sources file takes; "
                "examples/sources.toml shows each adapter"
            ),
        )
    return value


def _lang(table: Mapping[str, object], where: str) -> str:
    value = table.get("lang", "zh")
    if value not in ("zh", "en"):
        raise InputError(
            "{where} lang: expected zh or en, got {value!r}",
            where=where,
            value=value,
            hint=Msg(
                "`suanli schema sources` prints every key a sources file takes; "
                "examples/sources.toml shows each adapter"
            ),
        )
    return str(value)


def _flag(table: Mapping[str, object], key: str, where: str) -> bool:
    value = table.get(key, False)
    if not isinstance(value, bool):
        raise InputError(
            "{where} {key}: expected true or false, got {value!r}",
            where=where,
            key=key,
            value=value,
            hint=Msg(
                "`suanli schema sources` prints every key a sources file takes; "
                "examples/sources.toml shows each adapter"
            ),
        )
    return value
