"""The conventions of the tools our users know: --version, error + hint, hints on empty results,
read-only commands that create nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from comparator import __version__
from tests.conftest import REPO

LORA = str(REPO / "examples" / "lora-7b-guangdong.toml")


def test_version(cli: Any) -> None:
    result = cli("--version")
    assert result.code == 0
    assert result.out.strip() == f"suanli {__version__}"
    assert cli("-V").out == result.out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "zh", "en"),
    [
        (("offers", "--nosuch"), "未知选项 --nosuch", "unknown option --nosuch"),
        (("plan",), "缺少 JOBS", "missing JOBS"),
        (("offers", "--limit", "x"), "--limit：应为整数", "--limit: expected a whole number"),
        (("plan", LORA, "--top", "-1"), "--top：应不小于 0", "--top: expected 0 or more"),
        (("nosuch",), "未知命令 nosuch", "unknown command nosuch"),
    ],
)
def test_usage_errors_read_error_then_hint(
    cli: Any, demo_db_url: str, args: tuple[str, ...], zh: str, en: str
) -> None:
    for lang, expected in (("zh", zh), ("en", en)):
        result = cli(*args, db=demo_db_url, lang=lang)
        assert result.code == 2, result.err
        lines = result.err.strip().splitlines()
        assert lines[0] == f"error: {expected}", result.err
        assert lines[1].startswith("hint: "), result.err
        assert "Usage:" not in result.err and "╭" not in result.err


def test_global_option_after_the_command_gets_a_hint(cli: Any, demo_db_url: str) -> None:
    result = cli("offers", "--lang", "en", db=demo_db_url)
    assert result.code == 2
    assert "hint: global options go before the command: suanli --lang … offers" in result.err


def test_content_errors_have_a_hint_too(cli: Any, demo_db_url: str) -> None:
    result = cli("offers", "--gpu", "A101", db=demo_db_url, lang="en")
    assert result.code == 1
    assert result.err.startswith("error: unknown GPU 'A101'")
    assert "\nhint: " in result.err


def test_read_only_commands_create_nothing(cli: Any, tmp_path: Path) -> None:
    missing = tmp_path / "typo" / "catalgo.db"
    for args in (("offers",), ("providers",), ("history",), ("check",), ("plan", LORA)):
        result = cli(*args, db=f"sqlite:///{missing}", lang="en")
        assert result.code == 1, (args, result.err)
        assert result.err.startswith(f"error: no catalog database at {missing}")
        assert "hint: `suanli init`" in result.err
    assert not (tmp_path / "typo").exists()


def test_empty_results_hint_known_providers(cli: Any, demo_db_url: str) -> None:
    result = cli("offers", "--provider", "demo-nanshn", db=demo_db_url, lang="en")
    assert result.code == 0
    assert "did you mean demo-nanshan?" in result.err
    assert "demo-zhujiang" in result.err
    assert "No offers match." in result.out


def test_empty_results_hint_the_80_gb_a100(cli: Any, demo_db_url: str) -> None:
    result = cli("offers", "--gpu", "A100", db=demo_db_url, lang="en")
    assert "A100 means A100-SXM4-40GB (40 GB)" in result.err
    assert "try --gpu A100-SXM4-80GB" in result.err
    assert cli("offers", "--gpu", "A100", "--json", db=demo_db_url).json() == {"offers": []}


def test_empty_history_hints_too(cli: Any, demo_db_url: str) -> None:
    result = cli("history", "--provider", "demo-nanshn", db=demo_db_url, lang="en")
    assert "did you mean demo-nanshan?" in result.err
    assert "┏" not in result.out


def test_an_unwritable_output_is_refused_before_planning(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    """A missing output folder is refused before the plan runs: no quote number is burnt,
    and the hint is about the path (not Pango)."""
    target = tmp_path / "missing-folder" / "quote.html"
    result = cli("quote", LORA, "-o", str(target), db=demo_db_url, lang="en")
    assert result.code == 1
    assert f"the folder {target.parent} does not exist" in result.err
    assert "Pango" not in result.err and "hint: choose another output file" in result.err
    folder = cli("quote", LORA, "-o", str(tmp_path), db=demo_db_url, lang="en")
    assert folder.code == 1 and "is a folder" in folder.err and "Pango" not in folder.err
    assert cli("history", "--json", db=demo_db_url).code == 0
    saved = cli("quote", LORA, "--json", db=demo_db_url).json()
    assert saved["quote"].endswith("-000001"), saved["quote"]  # nothing was saved before


def test_progress_stays_off_the_pipes(cli: Any, demo_db_url: str) -> None:
    """Not a terminal: no spinner frames on stderr, stdout is the JSON document alone."""
    result = cli("plan", LORA, "--json", db=demo_db_url)
    assert result.code == 0
    assert result.err == ""
    assert result.out.lstrip().startswith("{")


def test_listings_print_one_shape_and_the_old_one_behind_a_deprecation(
    cli: Any, demo_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    offers = cli("offers", "--limit", "2", "--json", db=demo_db_url).json()
    assert list(offers) == ["offers"] and len(offers["offers"]) == 2
    assert list(cli("providers", "--json", db=demo_db_url).json()) == ["providers"]
    assert list(cli("history", "--json", db=demo_db_url).json()) == ["offers"]
    monkeypatch.setenv("SUANLI_JSON_COMPAT", "1")
    assert isinstance(cli("offers", "--limit", "2", "--json", db=demo_db_url).json(), list)


def test_history_timestamps_are_in_the_settings_zone(cli: Any, demo_db_url: str) -> None:
    history = cli("history", "--json", db=demo_db_url).json()["offers"]
    stamps = {p["fetched_at"][-6:] for o in history for p in o["points"]}
    assert stamps == {"+08:00"}


def test_database_errors_read_in_our_words(cli: Any, tmp_path: Path) -> None:
    """No driver's English (`Can't load plugin`, `[Errno -2]`) and no `unexpected` error."""
    sheet = tmp_path / "prices.csv"
    sheet.write_text("provider,region\nx,y\n", encoding="utf-8")
    for url, expected in (
        ("foo://x", "--db：没有 'foo' 的驱动"),
        (f"sqlite:///{sheet}", "不是 SQLite 数据库"),
    ):
        result = cli("offers", db=url, lang="zh")
        assert result.code == 1, result.err
        assert expected in result.err
        assert "Can't load plugin" not in result.err and "意外错误" not in result.err
        assert "hint:" in result.err and "--db 或 SUANLI_DB" in result.err


def test_plan_prints_the_recommended_providers_warnings(cli: Any, demo_db_url: str) -> None:
    """The quote's attention box in the terminal: the demo's best provider's licence
    expires 43 days after the job."""
    result = cli("plan", LORA, db=demo_db_url, lang="en")
    assert result.code == 0, result.err
    assert "Attention (recommended provider)" in result.out
    assert "43 days" in " ".join(result.out.split())


def test_ctrl_c_during_quote_says_what_was_saved(
    cli: Any, demo_db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comparator.cli import quote_cmd

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(quote_cmd, "_render", interrupted)  # Ctrl-C while the report renders
    result = cli("quote", LORA, "-o", str(tmp_path / "q.html"), db=demo_db_url, lang="en")
    assert result.code == 130
    assert "interrupted: quote Q-" in result.err and "is saved" in result.err
    assert "hint: `suanli quote --show Q-" in result.err
    number = result.err.split("quote ", 1)[1].split()[0]
    monkeypatch.undo()
    assert cli("quote", "--show", number, "--json", db=demo_db_url).code == 0


def test_ctrl_c_elsewhere_is_one_error_and_a_hint(
    cli: Any, demo_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comparator.cli import catalog_cmds

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(catalog_cmds, "_print_offers", interrupted)
    result = cli("offers", db=demo_db_url, lang="zh")
    assert result.code == 130
    assert result.err.startswith("error: 已中断（Ctrl-C）") and "\nhint: " in result.err


def test_money_is_written_one_way(cli: Any, demo_db_url: str) -> None:
    """`¥4,608.00` in every command; never `4608.00 CNY`, `1050 CNY` or a sheet's `71.1111`."""
    import re

    for args in (("offers",), ("history",), ("plan", LORA)):
        out = cli(*args, db=demo_db_url, lang="zh").out
        assert re.search(r"¥\d{1,3}(?:,\d{3})*\.\d\d\b", out), (args, out[:500])
        assert not re.search(r"\d CNY\b|\b\d+\.\d{4,}\b", out), args  # 1.0743 was shown


def test_read_only_commands_leave_an_empty_file_as_it_is(cli: Any, tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    for args in (("offers",), ("providers",), ("history",)):
        result = cli(*args, db=f"sqlite:///{empty}", lang="en")
        assert result.code == 1 and "hint: `suanli" in result.err and "init`" in result.err
    assert empty.stat().st_size == 0 and sorted(tmp_path.iterdir()) == [empty]
