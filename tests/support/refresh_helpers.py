"""Builders for refresh tests: minimal profiles, price sheets, sources files, local catalogs."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, select
from sqlmodel import SQLModel

from comparator.refresh.sources import SourcesFile, parse_sources
from tests.conftest import REPO, SKYPILOT_DIR
from tests.support.httpserver import FaultServer

RUN = SQLModel.metadata.tables["refreshrun"]
SNAPSHOT = SQLModel.metadata.tables["pricesnapshot"]
OFFER = SQLModel.metadata.tables["offer"]
EXAMPLES = REPO / "examples" / "sources.toml"
UPSTREAM = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master"
CLOUDS = ("lambda", "vast", "shadeform", "nebius", "verda")


def profile_toml(provider: str) -> str:
    """A minimal overseas profile with one data centre, sg-1."""
    return (
        f'[provider]\nid = "{provider}"\nname = "{provider} cloud"\ncountry = "SG"\n\n'
        '[[datacenters]]\nid = "sg-1"\nname = "Singapore"\n'
    )


def sheet_csv(provider: str, prices: Sequence[str]) -> bytes:
    """A price sheet with one hourly H100 offer per price (cards 1, 2, 3…)."""
    lines = ["provider,region,gpu,cards,billing,price,currency"]
    lines += [f"{provider},sg-1,H100,{i},hourly,{price},USD" for i, price in enumerate(prices, 1)]
    return ("\n".join(lines) + "\n").encode()


def source_entry(provider: str, location: str, adapter: str = "sheet", **keys: Any) -> str:
    where = "url" if location.startswith("http") else "path"
    lines = [
        "[[source]]",
        f'provider = "{provider}"',
        f'adapter = "{adapter}"',
        f'{where} = "{location}"',
    ]
    lines += [f"{key} = {_toml(value)}" for key, value in keys.items()]
    return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def write_sources(
    folder: Path, entries: Sequence[str], cron: str = "mon 03:00", worker_extra: str = ""
) -> Path:
    path = folder / "sources.toml"
    worker = f'[worker]\ncron = "{cron}"\ntimezone = "Asia/Shanghai"\n{worker_extra}\n'
    path.write_text(worker + "\n".join(entries), encoding="utf-8")
    return path


def serve_catalogs(server: FaultServer, etag: bool = True) -> None:
    """The five SkyPilot CSVs at their upstream paths, with ETags like GitHub's."""
    for cloud in CLOUDS:
        file = SKYPILOT_DIR / cloud / "vms.csv"
        validators = {"etag": f'"{cloud}-v1"'} if etag else {}
        server.serve_file(f"/catalogs/v8/{cloud}/vms.csv", file, **validators)


def local_examples_text(server: FaultServer) -> str:
    """examples/sources.toml with the upstream URLs pointing at the local server."""
    return EXAMPLES.read_text(encoding="utf-8").replace(UPSTREAM, server.url(""))


def local_examples(server: FaultServer) -> SourcesFile:
    """The examples file as the refresh reads it, its URLs on 127.0.0.1 and paths unchanged."""
    return parse_sources(tomllib.loads(local_examples_text(server)), EXAMPLES)


def local_examples_file(folder: Path, server: FaultServer) -> Path:
    """A copy of examples/sources.toml in ``folder``: local URLs, demo paths made absolute."""
    demo = (REPO / "providers" / "demo").as_posix()
    text = local_examples_text(server).replace("../providers/demo", demo)
    path = folder / "sources.toml"
    path.write_text(text, encoding="utf-8")
    return path


def runs_by_provider(
    engine: Engine, period: str | None = None
) -> dict[str, list[Mapping[str, Any]]]:
    query = select(RUN).order_by(RUN.c.id)
    if period is not None:
        query = query.where(RUN.c.period == period)
    runs: dict[str, list[Mapping[str, Any]]] = {}
    with engine.connect() as conn:
        for row in conn.execute(query):
            runs.setdefault(row.provider_id, []).append(row._mapping)
    return runs


def snapshot_counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(SNAPSHOT.c.provider_id, func.count()).group_by(SNAPSHOT.c.provider_id)
        )
        return {str(provider): int(count) for provider, count in rows}


def current_snapshot_ids(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(SNAPSHOT.c.provider_id, func.max(SNAPSHOT.c.id)).group_by(SNAPSHOT.c.provider_id)
        )
        return {str(provider): int(snapshot_id) for provider, snapshot_id in rows}
