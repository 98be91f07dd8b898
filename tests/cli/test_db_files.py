"""``--db`` naming a file that is not a catalog: one clear error naming it, and the file as it was
(issue 25: a CSV gave "unexpected DatabaseError", an empty file was rewritten)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli


@pytest.mark.parametrize("command", [["offers"], ["providers"], ["init"], ["history"]])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_csv_given_as_the_database_is_named_and_left_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str], lang: str
) -> None:
    sheet = tmp_path / "prices.csv"
    sheet.write_bytes(b"provider,gpu,price\ndemo,A100,8\n")
    result = run_cli(capsys, f"sqlite:///{sheet}", *command, lang=lang)
    assert result.code == 1
    assert str(sheet) in result.err and "SQLite" in result.err and "hint:" in result.err
    assert "DatabaseError" not in result.err and "unexpected" not in result.err
    assert "意外错误" not in result.err
    assert sheet.read_bytes() == b"provider,gpu,price\ndemo,A100,8\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prices.csv"]


@pytest.mark.parametrize("command", [["offers"], ["providers"], ["check"]])
def test_an_empty_file_is_refused_by_a_reading_command_untouched(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str]
) -> None:
    empty = tmp_path / "catalog.db"
    empty.touch()
    result = run_cli(capsys, f"sqlite:///{empty}", *command, lang="en")
    assert result.code == 1
    assert f"{empty}: an empty file, not a catalog database" in result.err
    assert "init" in result.err  # the hint: init makes it one
    assert empty.stat().st_size == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalog.db"]


def test_init_makes_an_empty_file_a_catalog(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    empty = tmp_path / "catalog.db"
    empty.touch()
    assert run_cli(capsys, f"sqlite:///{empty}", "init", "--no-demo").code == 0
    assert run_cli(capsys, f"sqlite:///{empty}", "offers", "--json").code == 0
