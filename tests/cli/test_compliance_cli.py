"""`suanli check` and `suanli offers --compliant-for` against a real SQLite catalog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo"
DEMO_IDS = ["demo-baiyun", "demo-merlion", "demo-nanshan", "demo-pengcheng", "demo-zhujiang"]

SHEET = """provider,region,gpu,cards,billing,price,currency,observed_at
demo-nanshan,gd-sz-1,A100 80G,8,monthly,45000,CNY,2026-11-25T10:00:00+08:00
demo-nanshan,js-cz-1,A100 80G,8,monthly,44000,CNY,2026-09-01T10:00:00+08:00
demo-baiyun,gd-gz-by,A100 80G,8,monthly,30000,CNY,2026-11-23T11:00:00+08:00
demo-pengcheng,gd-sz-pc,A100 80G,8,monthly,43000,CNY,2026-11-27T16:00:00+08:00
demo-pengcheng,js-cz-pc,A100 80G,8,monthly,41000,CNY,2026-11-27T16:00:00+08:00
demo-merlion,sg-1,A100 80G,8,monthly,5000,USD,2026-11-28T09:00:00+08:00
demo-nanshan,gd-sz-1,H100 80G,8,monthly,60000,CNY,2026-11-25T10:00:00+08:00
"""

JOB = """name = "pi-job"
[workload]
card_hours = 100
gpu = "A100-80G"
[schedule]
earliest_start = 2026-12-01T00:00:00+08:00
deadline = 2026-12-08T00:00:00+08:00
[requirements]
contains_personal_info = true
{extra}
"""


@pytest.fixture
def catalog(cli: Any, tmp_path: Path) -> Any:
    assert cli("init", "--no-demo").code == 0
    args = [a for pid in DEMO_IDS for a in ("--profile", str(DEMO / f"{pid}.toml"))]
    sheet = tmp_path / "prices.csv"
    sheet.write_text(SHEET, encoding="utf-8")
    result = cli("import", *args, str(sheet))
    assert result.code == 0, result.err
    return cli


def job_file(tmp_path: Path, extra: str = "") -> str:
    path = tmp_path / "job.toml"
    path.write_text(JOB.format(extra=extra), encoding="utf-8")
    return str(path)


def test_check_json_matches_the_contract(catalog: Any) -> None:
    result = catalog("check", "--json", "--today", "2026-11-29")
    assert result.code == 0, result.err
    doc = result.json()
    by_id = {p["provider"]: p for p in doc["providers"]}
    assert sorted(by_id) == DEMO_IDS
    assert {pid: p["status"] for pid, p in by_id.items()} == {
        "demo-baiyun": "fail",
        "demo-merlion": "pass",
        "demo-nanshan": "warn",
        "demo-pengcheng": "fail",
        "demo-zhujiang": "warn",
    }
    scope = next(c for c in by_id["demo-baiyun"]["checks"] if c["id"] == "licence-scope")
    assert set(scope) >= {"id", "status", "message", "evidence"}
    assert scope["status"] == "fail" and "粤B2-20190318" in scope["evidence"]
    nanshan_dcs = {d["id"]: d for d in by_id["demo-nanshan"]["datacenters"]}
    stale = nanshan_dcs["js-cz-1"]["checks"]
    assert {"id": "price-freshness", "status": "warn"}.items() <= stale[-1].items()


def test_check_selected_providers_with_a_job(catalog: Any, tmp_path: Path) -> None:
    result = catalog(
        "check", "demo-merlion", "--job", job_file(tmp_path), "--json", "--today", "2026-11-29"
    )
    doc = result.json()
    assert [p["provider"] for p in doc["providers"]] == ["demo-merlion"]
    assert doc["last_day"] == "2026-12-08"
    sg = doc["providers"][0]["datacenters"][0]
    assert sg["status"] == "fail" and sg["checks"][0]["id"] == "data-residency"


def test_check_strict_exits_3_on_a_failing_verdict(catalog: Any) -> None:
    assert catalog("check", "demo-baiyun", "--strict", "--today", "2026-11-29").code == 3
    assert catalog("check", "demo-baiyun", "--today", "2026-11-29").code == 0
    assert catalog("check", "demo-merlion", "--strict", "--today", "2026-11-29").code == 0


def test_check_terminal_matrix_and_reasons(catalog: Any) -> None:
    result = catalog("check", "--today", "2026-11-29", lang="en")
    assert result.code == 0
    assert "Compliance checks (2026-11-29)" in result.out
    assert "└ js-cz-pc" in result.out and "✗" in result.out
    assert "✗ demo-pengcheng js-cz-pc licence-coverage: 粤B1-20200712 is a provincial" in (
        result.out.replace("\n", " ")
    )
    zh = catalog("check", "--today", "2026-11-29")
    assert "不通过" in zh.out and "合规检查" in zh.out


@pytest.mark.parametrize(
    ("args", "fragment", "exit_code"),
    [
        (["check", "nobody"], "unknown provider 'nobody'", 1),
        (["check", "--today", "2026-13-01"], "--today: expected a date YYYY-MM-DD", 2),
        (["check", "--job", "missing.toml"], "missing.toml", 1),
    ],
)
def test_check_bad_input_gives_one_clear_error(
    catalog: Any, args: list[str], fragment: str, exit_code: int
) -> None:
    result = catalog(*args, lang="en")
    assert result.code == exit_code and fragment in result.err and "Traceback" not in result.err


def test_check_help_has_an_example(cli: Any) -> None:
    result = cli("check", "--help", lang="en")
    assert result.code == 0 and "Example:" in result.out


def test_offers_compliant_for_shows_only_eligible_offers(catalog: Any, tmp_path: Path) -> None:
    everything = catalog("offers", "--json")
    assert everything.code == 0, everything.err
    assert len(everything.json()["offers"]) == 7
    result = catalog("offers", "--json", "--compliant-for", job_file(tmp_path))
    assert result.code == 0, result.err
    regions = sorted((o["provider"], o["region"], o["gpu"]) for o in result.json()["offers"])
    assert regions == [
        ("demo-nanshan", "gd-sz-1", "A100-SXM4-80GB"),
        ("demo-nanshan", "gd-sz-1", "H100-SXM5-80GB"),
        ("demo-nanshan", "js-cz-1", "A100-SXM4-80GB"),
        ("demo-pengcheng", "gd-sz-pc", "A100-SXM4-80GB"),
    ]
    only_a100 = job_file(tmp_path, 'gpus = ["A100-80G"]')
    a100 = catalog("offers", "--json", "--compliant-for", only_a100)
    listed = a100.json()["offers"]
    assert {o["gpu"] for o in listed} == {"A100-SXM4-80GB"} and len(listed) == 3
    basis = job_file(tmp_path, 'export_basis = "standard_contract"')
    allowed = catalog("offers", "--json", "--compliant-for", basis)
    assert ("demo-merlion", "sg-1") in {
        (o["provider"], o["region"]) for o in allowed.json()["offers"]
    }


ANY_GPU_SPOT_JOB = """name = "pi-job, any GPU, spot allowed"
[model]
name = "Qwen2.5-0.5B"  # fits every card: no GPU filter
[training]
method = "lora"
tokens = "30M"
[schedule]
earliest_start = 2026-12-01T00:00:00+08:00
deadline = 2026-12-08T00:00:00+08:00
interruptible = true
[requirements]
contains_personal_info = true
spot = true
"""


def test_offers_compliant_for_a_job_without_filters_leaves_out_the_excluded(
    catalog: Any, tmp_path: Path
) -> None:
    """A job that filters no GPU, place or billing asks the database for no filter at all:
    the excluded places must still be left out of the first rows and the count (the index
    walk of the unfiltered listing used to ignore them)."""
    job = tmp_path / "any.toml"
    job.write_text(ANY_GPU_SPOT_JOB, encoding="utf-8")
    listed = catalog("offers", "--json", "--compliant-for", str(job)).json()["offers"]
    assert ("demo-merlion", "sg-1") not in {(o["provider"], o["region"]) for o in listed}
    table = catalog("offers", "--compliant-for", str(job), "--limit", "3", lang="en")
    assert table.code == 0, table.err
    assert "demo-merlion" not in table.out  # its US$5,000 A100s rank first otherwise
    assert f"{len(listed)} offers, 3 shown" in table.out


def test_offers_compliant_first_rows_are_the_full_listing_s_first(catalog: Any) -> None:
    """`--compliant --limit N` asks the database for the first rows without the failing
    places; they must be the first N of the whole judged listing (`--json` without a limit,
    streamed and judged place by place)."""
    whole = catalog("offers", "--compliant", "--json").json()["offers"]
    assert whole and "demo-baiyun" not in {o["provider"] for o in whole}  # its licence fails
    for shown in (1, 3, len(whole)):
        first = catalog("offers", "--compliant", "--json", "--limit", str(shown))
        assert first.code == 0, first.err
        assert first.json()["offers"] == whole[:shown]
