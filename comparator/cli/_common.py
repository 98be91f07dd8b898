"""What every CLI command shares: the state built from global options, JSON and table output."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.segment import Segment, Segments

from comparator.cli.indented_json import indented_json
from comparator.cli.markup_text import plain_text
from comparator.config import Settings

if TYPE_CHECKING:  # the database stack loads only when a command needs it
    from sqlalchemy import Engine


@dataclass
class State:
    """Built once per invocation by the global callback and passed down through ``ctx.obj``."""

    settings: Settings
    lang: str = "zh"
    debug: bool = False
    _engine: Engine | None = field(default=None, repr=False)

    def engine(self) -> Engine:
        """The catalog engine, opened on first use (commands that need no DB never open it)."""
        if self._engine is None:
            from comparator.catalog import make_engine

            _refuse_foreign_file(self.settings.db_url)
            self._engine = make_engine(self.settings.db_url, self.settings.lock_timeout_s)
        return self._engine


def state(ctx: typer.Context) -> State:
    obj = ctx.find_root().obj
    assert isinstance(obj, State), "the global callback builds the state"
    return obj


def _json_default(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def json_list(st: State, key: str, items: list[Any]) -> Any:
    """A listing's JSON document: ``{key: items}``, the one shape of every listing command.

    ``SUANLI_JSON_COMPAT=1`` prints the bare list of suanli 0.1 instead (deprecated; scripts
    that read ``.[0]`` should read ``.offers[0]``; the setting is deprecated in 0.2.0 and goes away in 0.3.0).
    """
    return items if st.settings.json_compat else {key: items}


def emit_json(document: Any) -> None:
    """Print one JSON document on stdout and nothing else."""
    sys.stdout.write(indented_json(document, _json_default))
    sys.stdout.write("\n")


def emit_json_list(st: State, key: str, items: Iterable[Any]) -> None:
    """:func:`emit_json` of :func:`json_list` with the items written as they come: the same
    bytes, without holding every item (``offers --json`` of 100,000s of offers)."""
    emit_json_items(key, items, bare=st.settings.json_compat)


def emit_json_items(key: str, items: Iterable[Any], *, bare: bool = False) -> None:
    """:func:`emit_json` of ``{key: items}`` (or of the bare list) with the items written as
    they come."""
    write = sys.stdout.write
    indent = "  " if bare else "    "
    head, tail = ("[", "]") if bare else (f"{{\n  {json.dumps(key)}: [", "]\n}")
    write(head)
    count = 0
    for item in items:
        text = indented_json(item, _json_default)
        write(("\n" if count == 0 else ",\n") + indent + text.replace("\n", "\n" + indent))
        count += 1
    if count:
        write("\n" + indent[:-2])
    write(tail + "\n")


def console() -> Console:
    return Console(highlight=False)


def err_console() -> Console:
    return Console(stderr=True, highlight=False)


PRINT_CHUNK_LINES = 1_000


def plain_output(out: Console) -> bool:
    """Whether ``out`` gets plain lines (a pipe or a file, and no ``COLUMNS`` set): nothing
    is padded or wrapped there, as ``gh`` does."""
    return not out.is_terminal and "COLUMNS" not in os.environ


def print_lines(out: Console, lines: Iterable[str]) -> None:
    """Print markup ``lines``: to a pipe or a file (no ``COLUMNS`` set) as plain lines, one
    per line, never wrapped (as the tables are, :func:`comparator.cli.tables.print_plain`);
    to a terminal as ``out.print`` prints each, wrapped at its width, a thousand to a call (a
    call costs ~0.3 ms, and `check` of 10,000 providers prints 50,000 lines:
    docs/commands-at-scale.md, "Fifth round"); a line that fits is not run through rich's
    wrapping (it would come out the same), which took most of the time."""
    if plain_output(out):
        out.file.write("".join(f"{plain_text(line)}\n" for line in lines))
        return
    options = out.options  # asked once: each ask reads the terminal's size
    segments: list[Segment] = []
    for count, line in enumerate(lines, 1):
        text = out.render_str(line)
        if text.cell_len <= options.max_width and not _WRAPPED.intersection(text.plain):
            segments += text.render(out, end=text.end)  # what rich's wrapping would leave
        else:
            segments += out.render(text, options)
        if count % PRINT_CHUNK_LINES == 0:
            _print_segments(out, segments)
    _print_segments(out, segments)


def _print_segments(out: Console, segments: list[Segment]) -> None:
    """Print ``segments`` as they are and empty the list."""
    if segments:
        out.print(Segments(segments), crop=False)
        segments.clear()


_WRAPPED = frozenset("\n\t")  # a line that rich would fold or expand: left to out.print


JSON_OPTION = typer.Option(False, "--json", help="Print one JSON document on stdout.")
CALIBRATION_OPTION = typer.Option(
    None,
    "--calibration",
    help="A measured trial run ([calibration] file, as verify --measure writes): the estimate "
    "moves to it.",
)


@contextmanager
def working(message: str, *, quiet: bool = False) -> Iterator[None]:
    """A spinner with ``message`` on stderr while a step runs (over ~1 s: planning, rendering).

    Off under ``--json`` (``quiet``) and when stderr is not a terminal, so pipes, logs and
    tests see nothing of it; it disappears once the step is done.
    """
    out = err_console()
    if quiet or not out.is_terminal:
        yield
        return
    with out.status(escape(message), spinner="dots"):
        yield


def _sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL (None: another database, memory, or a ``file:`` URI)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return None  # make_engine reports a malformed URL in its own words
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return None
    if database.startswith("file:"):
        return None
    return Path(database).expanduser()


def _missing_sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL when it does not exist (opening it would create it)."""
    path = _sqlite_file(url)
    return None if path is None or path.exists() else path


_SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file


def _refuse_foreign_file(url: str) -> None:
    """A :class:`CatalogError` when the SQLite URL names a file that is not a database (a CSV,
    a price sheet): SQLite would fail on it with its own words, or write into it."""
    from comparator.errors import CatalogError, Msg

    path = _sqlite_file(url)
    if path is None or not path.is_file():
        return
    try:
        with path.open("rb") as file:
            start = file.read(len(_SQLITE_HEADER))
    except OSError:
        return  # make_engine reports an unreadable file in its own words
    if start and start != _SQLITE_HEADER:
        raise CatalogError(
            "{path}: not a SQLite database (its first bytes are {start!r}); left untouched",
            path=str(path),
            start=start[:16],
            hint=Msg(
                "point --db or SUANLI_DB at the catalog, e.g. sqlite:///path/to/suanli.db; "
                "`suanli init` creates one"
            ),
        )


def open_catalog(st: State) -> Engine:
    """The engine of a catalog that has a schema; older schemas are upgraded in place.

    Never creates anything: a SQLite file that does not exist is an error (only `suanli init`
    creates a catalog), so a typo'd path leaves no stray folder or database behind.
    """
    from comparator.catalog import schema_is_current, upgrade_if_needed
    from comparator.errors import CatalogError, Msg

    init_hint = Msg("`suanli init` creates it; point --db or SUANLI_DB at an existing catalog")
    missing = _missing_sqlite_file(st.settings.db_url)
    if missing is not None:
        raise CatalogError("no catalog database at {path}", path=missing, hint=init_hint)
    empty = _sqlite_file(st.settings.db_url)
    if empty is not None and empty.is_file() and empty.stat().st_size == 0:
        raise CatalogError(
            "{path}: an empty file, not a catalog database; left untouched",
            path=str(empty),
            hint=Msg("`suanli --db URL init` makes it a catalog; or point --db at the catalog"),
        )
    engine = st.engine()
    if not schema_is_current(engine):
        where = engine.url.render_as_string(hide_password=True)
        raise CatalogError(
            "the catalog database {url} has no schema yet", url=where, hint=init_hint
        )
    upgrade_if_needed(engine)
    return engine


def parse_today(text: str | None, default: date | None = None) -> date | None:
    """The value of a `--today YYYY-MM-DD` flag, else ``default`` (``SUANLI_TODAY``; None:
    judge as of the real today)."""
    if text is None:
        return default
    try:
        return date.fromisoformat(text)
    except ValueError:
        from comparator.errors import Msg, OptionError

        raise OptionError(
            "--today: expected a date YYYY-MM-DD, got {text!r}",
            text=text,
            hint=Msg("write the day as YYYY-MM-DD, such as 2026-12-01"),
        ) from None


def check_objective(objective: str) -> None:
    """``--objective`` is cost or time: refused before anything is read or planned."""
    if objective not in ("cost", "time"):
        from comparator.errors import OptionError

        raise OptionError(
            "--objective: expected cost or time, got {objective!r}",
            objective=objective,
            hint="--objective cost plans the cheapest schedule, --objective time the earliest "
            "finish",
        )
