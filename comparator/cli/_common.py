"""What every CLI command shares: the state built from global options, JSON and table output."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

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


def emit_json(document: Any) -> None:
    """Print one JSON document on stdout and nothing else."""
    sys.stdout.write(json.dumps(document, ensure_ascii=False, indent=2, default=_json_default))
    sys.stdout.write("\n")


def console() -> Console:
    return Console(highlight=False)


def err_console() -> Console:
    return Console(stderr=True, highlight=False)


def tr(lang: str, zh: str, en: str) -> str:
    """Pick the Chinese or English text of a label."""
    return zh if lang == "zh" else en


JSON_OPTION = typer.Option(False, "--json", help="Print one JSON document on stdout.")


def open_catalog(st: State) -> Engine:
    """The engine of a catalog that has a schema; older schemas are upgraded in place."""
    from comparator.catalog import schema_is_current, upgrade_if_needed

    engine = st.engine()
    if not schema_is_current(engine):
        from comparator.errors import CatalogError

        raise CatalogError(
            f"the catalog database {engine.url.render_as_string(hide_password=True)} has no schema "
            "yet: run `suanli init` first"
        )
    upgrade_if_needed(engine)
    return engine


def parse_today(text: str | None) -> date | None:
    """The value of a `--today YYYY-MM-DD` flag (None: judge as of the real today)."""
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        from comparator.errors import InputError

        raise InputError(f"--today: expected a date YYYY-MM-DD, got {text!r}") from None
