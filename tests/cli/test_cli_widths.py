"""Every table of the README's commands at 60, 80 and 120 columns: no value is ever cut.

Numbers, prices, ids and time-of-use rules are shown whole (no ``…`` beside them, no line
wider than the terminal); narrow terminals drop low-value columns, then stack the records.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from rich.cells import cell_len

from tests.conftest import DATA, REPO

WIDTHS = (60, 80, 120)
# A "…" touching a digit, a Latin letter or an id's punctuation is a value cut short.
CUT = re.compile(r"[A-Za-z0-9.:\-_/]…|…[A-Za-z0-9.:\-_/]")

COMMANDS: tuple[tuple[str, ...], ...] = (
    ("offers",),
    ("offers", "--gpu", "A100-80G", "--province", "广东", "--billing", "包月"),
    ("offers", "--provider", "demo-nanshan"),
    ("providers",),
    ("check",),
    ("history",),
    ("report", "market"),
    ("plan", str(REPO / "examples" / "lora-7b-guangdong.toml")),
    ("plan", str(REPO / "examples" / "70b-full-multinode.toml")),
    ("plan", str(REPO / "examples" / "seeds-13b-full-8xa100.toml")),
    ("estimate", "--model", "Qwen2.5-7B", "--method", "lora", "--tokens", "300M"),
    ("estimate", "--model", "Llama-3.1-70B", "--method", "full", "--gpu", "4090"),
    ("estimate", "--list-models"),
    ("verify", "--nvidia-smi-xml", str(DATA / "nvidia-smi" / "rtx4090-x8.xml")),
)


def assert_whole(out: str, width: int) -> None:
    for line in out.splitlines():
        assert not CUT.search(line), f"a value is cut at {width} columns: {line!r}"
        assert cell_len(line.rstrip()) <= width, f"wider than {width} columns: {line!r}"


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_table_fits_without_cutting(
    cli: Any, demo_db_url: str, monkeypatch: pytest.MonkeyPatch, width: int, lang: str
) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    for args in COMMANDS:
        result = cli(*args, db=demo_db_url, lang=lang)
        assert result.code in (0, 1), (args, result.err)
        assert_whole(result.out, width)


@pytest.mark.parametrize("width", WIDTHS)
def test_offers_show_every_id_price_and_rule_whole(
    cli: Any, demo_db_url: str, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    rows = cli("offers", "--json", db=demo_db_url).json()["offers"][:30]
    monkeypatch.setenv("COLUMNS", str(width))
    out = cli("offers", db=demo_db_url).out
    tokens = set(re.split(r"[\s│┃|]+", out))
    for row in rows:
        assert str(row["offer_id"]) in tokens
        assert f"¥{Decimal(row['card_hour_price_quote']):,.2f}" in tokens
        if row["time_of_use"]:
            assert row["time_of_use"] in out  # in its cell, or whole in the legend of keys


def test_piped_output_is_plain_tab_separated_lines(
    cli: Any, demo_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a terminal and no COLUMNS: the title, then a header and one line per offer, cells
    separated by tabs, no padding, no trailing space, no border, whatever the length."""
    monkeypatch.delenv("COLUMNS", raising=False)
    rows = cli("offers", "--json", "--limit", "3", db=demo_db_url).json()["offers"]
    out = cli("offers", "--limit", "3", db=demo_db_url, lang="en").out
    lines = out.splitlines()
    assert lines[0] == "Offers (CNY/card-hour, cheapest first)"
    assert lines[1].split("\t")[:2] == ["ID", "Provider/region"]
    for row, line in zip(rows, lines[2:5], strict=True):
        cells = line.split("\t")
        assert cells[0] == str(row["offer_id"])
        assert cells[1] == f"{row['provider']} {row['region']}"
        assert cells[7] == row["time_of_use"]
    assert all(line == line.rstrip() and "  " not in line for line in lines)
    assert not re.search(r"[│┃━─]", out)
