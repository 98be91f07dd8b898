"""``suanli schema``: the JSON Schema of a job, profile or sources file, for editors."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any

import typer

from comparator.cli._common import emit_json
from comparator.cli.helptext import HelpCommand


class FileKind(StrEnum):
    job = "job"
    profile = "profile"
    sources = "sources"


def register(app: typer.Typer) -> None:
    app.command("schema", cls=HelpCommand)(schema)


def schema(
    kind: FileKind = typer.Argument(
        ..., metavar="KIND", help="Which file: job, profile or sources."
    ),
) -> None:
    """Print the JSON Schema of a job, profile or sources file, for TOML editors (Taplo).

    Example:  suanli schema job > job.schema.json
    """
    emit_json(_SCHEMAS[kind]())


def _job() -> dict[str, Any]:
    from comparator.domain import job_schema

    return job_schema()


def _profile() -> dict[str, Any]:
    from comparator.domain import profile_schema

    return profile_schema()


def _sources() -> dict[str, Any]:
    from comparator.refresh import sources_schema

    return sources_schema()


_SCHEMAS: dict[FileKind, Callable[[], dict[str, Any]]] = {
    FileKind.job: _job,
    FileKind.profile: _profile,
    FileKind.sources: _sources,
}
