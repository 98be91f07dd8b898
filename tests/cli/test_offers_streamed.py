"""`suanli offers` at scale (issue 29): the empty listing's hint from the GPU models the
database lists, and JSON written as the rows stream, byte for byte what one document was."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event

from comparator.cli._common import State, emit_json, emit_json_list, json_list
from comparator.config import load_settings
from tests.conftest import run_cli
from tests.support.listing_catalog import build_listing_catalog


@pytest.mark.slow
def test_an_empty_listing_hints_the_variants_from_a_distinct_query(
    capsys: pytest.CaptureFixture[str], sqlite_url: str, tmp_path: Path, monkeypatch: Any
) -> None:
    engine = build_listing_catalog(sqlite_url, tmp_path)
    statements: list[str] = []
    real_make_engine = __import__("comparator.catalog.db", fromlist=["make_engine"]).make_engine

    def spied(url: str, *args: Any, **kwargs: Any) -> Engine:
        made = real_make_engine(url, *args, **kwargs)
        event.listen(made, "before_cursor_execute", lambda c, cur, s, *a: statements.append(s))
        return made

    monkeypatch.setattr("comparator.catalog.db.make_engine", spied)
    monkeypatch.setattr("comparator.catalog.make_engine", spied)
    result = run_cli(
        capsys, sqlite_url, "offers", "--gpu", "A100", "--billing", "monthly", lang="en"
    )
    assert result.code == 0 and "No offers match." in result.out
    assert "A100 means A100-SXM4-40GB (40 GB)" in result.err
    assert "the same family has A100-SXM4-80GB: try --gpu A100-SXM4-80GB" in result.err
    hint_queries = [s for s in statements if "DISTINCT offer.gpu" in s]
    assert statements and hint_queries, statements
    engine.dispose()


@pytest.mark.parametrize("compat", [False, True], ids=["object", "bare-list"])
@pytest.mark.parametrize("count", [0, 1, 3])
def test_streamed_json_is_the_document_byte_for_byte(
    compat: bool, count: int, monkeypatch: Any
) -> None:
    st = State(settings=dataclasses.replace(load_settings({}), json_compat=compat))
    items = [
        {"offer_id": str(i), "name": '北京\n"x"', "nested": {"a": [1, None]}} for i in range(count)
    ]
    whole, streamed = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stdout", whole)
    emit_json(json_list(st, "offers", items))
    monkeypatch.setattr("sys.stdout", streamed)
    emit_json_list(st, "offers", iter(items))
    assert streamed.getvalue() == whole.getvalue()
    assert json.loads(streamed.getvalue()) == (items if compat else {"offers": items})
