"""Long output at 10,000 providers: the tables' widths measured once per distinct text, the
lines under a table printed in chunks, and piped lines never wrapped."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.text import Text

from comparator.cli import tables
from comparator.cli._common import print_lines
from comparator.cli.tables import TEXT, CliTable, _rich, _widths, natural_width, print_table


def _console(width: int = 80) -> Console:
    return Console(file=io.StringIO(), width=width, force_terminal=True, highlight=False)


def _table() -> CliTable:
    table = CliTable(title="Title", caption="caption", padding=(0, 1), show_edge=False)
    table.add_column("Provider / DC")
    table.add_column("Verdict", justify="center")
    table.add_column("Why", kind=TEXT)
    for n in range(40):
        table.add_row(f"[bold]scale-{n:05d}[/]", "[green]✓[/]", "word " * (n % 7))
        table.add_row(f"  └ dc{n}-0", Text("pass"), "数据中心 " * (n % 3))
    return table


@pytest.mark.parametrize("width", [40, 80, 200])
def test_natural_width_is_rich_s_own_measure_of_the_whole_table(width: int) -> None:
    """The width is counted from the columns' widest cells and rich's edges, not by measuring
    every cell of a rich table again; it must equal rich's measure of that table."""
    out, table = _console(width), _table()
    keep = list(range(len(table.columns)))
    shown = _rich(table, keep, _widths(out, table, whole_text=True))
    expected = Measurement.get(out, out.options.update_width(100_000), shown).maximum
    assert natural_width(out, table) == expected


def _lines() -> list[str]:
    return [
        f"[yellow]![/] scale-{n:05d} support: {'a long reason ' * (n % 9)}[dim](evidence)[/]"
        for n in range(2_500)
    ]


def test_lines_on_a_terminal_print_as_one_print_each_would() -> None:
    one_by_one, chunked = _console(60), _console(60)
    for line in _lines():
        one_by_one.print(line)
    print_lines(chunked, _lines())
    assert isinstance(chunked.file, io.StringIO) and isinstance(one_by_one.file, io.StringIO)
    assert chunked.file.getvalue() == one_by_one.file.getvalue()


def test_lines_to_a_pipe_are_plain_and_never_wrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    piped = Console(file=io.StringIO(), width=80, highlight=False)
    print_lines(piped, _lines())
    assert isinstance(piped.file, io.StringIO)
    written = piped.file.getvalue().splitlines()
    assert written == [Text.from_markup(line).plain for line in _lines()]
    assert max(len(line) for line in written) > 80  # kept whole, not folded at 80


def test_check_piped_prints_one_line_per_fact(
    cli: Any, demo_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`suanli check | grep PROVIDER` finds each of a provider's facts whole on its line."""
    monkeypatch.delenv("COLUMNS", raising=False)
    out = cli("check", "--today", "2026-11-29", db=demo_db_url, lang="en").out
    facts = out.split("Service and company facts", 1)[1].splitlines()[1:]
    assert facts and all(line.split(" ")[1].startswith("demo-") for line in facts), facts
    assert max(len(line) for line in facts) > 80


def _matrix(rows: int, **options: Any) -> CliTable:
    table = CliTable(title="Compliance checks", caption="✓ pass", **options)
    table.add_column("Provider / DC")
    table.add_column("Verdict")
    table.add_column("Lic", justify="center")
    for n in range(rows):
        table.add_row(f"[bold]scale-{n:05d}[/]", "[green]pass[/]", "[red]✗[/]" if n % 3 else "")
        table.add_row(f"  └ dc{n}-{n % 4}", "[yellow]warn[/]", "—")
    return table


@pytest.mark.parametrize(
    "options",
    [
        {"box": box.SIMPLE_HEAD, "show_edge": False, "pad_edge": False, "collapse_padding": True},
        {"box": box.SIMPLE, "show_edge": False, "show_header": False},
        {},  # edges: printed whole
    ],
)
def test_a_long_table_prints_in_chunks_as_the_whole_table(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tables, "CHUNK_ROWS", 10)
    table = _matrix(13, **options)  # 26 rows: three chunks
    whole, chunked = _console(100), _console(100)
    keep = list(range(len(table.columns)))
    whole.print(_rich(table, keep, _widths(whole, table)))
    print_table(chunked, table)
    assert isinstance(whole.file, io.StringIO) and isinstance(chunked.file, io.StringIO)
    assert chunked.file.getvalue() == whole.file.getvalue()


def _varied(rows: int, **options: Any) -> CliTable:
    """Every alignment, CJK and styled text, Text cells and padded values."""
    table = CliTable(title="标题", caption="[dim]说明[/]", **options)
    table.add_column("Provider / DC")
    table.add_column("数", justify="right")
    table.add_column("Mark", justify="center")
    table.add_column("Rule", justify="default")
    for n in range(rows):
        table.add_row(
            f"[bold]服务商-{n:03d}[/]" if n % 2 else f"  └ dc{n}",
            Text(f"{n * 1.5:,.2f}", style="cyan"),
            ["[green]✓[/]", "[red]✗ [/]", "", "—"][n % 4],
            f"{n % 24:02d}:00-08:00*0.5" if n % 3 else "",
        )
    return table


SIMPLE_OPTIONS: list[dict[str, Any]] = [
    {"box": box.SIMPLE_HEAD, "show_edge": False, "pad_edge": False, "collapse_padding": True},
    {"box": box.SIMPLE, "show_edge": False, "show_header": False},
    {"box": None, "show_edge": False, "padding": (0, 2)},
    {"box": box.MINIMAL, "show_edge": False},  # a drawn divider: left to rich
]


@pytest.mark.parametrize("options", SIMPLE_OPTIONS)
def test_long_rows_as_lines_print_the_bytes_of_rich_s_table(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The laid-out rows (table_rows.py) against rich's whole table, escape codes and all."""
    monkeypatch.setattr(tables, "CHUNK_ROWS", 7)
    table = _varied(30, **options)
    whole, lines = _console(100), _console(100)
    keep = list(range(len(table.columns)))
    whole.print(_rich(table, keep, _widths(whole, table)))
    used = tables._print_rows_as_lines(lines, table, keep, _widths(lines, table))
    assert used is (options.get("box") is not box.MINIMAL)
    if not used:
        print_table(lines, table)
    assert isinstance(whole.file, io.StringIO) and isinstance(lines.file, io.StringIO)
    assert lines.file.getvalue() == whole.file.getvalue()


def test_a_cell_of_two_lines_leaves_the_table_to_rich() -> None:
    table = _varied(3, **SIMPLE_OPTIONS[0])
    table.rows[1][3] = "one\ntwo"
    out = _console(100)
    keep = list(range(len(table.columns)))
    assert not tables._print_rows_as_lines(out, table, keep, _widths(out, table))
    assert isinstance(out.file, io.StringIO) and out.file.getvalue() == ""


@pytest.mark.parametrize(
    "text",
    [
        "",
        "scale-00001",
        "  └ dc1-0",
        "数据中心 / 机房",
        "two\nlines wider",
        "[bold]x[/]",
        "a:warning:b",
        "tab\there",
    ],
)
def test_a_text_s_width_is_rich_s_measure(text: str) -> None:
    out = _console()
    expected = Measurement.get(out, out.options.update_width(100_000), text).maximum
    assert tables._text_width(out, text) == expected


def test_lines_that_fold_expand_or_fit_print_as_out_print_would() -> None:
    lines = [
        "短句 ✓",
        "[bold]一二三四五六七八九十[/]" * 8,  # CJK wider than the terminal: folded
        "a\ttab",
        "[yellow]![/] :warning: fits",
        "",
        "x" * 60,  # exactly the width
    ]
    one_by_one, chunked = _console(60), _console(60)
    for line in lines:
        one_by_one.print(line)
    print_lines(chunked, lines)
    assert isinstance(chunked.file, io.StringIO) and isinstance(one_by_one.file, io.StringIO)
    assert chunked.file.getvalue() == one_by_one.file.getvalue()


@pytest.mark.parametrize("change", ["row style", "text justify"])
def test_row_styles_and_a_text_s_own_justify_stay_rich_s(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tables, "CHUNK_ROWS", 7)
    table = _varied(20, **SIMPLE_OPTIONS[0])
    if change == "row style":
        table.row_styles[3] = "on blue"
    else:
        table.rows[4][1] = Text("7.5", style="cyan", justify="left")
    whole, printed = _console(100), _console(100)
    keep = list(range(len(table.columns)))
    whole.print(_rich(table, keep, _widths(whole, table)))
    assert not tables._print_rows_as_lines(printed, table, keep, _widths(printed, table))
    print_table(printed, table)
    assert isinstance(whole.file, io.StringIO) and isinstance(printed.file, io.StringIO)
    assert printed.file.getvalue() == whole.file.getvalue()
