"""One way to read a TOML input: a BOM, a declared GB18030, the same error words for every file."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from comparator.domain.holidays import load_holidays_file
from comparator.domain.job import load_job
from comparator.domain.profile import load_profile
from comparator.domain.toml_input import declared_encoding, read_toml
from comparator.errors import (
    CalendarError,
    InputError,
    JobFileError,
    Msg,
    ProfileError,
)
from comparator.i18n import render
from comparator.refresh.sources import load_sources
from tests.support.httpserver import FaultServer, Reply, fault_server
from tests.support.refresh_helpers import profile_toml, sheet_csv, source_entry

REPO = Path(__file__).resolve().parents[2]
JOB = REPO / "examples" / "seeds-13b-full-8xa100.toml"
TODAY = "2026-11-29"
DECLARATION = "# -*- coding: gb18030 -*-\n"


@pytest.fixture()
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def test_a_job_file_saved_with_a_bom_plans_like_the_same_file_without(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    with_bom = tmp_path / "job-bom.toml"
    with_bom.write_bytes(codecs.BOM_UTF8 + JOB.read_bytes())
    plain = cli("plan", str(JOB), "--today", TODAY, "--json", db=demo_db_url)
    result = cli("plan", str(with_bom), "--today", TODAY, "--json", db=demo_db_url)
    assert result.code == 0, result.err
    best, expected = result.json()["plans"][0]["best"], plain.json()["plans"][0]["best"]
    assert best is not None and best["total_cost"] == expected["total_cost"]


def test_a_job_file_declared_gb18030_plans_with_its_chinese_name(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    text = JOB.read_text(encoding="utf-8")
    text = text.replace('name = "seeds 13B full fine-tuning, 8 × A100"', 'name = "客服助手微调"', 1)
    job = tmp_path / "job-gb.toml"
    job.write_bytes((DECLARATION + text).encode("gb18030"))
    assert load_job(job).name == "客服助手微调"
    result = cli("plan", str(job), "--today", TODAY, "--json", db=demo_db_url)
    assert result.code == 0, result.err
    assert result.json()["plans"][0]["best"] is not None


def test_a_sources_file_saved_with_a_bom_refreshes(
    cli: Any, server: FaultServer, tmp_path: Path
) -> None:
    (tmp_path / "acme.toml").write_bytes(codecs.BOM_UTF8 + profile_toml("acme").encode())
    url = server.set("/acme.csv", Reply(body=sheet_csv("acme", ["2.10", "4.00"])))
    config = tmp_path / "sources.toml"
    worker = '[worker]\ncron = "mon 03:00"\ntimezone = "Asia/Shanghai"\n\n'
    body = worker + source_entry("acme", url, profile="acme.toml")
    config.write_bytes(codecs.BOM_UTF8 + body.encode("utf-8"))
    assert cli("init", "--no-demo").code == 0
    refreshed = cli("refresh", "--config", str(config), "--json")
    assert refreshed.code == 0, refreshed.err
    assert refreshed.json()["runs"][0]["status"] == "succeeded"
    listed = cli("offers", "--provider", "acme", "--json")
    assert sorted(o["price"] for o in listed.json()["offers"]) == ["2.10", "4.00"]


def test_every_kind_of_toml_file_reads_a_bom_and_a_declared_gb18030(tmp_path: Path) -> None:
    holidays = '[2027]\nholidays = ["2027-01-01"]  # 元旦\n'
    for name, text in (("h-bom.toml", holidays), ("h-gb.toml", DECLARATION + holidays)):
        path = tmp_path / name
        encoded = text.encode("gb18030") if "gb" in name else codecs.BOM_UTF8 + text.encode()
        path.write_bytes(encoded)
        assert load_holidays_file(path).years == frozenset({2027})
    profile = tmp_path / "p.toml"
    profile.write_bytes(
        (DECLARATION + profile_toml("acme").replace("acme cloud", "阿克米")).encode("gb18030")
    )
    assert load_profile(profile).name == "阿克米"
    sources = tmp_path / "s.toml"
    sources.write_bytes(codecs.BOM_UTF8 + source_entry("acme", "http://127.0.0.1:9/a.csv").encode())
    assert load_sources(sources).sources[0].provider == "acme"


@pytest.mark.parametrize(
    ("first_line", "declared"),
    [
        ("# -*- coding: gb18030 -*-", "gb18030"),
        ("# coding=GBK", "gbk"),
        ("#   vim: set fileencoding=gb2312 :", "gb2312"),
        ("# a comment about coding", None),
        ('name = "coding: gb18030"', None),
    ],
)
def test_what_counts_as_a_declaration(first_line: str, declared: str | None) -> None:
    assert declared_encoding((first_line + "\nx = 1\n").encode()) == declared


LOADERS: list[tuple[Any, type[InputError]]] = [
    (load_job, JobFileError),
    (load_profile, ProfileError),
    (load_sources, InputError),
    (load_holidays_file, CalendarError),
]


@pytest.mark.parametrize(("load", "error"), LOADERS, ids=lambda v: getattr(v, "__name__", ""))
def test_gb18030_without_a_declaration_names_file_line_column_and_both_fixes(
    tmp_path: Path, load: Any, error: type[InputError]
) -> None:
    path = tmp_path / "input.toml"
    path.write_bytes('# 说明\nname = "客服"\n'.encode("gb18030"))
    with pytest.raises(error) as caught:
        load(path)
    english = render(caught.value.msg, "en")
    assert english.startswith(f"{path}: line 1, column 4: expected UTF-8 text")
    assert "save the file again as UTF-8" in english and "coding: gb18030" in english
    chinese = render(caught.value.msg, "zh")
    assert "第 1 行第 4 列" in chinese and "另存为 UTF-8" in chinese


@pytest.mark.parametrize(("load", "error"), LOADERS, ids=lambda v: getattr(v, "__name__", ""))
def test_a_toml_syntax_error_reads_the_same_for_every_file(
    tmp_path: Path, load: Any, error: type[InputError]
) -> None:
    path = tmp_path / "input.toml"
    path.write_bytes(codecs.BOM_UTF8 + b"[2027]\nholidays [\n")
    with pytest.raises(error) as caught:
        load(path)
    assert render(caught.value.msg, "en") == (
        f"{path}: not valid TOML (line 2, column 10: expected '=' after a key)"
    )
    assert (
        render(caught.value.msg, "zh")
        == f"{path}：不是有效的 TOML（第 2 行第 10 列：键后应为 '='）"
    )


def test_an_unknown_declared_encoding_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big5.toml"
    path.write_bytes("# coding: big5\nname = '客服'\n".encode("big5"))
    with pytest.raises(JobFileError, match=r"line 1 declares the encoding 'big5'"):
        load_job(path)


def test_a_file_that_cannot_be_read_names_its_kind_in_both_languages(tmp_path: Path) -> None:
    with pytest.raises(ProfileError) as caught:
        read_toml(tmp_path, error=ProfileError, kind=Msg("profile"))
    assert render(caught.value.msg, "en") == f"{tmp_path}: cannot read the profile (is a folder)"
    assert render(caught.value.msg, "zh") == f"{tmp_path}：无法读取档案（这是一个文件夹）"
