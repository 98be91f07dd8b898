"""Small quote-free CSV sheets are read without pandas (providers.sheet.plain_csv): the table
must be the one the pandas path reads, cell for cell, row number for row number, and every
sheet the plain reader cannot read the same way must go to pandas."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import providers.sheet.read as read
from comparator.errors import InputError
from providers.sheet.plain_csv import PLAIN_MAX_BYTES, plain_cells
from providers.sheet.read import read_table

# cells with what CSV readers treat specially: spaces, tabs, CR, vertical tab, form feed,
# line and record separators, NA words, comment and escape characters, non-ASCII text
CELLS = ["a", "b", " ", "1", "2.5", "", "H100", "x y", "\t", "中", ";", "#", "\r", "'"]
CELLS += ["\\", "\x0b", "\x0c", "\x1c", "\u2028", "NaN", "NA", "null", " 3 "]


def _read(content: bytes, name: str, *, plain: bool) -> Any:
    """The table as plain values (or the error's text), by one path or the other."""
    original = read.plain_cells
    if not plain:
        read.plain_cells = lambda raw, sep: None  # type: ignore[assignment]
    try:
        table = read_table(content, name)
    except InputError as exc:
        return ("error", str(exc))
    finally:
        read.plain_cells = original
    distinct = {n: (codes.tolist(), texts) for n, (codes, texts) in table.distinct.items()}
    return table.headers, table.rows.tolist(), distinct, table.encoding


@st.composite
def sheets(draw: st.DrawFn, sep: str) -> bytes:
    width = draw(st.integers(1, 6))
    lengths = st.sampled_from([width, width, width, width + 1, 0, 1, max(1, width - 1)])
    lines = []
    for number in range(draw(st.integers(0, 8))):
        length = draw(lengths) if number else width
        lines.append(sep.join(draw(st.sampled_from(CELLS)) for _ in range(length)))
    end = draw(st.sampled_from(["\n", "\r\n", "", "\n\n"]))
    return ((end or "\n").join(lines) + end).encode()


@settings(max_examples=100, deadline=None)
@given(content=sheets(","))
def test_plain_csv_reads_as_pandas_does(content: bytes) -> None:
    assert _read(content, "s.csv", plain=True) == _read(content, "s.csv", plain=False)


@settings(max_examples=60, deadline=None)
@given(content=sheets("\t"))
def test_plain_tsv_reads_as_pandas_does(content: bytes) -> None:
    assert _read(content, "s.tsv", plain=True) == _read(content, "s.tsv", plain=False)


@pytest.mark.parametrize(
    "content",
    [
        b'provider,price\nacme,"1.5"\n',  # a quote
        b"provider,price\racme,1.5\r",  # lone carriage returns end lines for pandas
        b"provider,price\nacme,1.5,extra\n",  # a row wider than the header: pandas' error
        b"\nprovider,price\nacme,1.5\n",  # a blank first line
        b"provider,price\nac\x00me,1.5\n",  # a NUL
        b"provider,price\n" + b"acme,1.5\n" * (PLAIN_MAX_BYTES // 9 + 1),  # large
    ],
)
def test_sheets_the_plain_reader_leaves_to_pandas(content: bytes) -> None:
    assert plain_cells(content, ",") is None


def test_plain_reader_reads_the_fleet_sheet() -> None:
    content = b"provider,region,gpu,cards,billing,price,currency\nacme,sg-1,H100,1,hourly,2.5,USD\n"
    cells = plain_cells(content, ",")
    assert cells is not None and [c[1] for c in cells][:3] == ["acme", "sg-1", "H100"]
    assert _read(content, "s.csv", plain=True) == _read(content, "s.csv", plain=False)
