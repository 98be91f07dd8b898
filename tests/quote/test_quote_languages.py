"""A stored quote reads in either language: ``quote --show N --lang en`` of a Chinese quote
shows the excluded offers' reasons in English, and the other way round (each reason is kept as
its message, ``reason_msgs``); quotes stored before that still render: those with the
reasons in both languages (``reason_texts``) in either, older ones as they were stored."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from comparator.catalog.db import make_engine
from comparator.quote import load_quote
from comparator.report import render_html
from comparator.report.view import excluded_reasons
from tests.conftest import REPO
from tests.i18n.test_messages import CJK, stray_chinese
from tests.support.htmltree import parse_html

JOB = REPO / "examples" / "lora-7b-guangdong.toml"
TODAY = "2026-11-30"


def _quote(cli: Any, db: str, lang: str) -> dict[str, Any]:
    """The stored document of a new quote made in ``lang``."""
    result = cli("quote", str(JOB), "--today", TODAY, "--json", db=db, lang=lang)
    assert result.code == 0, result.err
    engine = make_engine(db)
    try:
        document: dict[str, Any] = dict(load_quote(engine, result.json()["quote"]).document)
    finally:
        engine.dispose()
    return document


def _reasons(html: str) -> list[str]:
    """The reason lines of the excluded-offers table, the evidence in brackets left out (it
    is the provider's own data: licence numbers, service codes)."""
    cells = parse_html(html).find_all("td", "reasons")
    return [re.sub(r"\[[^\]]*\]", "", li.text()) for c in cells for li in c.find_all("li")]


def test_a_chinese_quote_shows_its_reasons_in_english_and_back(cli: Any, demo_db_url: str) -> None:
    chinese = _quote(cli, demo_db_url, "zh")
    excluded = chinese["plan"]["excluded"]
    assert excluded and all(len(e["reason_msgs"]) == len(e["reasons"]) for e in excluded)
    english_of_chinese = _reasons(render_html(chinese, lang="en"))
    assert english_of_chinese and not any(stray_chinese(r) for r in english_of_chinese)
    assert all(CJK.search(r) for r in _reasons(render_html(chinese)))
    english = _quote(cli, demo_db_url, "en")
    assert _reasons(render_html(english)) == english_of_chinese
    assert all(CJK.search(r) for r in _reasons(render_html(english, lang="zh")))


def test_show_reads_the_stored_quote_in_the_asked_language(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    number = _quote(cli, demo_db_url, "zh")["number"]
    html = tmp_path / "en.html"
    shown = cli("quote", "--show", number, "-o", str(html), db=demo_db_url, lang="en")
    assert shown.code == 0, shown.err
    reasons = _reasons(html.read_text(encoding="utf-8"))
    assert reasons and not any(stray_chinese(r) for r in reasons)


def _without_messages(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` as a version before messages were stored would have kept it."""
    old = copy.deepcopy(document)
    for item in old["plan"]["excluded"]:
        item.pop("reason_msgs", None)
    old["plan"].pop("message_msg", None)
    old["plan"]["calendar"].pop("warning_msg", None)
    return old


def test_a_quote_stored_with_reason_texts_still_reads_in_both(cli: Any, demo_db_url: str) -> None:
    document = _quote(cli, demo_db_url, "zh")
    english = render_html(document, lang="en")
    old = _without_messages(document)
    for item, new in zip(old["plan"]["excluded"], document["plan"]["excluded"], strict=True):
        texts = {lang: excluded_reasons(new, lang, "zh-CN") for lang in ("zh-CN", "en")}
        item["reason_texts"] = texts
    assert _reasons(render_html(old, lang="en")) == _reasons(english)
    assert render_html(old) == render_html(document)


def test_a_quote_stored_before_reason_texts_renders_as_stored(cli: Any, demo_db_url: str) -> None:
    document = _quote(cli, demo_db_url, "zh")
    old = _without_messages(document)
    assert render_html(old) == render_html(document)  # its own language: byte for byte
    stored = [r for e in old["plan"]["excluded"] for r in e["reasons"]]
    shown = _reasons(render_html(old, lang="en"))
    assert shown and all(any(s.startswith(r.split(" [")[0]) for s in stored) for r in shown)
