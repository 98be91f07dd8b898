"""``suanli quote`` end to end on the demo catalog: planner, compliance, freezing, rendering."""

from __future__ import annotations

import builtins
import csv
import hashlib
import json
import subprocess
import sys
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from comparator.catalog.db import make_engine
from comparator.quote.quote_store import QUOTE
from tests.conftest import needs_pdf
from tests.support.htmltree import parse_html

DATA = Path(__file__).parents[1] / "data"
JOB = DATA / "quote_job.toml"
DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo"
TODAY = "2026-11-29"
SECTIONS = ("summary", "estimate", "plan", "alternatives", "excluded", "compliance", "assumptions")


def quote(cli: Any, db: str, *args: str, lang: str | None = None) -> dict[str, Any]:
    result = cli("quote", *args, "--json", db=db, lang=lang)
    assert result.code == 0, result.err
    document: dict[str, Any] = result.json()
    return document


def html_totals(path: Path) -> list[str]:
    """Total cost of the best plan and each alternative, as the alternatives table lists them."""
    root = parse_html(path.read_text(encoding="utf-8"))
    rows = [r for r in root.by_id("alternatives").find_all("tr") if r.find_all("td")]
    return [r.find_all("td")[4].text().strip() for r in rows]


def money(value: str) -> str:
    return f"¥{Decimal(value):,.2f}"


def test_quote_totals_equal_plan_json(cli: Any, demo_db_url: str, tmp_path: Path) -> None:
    html = tmp_path / "quote.html"
    out = quote(cli, demo_db_url, str(JOB), "-o", str(html), "--today", TODAY)
    plan = cli("plan", str(JOB), "--json", "--today", TODAY, db=demo_db_url)
    assert plan.code == 0, plan.err
    planned = plan.json()["plans"][0]
    assert planned["best"] is not None
    assert out["total_cost"] == planned["best"]["total_cost"] == out["plan"]["best"]["total_cost"]
    assert out["plan"]["alternatives"] == planned["alternatives"]
    expected = [planned["best"], *planned["alternatives"]]
    assert html_totals(html) == [money(p["total_cost"]) for p in expected]
    root = parse_html(html.read_text(encoding="utf-8"))
    assert [e.attrs["id"] for e in root.iter() if e.tag == "section"] == list(SECTIONS)
    assert {e.attrs["data-total"] for e in root.iter() if "data-total" in e.attrs} == {
        planned["best"]["total_cost"]
    }
    assert out["quote"].startswith("Q-2026-") and out["html"] == str(html) and out["pdf"] is None


@pytest.mark.slow
@needs_pdf
def test_quote_pdf_has_the_plan_total(cli: Any, demo_db_url: str, tmp_path: Path) -> None:
    pdf = tmp_path / "quote.pdf"
    out = quote(cli, demo_db_url, str(JOB), "--pdf", str(pdf), "--today", TODAY)
    text = subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert money(out["total_cost"]) in text
    assert "最优方案" in text and out["quote"] in text


def _reprice(tmp_path: Path, provider: str, factor: Decimal) -> Path:
    """The demo sheet of ``provider`` with every price multiplied by ``factor``."""
    with (DEMO / f"{provider}.csv").open(encoding="utf-8", newline="") as source:
        rows = list(csv.reader(source))
    column = next(i for i, name in enumerate(rows[0]) if name in ("price", "单价"))
    for row in rows[1:]:
        row[column] = str(Decimal(row[column]) * factor)
    path = tmp_path / f"{provider}.csv"
    with path.open("w", encoding="utf-8", newline="") as target:
        csv.writer(target).writerows(rows)
    return path


def test_show_renders_the_stored_quote_identically_after_a_refresh(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    first_html = tmp_path / "first.html"
    first = quote(cli, demo_db_url, str(JOB), "-o", str(first_html), "--today", TODAY)
    winner = first["plan"]["best"]["provider"]
    imported = cli("import", str(_reprice(tmp_path, winner, Decimal(3))), db=demo_db_url)
    assert imported.code == 0, imported.err
    again = quote(cli, demo_db_url, str(JOB), "--today", TODAY)
    assert again["quote"] != first["quote"]
    assert again["total_cost"] != first["total_cost"]  # the catalog did change
    shown_html = tmp_path / "shown.html"
    shown = quote(cli, demo_db_url, "--show", first["quote"], "-o", str(shown_html))
    assert shown["plan"] == first["plan"] and shown["total_cost"] == first["total_cost"]
    assert shown_html.read_bytes() == first_html.read_bytes()


def test_the_stored_row_freezes_inputs(cli: Any, demo_db_url: str) -> None:
    out = quote(cli, demo_db_url, str(JOB), "--today", TODAY)
    engine = make_engine(demo_db_url)
    with engine.connect() as conn:
        row = conn.execute(select(QUOTE).where(QUOTE.c.number == out["quote"])).one()
        current = (
            conn.exec_driver_sql(
                "SELECT DISTINCT snapshot_id FROM offer WHERE snapshot_id IN "
                "(SELECT MAX(id) FROM pricesnapshot GROUP BY provider_id)"
            )
            .scalars()
            .all()
        )
    engine.dispose()
    document = json.loads(row.document_json)
    assert row.input_sha256 == hashlib.sha256(JOB.read_bytes()).hexdigest()
    assert json.loads(row.snapshot_ids) == sorted(str(s) for s in current)
    assert row.job_name == "legal-assistant-a100-lora" and row.lang == "zh-CN"
    assert document["number"] == out["quote"] and document["plan"] == out["plan"]
    assert {a["offer_id"] for a in document["price_ages"]} >= {
        s["offer_id"] for s in out["plan"]["best"]["segments"]
    }
    observed = {
        o["offer_id"]: o["observed_at"]
        for o in cli("offers", "--json", db=demo_db_url).json()["offers"]
    }
    for age in document["price_ages"]:
        assert age["observed_at"] == observed[age["offer_id"]]
        days = (date.fromisoformat(TODAY) - datetime.fromisoformat(age["observed_at"]).date()).days
        assert age["age_days"] == days and age["stale"] is (days > 30)
    assert document["price_curve"], "the winner has an hourly offer: its price curve is frozen"


def test_show_keeps_the_quote_language_unless_lang_is_given(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    out = quote(cli, demo_db_url, str(JOB), "--today", TODAY, lang="en")
    kept, switched = tmp_path / "kept.html", tmp_path / "switched.html"
    quote(cli, demo_db_url, "--show", out["quote"], "-o", str(kept))
    quote(cli, demo_db_url, "--show", out["quote"], "-o", str(switched), lang="zh")
    assert '<html lang="en">' in kept.read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in switched.read_text(encoding="utf-8")


def test_human_output_names_the_quote_number(cli: Any, demo_db_url: str) -> None:
    result = cli("quote", str(JOB), "--today", TODAY, db=demo_db_url)
    assert result.code == 0, result.err
    assert "Q-2026-" in result.out and "已保存" in result.out


def test_a_model_job_shows_its_estimate(cli: Any, demo_db_url: str, tmp_path: Path) -> None:
    job = tmp_path / "model-job.toml"
    job.write_text(
        JOB.read_text(encoding="utf-8").replace(
            '[workload]\ncard_hours = 120\ngpu = "A100-80G"\n',
            '[model]\nname = "Qwen2.5-7B"\n\n[training]\nmethod = "lora"\ntokens = "20M"\n',
        ),
        encoding="utf-8",
    )
    html = tmp_path / "quote.html"
    out = quote(cli, demo_db_url, str(job), "-o", str(html), "--today", TODAY)
    root = parse_html(html.read_text(encoding="utf-8"))
    estimate = root.by_id("estimate")
    assert "Qwen2.5-7B" in estimate.text()
    assert estimate.find_all("svg"), "memory breakdown chart"
    best = out["plan"]["best"]
    assert best["gpu"] in estimate.text() and f"{best['cards']}" in estimate.text()


def test_missing_pango_fails_pdf_but_keeps_html_and_the_quote(
    cli: Any, demo_db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_import = builtins.__import__

    def no_pango(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "weasyprint":
            raise OSError("cannot load library 'libpango-1.0-0'")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "weasyprint", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_pango)
    html, pdf = tmp_path / "q.html", tmp_path / "q.pdf"
    result = cli(
        "quote",
        str(JOB),
        "-o",
        str(html),
        "--pdf",
        str(pdf),
        "--today",
        TODAY,
        db=demo_db_url,
        lang="en",
    )
    assert result.code == 1
    assert "apt-get install libpango-1.0-0 libpangoft2-1.0-0 fonts-noto-cjk" in result.err
    assert "Q-2026-000001 is saved" in " ".join(result.err.split())
    assert html.is_file() and not pdf.exists()
    assert "Traceback" not in result.err


def test_bad_invocations_fail_with_one_clear_message(cli: Any, demo_db_url: str) -> None:
    unknown = cli("quote", "--show", "Q-2026-000999", db=demo_db_url, lang="en")
    assert unknown.code == 1 and "no quote Q-2026-000999" in unknown.err
    malformed = cli("quote", "--show", "123", db=demo_db_url, lang="en")
    assert malformed.code == 1 and "Q-<year>-<6 digits>" in malformed.err
    nothing = cli("quote", db=demo_db_url)
    assert nothing.code == 1 and "JOB.toml" in nothing.err
    missing = cli("quote", "no-such-job.toml", db=demo_db_url)
    assert missing.code == 1 and "no-such-job.toml" in missing.err
