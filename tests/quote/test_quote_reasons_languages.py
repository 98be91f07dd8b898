"""Every reason of a stored quote in the reader's language: a quote made in Chinese and shown
with ``--lang en`` (and the other way round) says its stock, network, budget, currency,
memory and throughput reasons, its infeasible message and its provisional-calendar warning in
the language it is shown in, in the text, the HTML and the PDF text (pdftotext).

The catalog is the demo one with six offers added to 南山 (``SHEET``), one per reason; the job
fixes 16 cards (two 8-card nodes) with a price cap and a window reaching 2027, whose holiday
calendar is provisional. The English is checked for Chinese the catalog data does not hold
(names, addresses, licence texts, in ``providers/demo``), the Chinese for the English
sentences the English rendering holds.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, needs_pdf
from tests.i18n.test_error_messages import _TYPED, MESSAGE_WORDS
from tests.i18n.test_messages import CJK, CJK_OK, stray_english
from tests.support.htmltree import parse_html

DEMO = REPO / "providers" / "demo"
TODAY = "2026-11-30"
# One offer per reason, for a compliant provider (南山, gd-sz-1): stock, a price above the cap
# (twice), no network for two nodes, a currency without a rate, no throughput figure, too
# little memory.
SHEET = """\
demo-nanshan,gd-sz-1,H100 80G,8,8,按量,640.00,CNY,,4,1,nvlink,ib-400g,2026-11-25T10:00:00+08:00,demo
demo-nanshan,gd-sz-1,H800,8,8,按量,200.00,CNY,,1,1,nvlink,ib-400g,2026-11-25T10:00:00+08:00,demo
demo-nanshan,gd-sz-1,L40S,8,8,按量,60.00,CNY,,4,1,pcie,,2026-11-25T10:00:00+08:00,demo
demo-nanshan,gd-sz-1,A800,8,8,按量,90.00,GBP,,4,1,nvlink,ib-200g,2026-11-25T10:00:00+08:00,demo
demo-nanshan,gd-sz-1,P4000,1,8,按量,1.00,CNY,,64,1,pcie,ib-200g,2026-11-25T10:00:00+08:00,demo
demo-nanshan,gd-sz-1,RTX3070,1,8,按量,1.00,CNY,,64,1,pcie,ib-200g,2026-11-25T10:00:00+08:00,demo
"""
JOB = """name = "reasons"
[model]
name = "Qwen2.5-7B"
[training]
method = "full"
tokens = "300M"
cards = 16
[schedule]
earliest_start = 2026-12-20T00:00:00+08:00
deadline = 2027-01-20T00:00:00+08:00
interruptible = true
[requirements]
provinces = ["广东"]
{requirements}
[budget]
max_price_per_card_hour = 20
{budget}
"""
JOBS = {
    "feasible": JOB.format(requirements="", budget=""),
    "over-budget": JOB.format(requirements="", budget="max_cost = 10"),
    "no-candidates": JOB.format(requirements='gpus = ["RTX3070", "P4000"]', budget=""),
}
# What each reason says, in each language (whitespace aside: PDF lines break anywhere)
SAID = {
    # stock and network: offers that fit no card count are counted by why (rule 8)
    "stock": (
        "its stock cannot give the fewest cards the job takes on its GPU",
        "库存不足以提供任务在该卡型上所需的最少卡数",
    ),
    "network": (
        "and it states no network (IB/RoCE needed)",
        "且该报价未注明组网（需要 IB/RoCE）",
    ),
    "budget": ("per card-hour, above [budget] max_price_per_card_hour 20", "高于 [budget]"),
    "currency": ("no FX rate for GBP → CNY", "没有 GBP → CNY 的汇率"),
    "memory": ("GiB per card, 7.2 GiB usable", "可用 7.2 GiB"),
    "throughput": ("no known dense BF16/FP16 throughput", "BF16/FP16"),
    "calendar": ("the holiday calendar of 2027 is provisional", "2027 年的节假日安排为暂定"),
}
INFEASIBLE = {
    "over-budget": ("Raise max_cost to at least", "请把 max_cost 提高到至少"),
    "no-candidates": ("no offer can take the job:", "没有报价能承接该任务"),
}
# official terms the English report shows beside their gloss
GLOSSED = frozenset({"互联网资源协作服务", "调休"})
LANGS = [("zh", "en"), ("en", "zh")]


def _catalog_texts() -> list[str]:
    """Every text of the catalog data that holds Chinese: names, addresses, licence items
    (the cells of the sheets, their headers left out)."""
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str) and CJK.search(value):
            found.add(_joined(value))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in DEMO.glob("*.toml"):
        walk(tomllib.loads(path.read_text(encoding="utf-8")))
    for path in DEMO.glob("*.csv"):
        walk(list(csv.reader(path.read_text(encoding="utf-8").splitlines()))[1:])
    walk(list(csv.reader(SHEET.splitlines())))
    return sorted(found, key=len, reverse=True)


def _joined(text: str) -> str:
    """Chinese runs a line break or a space split (PDF text, table cells) joined again."""
    return re.sub(r"(?<=[\u3400-\u9fff·])\s+(?=[\u3400-\u9fff·])", "", text)


def foreign_chinese(text: str) -> list[str]:
    """The Chinese in ``text`` that is neither catalog data nor a glossed or input term."""
    rest = _joined(text)
    for data in _catalog_texts():
        rest = rest.replace(data, " ")
    return [w for w in CJK.findall(rest) if w not in CJK_OK | GLOSSED]


def _compact(text: str) -> str:
    return "".join(text.split())


def assert_in_language(text: str, lang: str, kinds: list[str]) -> None:
    """``text`` says ``kinds`` in ``lang`` and none of them in the other language."""
    compact = _compact(text)
    for kind in kinds:
        english, chinese = SAID.get(kind) or INFEASIBLE[kind]
        wanted, other = (english, chinese) if lang == "en" else (chinese, english)
        assert _compact(wanted) in compact, (kind, wanted)
        if kind != "throughput":  # its Chinese keeps the unit "BF16/FP16", shared by both
            assert _compact(other) not in compact, (kind, other)
    if lang == "en":
        assert foreign_chinese(text) == []


def _suanli(db: str, *args: str, lang: str = "zh") -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "comparator", "--db", db, "--lang", lang, *args]
    return subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def quotes(
    demo_db_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, dict[tuple[str, str], str]]]:
    """The catalog and a stored quote of each job in each language: (job, lang) → number."""
    folder = tmp_path_factory.mktemp("reasons")
    shutil.copy(demo_db_template, folder / "demo.db")
    db = f"sqlite:///{folder / 'demo.db'}"
    sheet = folder / "nanshan.csv"
    sheet.write_text((DEMO / "demo-nanshan.csv").read_text(encoding="utf-8") + SHEET, "utf-8")
    imported = _suanli(db, "import", str(sheet), "--replace")
    assert imported.returncode == 0, imported.stderr
    numbers = {}
    for name, text in JOBS.items():
        job = folder / f"{name}.toml"
        job.write_text(text, encoding="utf-8")
        for lang in ("zh", "en"):
            made = _suanli(db, "quote", str(job), "--today", TODAY, "--json", lang=lang)
            assert made.returncode == (0 if name == "feasible" else 4), made.stderr
            numbers[name, lang] = json.loads(made.stdout)["quote"]
    yield db, numbers


@pytest.mark.slow
def test_the_fixtures_trigger_every_kind_of_reason(cli: Any, quotes: Any) -> None:
    db, numbers = quotes
    shown = cli("quote", "--show", numbers["feasible", "en"], "--json", db=db)
    plan = shown.json()["plan"]
    kinds = {e["kind"] for e in plan["excluded"]}
    # the planner streams by group: a GPU that cannot take the job is never read, only counted
    kinds |= {f["kind"] for f in plan["stats"]["filtered_in_catalog"]}
    assert kinds >= {"stock", "network", "price", "currency", "memory", "throughput"}
    assert plan["calendar"]["provisional_years"] == [2027]
    assert all(len(e["reason_msgs"]) == len(e["reasons"]) for e in plan["excluded"])


@pytest.mark.parametrize(("made", "shown"), LANGS)
def test_the_text_of_a_stored_quote_is_in_the_language_shown(
    cli: Any, quotes: Any, made: str, shown: str
) -> None:
    db, numbers = quotes
    for name in JOBS:
        text = cli("quote", "--show", numbers[name, made], db=db, lang=shown)
        assert text.code == 0, text.err
        assert_in_language(text.out, shown, [] if name == "feasible" else [name])


def _html_texts(html: str) -> tuple[str, str]:
    """The whole text of a report, and its reasons, message and calendar warning."""
    root = parse_html(html)
    parts = [li.text() for c in root.find_all("td", "reasons") for li in c.find_all("li")]
    parts += [e.text() for e in root.find_all("span", "what")]
    parts += [li.text() for u in root.find_all("ul", "not-loaded") for li in u.find_all("li")]
    parts += [e.text() for e in root.find_all("p", "calendar-warning")]
    return root.text(), "\n".join(parts)


@pytest.mark.parametrize(("made", "shown"), LANGS)
def test_the_html_of_a_stored_quote_is_in_the_language_shown(
    cli: Any, quotes: Any, tmp_path: Path, made: str, shown: str
) -> None:
    db, numbers = quotes
    for name in JOBS:
        path = tmp_path / f"{name}.html"
        done = cli("quote", "--show", numbers[name, made], "-o", str(path), db=db, lang=shown)
        assert done.code == 0, done.err
        whole, said = _html_texts(path.read_text(encoding="utf-8"))
        kinds = list(SAID) if name == "feasible" else [name]
        assert_in_language(said, shown, kinds)
        if shown == "en":
            assert foreign_chinese(whole) == [], name
        else:  # keys, ids, units and names as typed; no English word beyond them
            words = stray_english(_TYPED.sub(" ", said))
            assert [w for w in words if w not in MESSAGE_WORDS] == [], name


@pytest.mark.slow
@needs_pdf
@pytest.mark.parametrize(("made", "shown"), LANGS)
def test_the_pdf_text_of_a_stored_quote_is_in_the_language_shown(
    cli: Any, quotes: Any, tmp_path: Path, made: str, shown: str
) -> None:
    db, numbers = quotes
    path = tmp_path / "quote.pdf"
    done = cli("quote", "--show", numbers["feasible", made], "--pdf", str(path), db=db, lang=shown)
    assert done.code == 0, done.err
    proc = subprocess.run(["pdftotext", "-raw", str(path), "-"], capture_output=True, check=True)
    assert_in_language(proc.stdout.decode("utf-8"), shown, list(SAID))


def test_the_checks_see_chinese_and_english_left_behind() -> None:
    """The checks above can fail: a Chinese reason in English text, an English one in Chinese."""
    assert foreign_chinese("stock: 16 卡需要 2 个单位") == ["卡需要", "个单位"]
    assert foreign_chinese("演示·南山算力 · 华南-深\n圳一区 · 广东") == []
    english, chinese = SAID["stock"]
    with pytest.raises(AssertionError):
        assert_in_language(english, "zh", ["stock"])
    with pytest.raises(AssertionError):
        assert_in_language(f"{chinese} · {english}", "zh", ["stock"])
    with pytest.raises(AssertionError):
        assert_in_language(f"{english} · 库存", "en", ["stock"])


def test_why_a_job_of_several_is_planned_by_the_dp_is_said_in_the_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from comparator.cli.plan_cmd import _print_shared

    monkeypatch.setenv("COLUMNS", "300")
    _print_shared(False, 0.01, "zh", {"a": ["free trial", "migrations"]})
    out = capsys.readouterr().out
    assert "混合整数规划不计 免费试用、机器间迁移" in out and "free trial" not in out
