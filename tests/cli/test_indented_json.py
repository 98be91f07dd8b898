"""The CLI's JSON writer prints what ``json.dumps(..., ensure_ascii=False, indent=2)`` prints."""

from __future__ import annotations

import enum
import json
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comparator.cli._common import _json_default
from comparator.cli.indented_json import indented_json

DATA = Path(__file__).parents[1] / "data"


def standard(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=_json_default)


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
    | st.decimals(allow_nan=False, allow_infinity=False)
    | st.datetimes(timezones=st.just(UTC))
    | st.dates()
)
keys = st.text() | st.integers() | st.floats() | st.booleans() | st.none()
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(keys, inner, max_size=4)
    ),
    max_leaves=40,
)


@settings(max_examples=150, deadline=None)
@given(documents)
def test_any_document_prints_the_same_text(document: object) -> None:
    assert indented_json(document, _json_default) == standard(document)


def test_the_corner_cases_print_the_same_text() -> None:
    document: dict[Any, Any] = {
        "empty": [[], {}, ()],
        "control": '\x00\x1f\n\t"\\ 算力 \u2028 \U0001f600',
        7: 1.0,
        2.5: float("nan"),
        True: [float("inf"), -float("inf"), -0.0, 1e16, 1e-05, 10**20],
        None: (Level.HIGH, Name("x"), Decimal("1.10"), date(2026, 12, 1)),
        "at": datetime(2026, 12, 1, 8, tzinfo=UTC),
    }
    assert indented_json(document, _json_default) == standard(document)
    assert indented_json([], _json_default) == "[]" and indented_json("x", _json_default) == '"x"'


def test_a_stored_quote_prints_the_same_text() -> None:
    document = json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))
    assert indented_json(document, _json_default) == standard(document)


def test_what_cannot_be_written_fails_as_json_fails() -> None:
    with pytest.raises(TypeError, match="not JSON serialisable: object"):
        indented_json({"x": object()}, _json_default)
    with pytest.raises(TypeError, match="keys must be str, int, float, bool or None"):
        indented_json({(1, 2): 3}, _json_default)
