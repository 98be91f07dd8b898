"""The demo catalog's providers come out of compliance as designed; offers split into eligible
and excluded ones with reasons."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from comparator.catalog.models import OfferView
from comparator.compliance.engine import ProviderReport, check_providers, evaluate_offers
from comparator.domain.job import Requirements
from comparator.domain.profile import ProviderProfile, load_profile
from tests.support.factories import offer_view

DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo"
TODAY = date(2026, 11, 29)
LAST_DAY = date(2026, 12, 8)
OBSERVED = datetime(2026, 11, 25, 10, tzinfo=ZoneInfo("Asia/Shanghai"))
PI_JOB = Requirements(contains_personal_info=True)


@pytest.fixture(scope="module")
def profiles() -> dict[str, ProviderProfile]:
    loaded = [load_profile(path) for path in sorted(DEMO.glob("*.toml"))]
    return {p.id: p for p in loaded}


def reports(
    profiles: dict[str, ProviderProfile], requirements: Requirements | None = None
) -> dict[str, ProviderReport]:
    found = check_providers(profiles, requirements, today=TODAY, last_day=LAST_DAY)
    return {r.provider: r for r in found}


def failing_ids(report: ProviderReport) -> set[str]:
    return {c.id for c in report.checks if c.status == "fail"}


def dc_status(report: ProviderReport) -> dict[str, str]:
    return {d.id: d.status for d in report.datacenters}


def test_clean_providers_pass_everything(profiles: dict[str, ProviderProfile]) -> None:
    found = reports(profiles)
    for pid in ("demo-nanshan", "demo-qianhai"):
        assert found[pid].status == "pass", found[pid]
        assert all(c.status == "pass" for c in found[pid].checks)


def test_b2_only_licence_fails_scope_only(profiles: dict[str, ProviderProfile]) -> None:
    report = reports(profiles)["demo-baiyun"]
    assert report.status == "fail"
    assert failing_ids(report) == {"licence-scope"}
    scope = next(c for c in report.checks if c.id == "licence-scope")
    assert "粤B2-20190318" in scope.evidence and "B2" in scope.message_en


def test_coverage_gap_fails_that_datacentre_only(profiles: dict[str, ProviderProfile]) -> None:
    report = reports(profiles)["demo-pengcheng"]
    assert failing_ids(report) == set()
    assert dc_status(report) == {"gd-sz-pc": "pass", "js-cz-pc": "fail"}
    gap = report.failures_for("js-cz-pc")
    assert [c.id for c in gap] == ["licence-coverage"]
    assert "粤B1-20200712" in gap[0].evidence
    assert report.failures_for("gd-sz-pc") == []


def test_expiring_licence_warns(profiles: dict[str, ProviderProfile]) -> None:
    report = reports(profiles)["demo-zhujiang"]
    assert report.status == "warn"
    warned = [c for c in report.checks if c.status == "warn"]
    assert [c.id for c in warned] == ["licence-valid"]
    assert "2027-01-20" in warned[0].message_en


def test_overseas_passes_unless_the_job_carries_personal_information(
    profiles: dict[str, ProviderProfile],
) -> None:
    assert reports(profiles)["demo-merlion"].status == "pass"
    with_pi = reports(profiles, PI_JOB)["demo-merlion"]
    assert set(dc_status(with_pi).values()) == {"fail"}
    assert failing_ids(with_pi) == set()
    allowed = reports(profiles, Requirements(contains_personal_info=True, export_basis="exempt"))
    assert allowed["demo-merlion"].status == "pass"


def test_mainland_provider_with_an_overseas_region(profiles: dict[str, ProviderProfile]) -> None:
    report = reports(profiles, PI_JOB)["demo-qianhai"]
    assert dc_status(report) == {
        "gd-sz-qh": "pass",
        "gd-gz-1": "pass",
        "sh-1": "pass",
        "sg-1": "fail",
    }


def test_stale_annual_report_and_bad_numbers_fail(profiles: dict[str, ProviderProfile]) -> None:
    report = reports(profiles)["demo-caoyuan"]
    assert failing_ids(report) == {"annual-report", "uscc"}
    assert {c.id for c in report.checks if c.status == "warn"} == {"gongan"}


def demo_offers(profiles: dict[str, ProviderProfile]) -> list[OfferView]:
    offers = []
    for profile in profiles.values():
        for dc in profile.datacenters:
            offers.append(
                offer_view(
                    offer_id=f"{profile.id}/{dc.id}",
                    provider=profile.id,
                    provider_name=profile.name,
                    region=dc.id,
                    region_name=dc.name,
                    country=dc.country,
                    province=dc.province,
                    city=dc.city,
                    mainland=dc.mainland,
                    billing="monthly",
                    price=Decimal("45000.00"),
                    interconnect=None,
                    network=None,
                    observed_at=OBSERVED,
                )
            )
    return offers


def test_evaluate_offers_for_a_personal_information_job(
    profiles: dict[str, ProviderProfile],
) -> None:
    result = evaluate_offers(
        demo_offers(profiles), profiles, PI_JOB, today=TODAY, last_day=LAST_DAY, lang="en"
    )
    assert sorted(result.eligible_ids) == sorted(
        [
            "demo-nanshan/gd-sz-1",
            "demo-nanshan/gd-gz-1",
            "demo-nanshan/js-cz-1",
            "demo-nanshan/gz-ga-1",
            "demo-qianhai/gd-sz-qh",
            "demo-qianhai/gd-gz-1",
            "demo-qianhai/sh-1",
            "demo-zhujiang/gd-sz-1",
            "demo-zhujiang/gd-dg-1",
            "demo-pengcheng/gd-sz-pc",
        ]
    )
    reasons = {e.offer.offer_id: e.reasons for e in result.excluded}
    assert reasons["demo-baiyun/gd-gz-by"][0].startswith("licence-scope: ")
    assert reasons["demo-pengcheng/js-cz-pc"][0].startswith("licence-coverage: ")
    assert reasons["demo-merlion/sg-1"][0].startswith("data-residency: ")
    assert reasons["demo-qianhai/sg-1"][0].startswith("data-residency: ")
    assert any("licence-valid" in w for w in result.warnings["demo-zhujiang/gd-sz-1"])
    assert any("licence-cloud-item" in w for w in result.warnings["demo-pengcheng/gd-sz-pc"])
    assert "demo-nanshan/gd-sz-1" not in result.warnings


def test_contract_example_job_narrows_to_guangdong(profiles: dict[str, ProviderProfile]) -> None:
    job = Requirements(
        provinces=("广东",),
        certifications=("ISO27001",),
        mlps_level=3,
        contains_personal_info=True,
        invoice="专票",
    )
    result = evaluate_offers(demo_offers(profiles), profiles, job, today=TODAY, last_day=LAST_DAY)
    assert sorted(result.eligible_ids) == sorted(
        [
            "demo-nanshan/gd-sz-1",
            "demo-nanshan/gd-gz-1",
            "demo-qianhai/gd-sz-qh",
            "demo-qianhai/gd-gz-1",
            "demo-zhujiang/gd-sz-1",
            "demo-zhujiang/gd-dg-1",
            "demo-pengcheng/gd-sz-pc",
        ]
    )
    baiyun = next(e for e in result.excluded if e.offer.provider == "demo-baiyun")
    assert {c.id for c in baiyun.checks} == {"licence-scope", "mlps", "certification"}


def test_offers_without_a_profile_are_judged_on_their_own_location(
    profiles: dict[str, ProviderProfile],
) -> None:
    template = next(o for o in demo_offers(profiles) if o.provider == "demo-nanshan")
    mainland = replace(
        template,
        offer_id="m",
        provider="nobody",
        region="gd-x",
        country="CN",
        province="广东",
        mainland=True,
    )
    overseas = replace(
        template,
        offer_id="o",
        provider="aws",
        region="us-east-1",
        country="US",
        province=None,
        city=None,
        mainland=False,
    )
    stale = replace(
        template, offer_id="s", observed_at=datetime(2026, 9, 1, tzinfo=OBSERVED.tzinfo)
    )
    result = evaluate_offers([mainland, overseas, stale], profiles, None, today=TODAY)
    assert result.eligible_ids == ["o", "s"]
    assert result.excluded[0].reasons[0].startswith("licence-valid: ")
    assert any(w.startswith("price-freshness: ") for w in result.warnings["s"])


def test_an_offer_in_a_datacentre_the_profile_lacks_is_judged_by_its_location(
    profiles: dict[str, ProviderProfile],
) -> None:
    template = next(o for o in demo_offers(profiles) if o.provider == "demo-nanshan")
    inside = replace(template, offer_id="in", region="gd-new", province="广东", city="佛山")
    outside = replace(template, offer_id="out", region="sc-new", province="四川", city="成都")
    result = evaluate_offers([inside, outside], profiles, None, today=TODAY)
    assert result.eligible_ids == ["in"]
    assert result.excluded[0].checks[0].id == "licence-coverage"
