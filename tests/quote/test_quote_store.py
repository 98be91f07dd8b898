"""Frozen quotes in a real SQLite catalog: numbering per year, round trips, unknown numbers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from comparator.errors import CatalogError, InputError
from comparator.quote.quote_store import QUOTE, freeze_quote, load_quote, parse_number
from tests.conftest import REPO

DATA = Path(__file__).parents[1] / "data"


@pytest.fixture
def document() -> dict[str, Any]:
    return json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))


def test_numbers_count_up_per_year(engine: Engine, document: dict[str, Any]) -> None:
    first = freeze_quote(engine, document)
    second = freeze_quote(engine, document)
    next_year = freeze_quote(engine, {**document, "created_at": "2027-01-01T00:00:00+08:00"})
    assert [first.number, second.number, next_year.number] == [
        "Q-2026-000001",
        "Q-2026-000002",
        "Q-2027-000001",
    ]


def test_the_year_is_the_local_year_of_created_at(engine: Engine, document: dict[str, Any]) -> None:
    stored = freeze_quote(engine, {**document, "created_at": "2027-01-01T07:00:00+08:00"})
    assert stored.number.startswith("Q-2027-")  # still 2026 in UTC


def test_a_stored_quote_loads_back_identically(engine: Engine, document: dict[str, Any]) -> None:
    stored = freeze_quote(engine, document)
    loaded = load_quote(engine, stored.number)
    assert loaded == stored
    assert loaded.document["number"] == stored.number
    assert {k: v for k, v in loaded.document.items() if k != "number"} == {
        k: v for k, v in document.items() if k != "number"
    }


def test_the_row_carries_the_frozen_metadata(engine: Engine, document: dict[str, Any]) -> None:
    stored = freeze_quote(engine, document)
    with engine.connect() as conn:
        row = conn.execute(select(QUOTE).where(QUOTE.c.number == stored.number)).one()
    assert row.job_name == document["job"]["name"]
    assert row.input_sha256 == document["input_sha256"]
    assert json.loads(row.snapshot_ids) == document["snapshot_ids"]
    assert row.software_version == document["software_version"]
    assert row.lang == "zh-CN"


def test_numbering_continues_after_existing_quotes(
    engine: Engine, document: dict[str, Any]
) -> None:
    for _ in range(3):
        freeze_quote(engine, document)
    with engine.begin() as conn:
        conn.execute(
            QUOTE.update().where(QUOTE.c.number == "Q-2026-000003").values(number="Q-2026-000041")
        )
    assert freeze_quote(engine, document).number == "Q-2026-000042"


def test_unknown_and_malformed_numbers(engine: Engine) -> None:
    with pytest.raises(CatalogError, match="no quote Q-2026-000999"):
        load_quote(engine, "Q-2026-000999")
    with pytest.raises(InputError, match="expected Q-<year>-<6 digits>"):
        load_quote(engine, "Q-26-1")
    assert parse_number(" Q-2026-000123 ") == (2026, 123)


_FREEZE_MANY = """
import json, sys
from comparator.catalog.db import make_engine
from comparator.quote.quote_store import freeze_quote
engine = make_engine(sys.argv[1])
document = json.loads(open(sys.argv[2], encoding="utf-8").read())
print(" ".join(freeze_quote(engine, document).number for _ in range(int(sys.argv[3]))))
"""


@pytest.mark.slow
def test_concurrent_processes_get_distinct_numbers(sqlite_url: str, engine: Engine) -> None:
    """Writers queue on the write lock (BEGIN IMMEDIATE) instead of failing with 'locked'."""
    document = DATA / "quote_document.json"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _FREEZE_MANY, sqlite_url, str(document), "15"],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), [err for _, err in outputs]
    numbers = " ".join(out for out, _ in outputs).split()
    assert len(numbers) == len(set(numbers)) == 60
    assert sorted(numbers)[-1] == "Q-2026-000060"
