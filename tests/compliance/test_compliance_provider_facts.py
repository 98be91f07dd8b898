"""Issue 24: the whole provider on record — service facts, claimed credentials, network
distance, the offers' verdicts and what the bill leaves out, through the real CLI on SQLite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.htmltree import parse_html

DATA = Path(__file__).parents[1] / "data" / "profiles"
SEEDS = DATA / "seeds"
TODAY = "2026-11-29"

SHEET = """provider,region,gpu,cards,billing,price,currency,observed_at
jianmi,gd-1,A100 80G,8,hourly,40,CNY,2026-11-25T10:00:00+08:00
kufanyun,gd-1,A100 80G,8,hourly,41,CNY,2026-11-25T10:00:00+08:00
northsouth,nm-wlcb,A100 80G,8,hourly,60,CNY,2026-11-25T10:00:00+08:00
northsouth,gd-gz-slow,A100 80G,8,hourly,70,CNY,2026-11-25T10:00:00+08:00
northsouth,gd-gz,A100 80G,8,hourly,90,CNY,2026-11-25T10:00:00+08:00
"""

JOB = """name = "facts-job"
[workload]
card_hours = 80
gpu = "A100-80G"
[schedule]
earliest_start = 2026-12-01T00:00:00+08:00
deadline = 2026-12-08T00:00:00+08:00
{extra}
"""


@pytest.fixture
def catalog(cli: Any, tmp_path: Path) -> Any:
    assert cli("init", "--no-demo").code == 0
    sheet = tmp_path / "prices.csv"
    sheet.write_text(SHEET, encoding="utf-8")
    profiles = [SEEDS / "jianmi.toml", SEEDS / "kufanyun.toml", DATA / "northsouth.toml"]
    args = [a for p in profiles for a in ("--profile", str(p))]
    result = cli("import", *args, str(sheet))
    assert result.code == 0, result.err
    return cli


def job_file(tmp_path: Path, extra: str) -> str:
    path = tmp_path / "job.toml"
    path.write_text(JOB.format(extra=extra), encoding="utf-8")
    return str(path)


def checks_of(doc: dict[str, Any], provider: str) -> dict[str, dict[str, Any]]:
    report = next(p for p in doc["providers"] if p["provider"] == provider)
    return {c["id"]: c for c in report["checks"]}


def test_the_seeds_jianmi_facts_show_in_providers_json_and_text(catalog: Any) -> None:
    doc = catalog("providers", "--json").json()
    jianmi = next(p for p in doc["providers"] if p["id"] == "jianmi")
    facts = jianmi["facts"]
    assert facts["own_datacenter"] is True
    assert facts["support"] == "7x24" and facts["support_response_minutes"] == 30
    # what the seed does not say is unknown, never guessed
    assert facts["elastic_scaling"] is None and "elastic_scaling" in jianmi["unknown_facts"]
    assert "registered_capital_cny" in jianmi["unknown_facts"]
    text = catalog("providers", lang="en").out
    assert "support 7x24, response 30 min" in text
    assert "own data centre: yes" in text


def test_check_reports_each_fact_with_its_evidence(catalog: Any) -> None:
    result = catalog("check", "--json", "--today", TODAY, "jianmi", lang="en")
    checks = checks_of(result.json(), "jianmi")
    assert checks["own-datacenter"]["status"] == "pass"
    assert checks["own-datacenter"]["evidence"] == "own_datacenter=true"
    assert checks["support"]["evidence"] == "support=7x24 support_response_minutes=30"
    assert "unknown" in checks["elastic-scaling"]["message"]
    assert "registered_capital_cny=unknown" in checks["company"]["evidence"]
    text = catalog("check", "--today", TODAY, "jianmi", lang="en").out
    assert "support 7x24, response 30 min" in text and "own_datacenter=true" in text


def test_a_claimed_licence_imports_and_never_passes(catalog: Any) -> None:
    doc = catalog("providers", "--json").json()
    kufan = next(p for p in doc["providers"] if p["id"] == "kufanyun")
    assert kufan["licenses"] == []
    assert kufan["claimed"] == [
        {"kind": "licence", "name": "一类全牌照", "number": None, "claimed": True}
    ]
    checked = catalog("check", "--json", "--today", TODAY, lang="en").json()
    claims = {p["provider"]: p["claimed"] for p in checked["providers"]}
    assert claims["kufanyun"] is True and claims["jianmi"] is False
    checks = checks_of(checked, "kufanyun")
    assert checks["claimed"]["status"] == "warn"
    assert "claimed, number not given" in checks["claimed"]["message"]
    assert checks["licence-valid"]["status"] == "fail"
    assert checks["licence-scope"]["status"] == "fail"
    assert "claimed" in checks["licence-valid"]["message"]
    text = catalog("check", "--today", TODAY, "kufanyun", lang="en").out
    assert "claimed, number not given" in text


def test_own_datacenter_and_7x24_requirements_exclude_with_the_reason(
    catalog: Any, tmp_path: Path
) -> None:
    extra = '[requirements]\nown_datacenter = true\nsupport = "7x24"\n'
    plan = catalog("plan", job_file(tmp_path, extra), "--json", "--today", TODAY, lang="en")
    assert plan.code == 0, plan.err
    excluded = plan.json()["plans"][0]["excluded"]
    kufan = [e for e in excluded if e["provider"] == "kufanyun"]
    assert kufan, excluded
    reasons = " ".join(r for e in kufan for r in e["reasons"])
    assert "own-datacenter: job requires own data centre; provider: unknown" in reasons
    assert "support: job requires 7x24 support" in reasons
    assert not any(
        "own-datacenter" in r for e in excluded if e["provider"] == "jianmi" for r in e["reasons"]
    )


def test_latency_from_shenzhen_excludes_inner_mongolia_and_keeps_guangzhou(
    catalog: Any, tmp_path: Path
) -> None:
    extra = '[requirements]\nmax_latency_ms = 20\nlatency_from = "深圳"\nprovinces = ["内蒙古", "广东"]\n'
    job = job_file(tmp_path, extra)
    plan = catalog("plan", job, "--json", "--today", TODAY, lang="en")
    doc = plan.json()["plans"][0]
    north = [e for e in doc["excluded"] if e["region"] == "nm-wlcb"]
    assert north and any("latency" in r and "approximate" in r for r in north[0]["reasons"])
    slow = [e for e in doc["excluded"] if e["region"] == "gd-gz-slow"]
    assert slow and any("25 ms (measured)" in r for r in slow[0]["reasons"])
    assert not [e for e in doc["excluded"] if e["region"] == "gd-gz"]
    # the cheaper seeds' offers fail their licences, so 广州 wins: its figure is shown
    assert doc["best"]["region"] == "gd-gz"
    latency = doc["latency"]
    assert latency["from"] == "深圳" and latency["measured"] is False
    assert latency["rtt_ms"] == "3.6" and latency["status"] == "pass"
    text = catalog("plan", job, "--today", TODAY, lang="en").out
    assert "round trip from 深圳 ≈3.6 ms (approximate)" in text


def test_a_job_without_data_gets_the_not_included_note(catalog: Any, tmp_path: Path) -> None:
    job = job_file(tmp_path, "")
    doc = catalog("plan", job, "--json", "--today", TODAY, lang="en").json()["plans"][0]
    assert doc["notes"] == ["storage, upload and egress not included: add `[data]`"]
    assert (
        "storage, upload and egress not included"
        in catalog("plan", job, "--today", TODAY, lang="en").out
    )
    with_data = job_file(tmp_path, "[data]\ndataset_gb = 100\n")
    doc = catalog("plan", with_data, "--json", "--today", TODAY).json()["plans"][0]
    assert doc["notes"] == []


def test_offers_show_each_rows_verdict_and_say_when_the_cheapest_fail(catalog: Any) -> None:
    result = catalog("offers", "--json", lang="en")
    rows = result.json()["offers"]
    verdicts = {(r["provider"], r["region"]): r["compliance"] for r in rows}
    assert verdicts[("jianmi", "gd-1")] == "fail"
    assert verdicts[("kufanyun", "gd-1")] == "fail"
    assert verdicts[("northsouth", "gd-gz")] == "warn"  # its claimed ISO27001
    assert "the cheapest offers fail the default compliance checks" in result.err
    text = catalog("offers", lang="en")
    assert "Compliance" in text.out and "✗" in text.out and "!" in text.out
    compliant = catalog("offers", "--compliant", "--json").json()["offers"]
    assert {r["provider"] for r in compliant} == {"northsouth"}


def test_the_quote_shows_facts_exclusions_latency_and_what_the_bill_leaves_out(
    catalog: Any, tmp_path: Path
) -> None:
    extra = (
        '[requirements]\nown_datacenter = true\nsupport = "7x24"\n'
        'max_latency_ms = 20\nlatency_from = "深圳"\n'
    )
    html = tmp_path / "quote.html"
    job = job_file(tmp_path, extra)
    result = catalog("quote", job, "-o", str(html), "--today", TODAY, "--json", lang="en")
    assert result.code == 0, result.err
    root = parse_html(html.read_text(encoding="utf-8"))
    facts = {
        row.attrs["data-provider"]: row.text()
        for row in root.by_id("compliance").find_all("tr")
        if "data-provider" in row.attrs
    }
    assert "support 7x24, response 30 min" in facts["jianmi"]
    assert "own data centre: yes" in facts["jianmi"]
    assert "一类全牌照" in facts["kufanyun"] and "claimed" in facts["kufanyun"]
    excluded = root.by_id("excluded").text()
    assert "job requires own data centre; provider: unknown" in excluded
    assert "round trip from 深圳 ≈32.7 ms (approximate)" in excluded  # 乌兰察布
    summary = root.by_id("summary").text()
    assert "3.6 ms (approximate)" in summary
    assert "storage, upload and egress not included: add `[data]`" in summary
    assert "claimed, number not given (unverified): ISO27001" in summary  # under attention


def test_a_free_trial_is_a_labelled_line_in_plan_json_text_and_quote(
    cli: Any, tmp_path: Path
) -> None:
    assert cli("init", "--no-demo").code == 0
    sheet = tmp_path / "trial.csv"
    sheet.write_text(
        "provider,region,gpu,cards,billing,price,currency,observed_at,free_trial_hours\n"
        "northsouth,gd-gz,A100 80G,8,hourly,90,CNY,2026-11-25T10:00:00+08:00,5\n",
        encoding="utf-8",
    )
    assert cli("import", "--profile", str(DATA / "northsouth.toml"), str(sheet)).code == 0
    job = job_file(tmp_path, "[budget]\nuse_free_trial = true\n")
    doc = cli("plan", job, "--json", "--today", TODAY).json()["plans"][0]
    trial = [s for s in doc["best"]["segments"] if s["free_trial"]]
    assert trial and trial[0]["free_trial_hours"] == 5
    assert "免费试用 5 h" in cli("plan", job, "--today", TODAY).out
    html = tmp_path / "trial.html"
    assert cli("quote", job, "-o", str(html), "--today", TODAY, "--json").code == 0
    assert "免费试用 5 h" in parse_html(html.read_text(encoding="utf-8")).by_id("plan").text()


def test_the_latency_line_carries_the_upload_time_over_the_stated_bandwidth(
    catalog: Any, tmp_path: Path
) -> None:
    """广州 states upload_gbps = 10: 2,000 GB take 2000 × 8 / 10 / 3600 = 0.44 h."""
    extra = (
        '[requirements]\nmax_latency_ms = 20\nlatency_from = "深圳"\n'
        'provinces = ["广东"]\n[data]\ndataset_gb = 2000\n'
    )
    job = job_file(tmp_path, extra)
    doc = catalog("plan", job, "--json", "--today", TODAY, lang="en").json()["plans"][0]
    assert doc["best"]["region"] == "gd-gz" and doc["notes"] == []
    assert doc["latency"]["upload_hours"] == "0.44"
    assert "upload time 0.44 h" in catalog("plan", job, "--today", TODAY, lang="en").out
