"""Assembling the quote document from plan results and offers (pure parts)."""

from __future__ import annotations

import dataclasses
import itertools
import json
from datetime import date, datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from comparator.catalog.models import OfferView
from comparator.compliance import FAIL, PASS, WARN, ProviderReport
from comparator.compliance.verdicts import DatacenterReport, check
from comparator.domain.job import Job, Requirements, Schedule, Workload, parse_job
from comparator.domain.money import FxTable
from comparator.errors import Msg
from comparator.plan import (
    ExcludedOffer,
    Plan,
    PlanContext,
    PlanResult,
    PlanSegment,
    plan_job,
)
from comparator.quote.document import (
    MAX_COMPLIANCE_PROVIDERS,
    compliance_section,
    curve_offer,
    job_section,
    price_age,
    price_curve,
    referenced_offer_ids,
)
from tests.support.factories import make_offer, offer_view

SHANGHAI = ZoneInfo("Asia/Shanghai")
FX = FxTable({"CNY": Decimal(1), "USD": Decimal("7.12")}, date(2026, 11, 27))
JOB = parse_job(
    {
        "name": "t",
        "workload": {"card_hours": 100, "gpu": "A100-80G"},
        "schedule": {
            "earliest_start": "2026-12-01T00:00:00+08:00",
            "deadline": "2026-12-08T00:00:00+08:00",
            "interruptible": True,
        },
    },
    "job.toml",
)


def offer(offer_id: str = "1", **changes: Any) -> OfferView:
    base = offer_view(
        offer_id=offer_id, snapshot_id="7", time_of_use="00:00-08:00*0.5; sat-sun*0.8"
    )
    return dataclasses.replace(base, **changes)


def test_price_curve_has_a_point_at_every_change() -> None:
    points = price_curve(offer(), JOB, FX, SHANGHAI)
    as_pairs = [(p["hour_start"][5:16], p["price"]) for p in points]
    assert as_pairs[:3] == [
        ("12-01T00:00", "4.0000"),
        ("12-01T08:00", "8.0000"),
        ("12-02T00:00", "4.0000"),
    ]
    assert ("12-05T08:00", "6.4000") in as_pairs  # Saturday: 0.8, the night 0.5 wins at night
    assert ("12-05T00:00", "4.0000") in as_pairs
    assert len(as_pairs) == 14
    assert all(a[1] != b[1] for a, b in itertools.pairwise(as_pairs))


def test_price_curve_converts_into_the_quote_currency() -> None:
    points = price_curve(offer(currency="USD", time_of_use=""), JOB, FX, SHANGHAI)
    assert points == [{"hour_start": "2026-12-01T00:00:00+08:00", "price": "56.9600"}]


START = datetime(2026, 12, 1, tzinfo=SHANGHAI)


def segment(offer_id: str) -> PlanSegment:
    return PlanSegment(
        offer_id, "hourly", START, START, 1, 1, Decimal(1), Decimal(1), run_end=START
    )


def a_plan(*offer_ids: str, provider: str = "acme", region: str = "gd-sz-1") -> Plan:
    return Plan(
        provider=provider,
        provider_name=provider,
        region=region,
        region_name=region,
        province=None,
        city=None,
        gpu="A100-SXM4-80GB",
        cards=8,
        node_cards=8,
        currency="CNY",
        total_cost=Decimal(1),
        start=START,
        finish=START,
        run_hours=1,
        work_hours=1,
        card_hours=Decimal(8),
        segments=tuple(segment(i) for i in offer_ids),
    )


def a_result(best: Plan | None, *alternatives: Plan, **fields: Any) -> PlanResult:
    return PlanResult("t", None, None, "CNY", "cost", best, list(alternatives), **fields)


def excluded(offer_id: str) -> ExcludedOffer:
    return ExcludedOffer("acme", offer_id, "gd-sz-1", "A100-SXM4-80GB", "hourly", (), "stock")


def test_curve_offer_prefers_the_hourly_offer_of_the_plan_then_a_sibling() -> None:
    hourly, monthly = offer("1"), offer("2", billing="monthly", price=Decimal(30000))
    elsewhere = offer("3", region="gd-gz-1")
    best = a_plan("2")
    by_id = {o.offer_id: o for o in (hourly, monthly, elsewhere)}
    assert curve_offer(best, by_id, by_id.values()) == hourly
    assert curve_offer(best, by_id, [monthly, elsewhere]) is None
    assert curve_offer(a_plan("3", "2"), by_id, by_id.values()) == elsewhere
    assert curve_offer(None, by_id, by_id.values()) is None


def test_referenced_offers_keep_plan_order_once_each() -> None:
    result = a_result(
        a_plan("5", "2"),
        a_plan("2", "9"),
        excluded=[excluded("1"), excluded("5"), excluded("")],
    )
    assert referenced_offer_ids(result) == ["5", "2", "9", "1"]


def test_referenced_offers_are_the_plans_and_the_exclusions_the_report_lists() -> None:
    """Thousands of exclusions keep a bounded document: the price ages of the plans' offers
    and of the first exclusions of each kind (the ones the report lists)."""
    from comparator.domain.report_bounds import EXCLUDED_PER_KIND

    stock = [excluded(str(100 + i)) for i in range(3 * EXCLUDED_PER_KIND)]
    network = [dataclasses.replace(excluded(str(900 + i)), kind="network") for i in range(3)]
    result = a_result(a_plan("5"), a_plan("2"), excluded=[*stock, *network])
    expected = ["5", "2", *(str(100 + i) for i in range(EXCLUDED_PER_KIND)), "900", "901", "902"]
    assert referenced_offer_ids(result) == expected


def test_price_age_counts_local_days_and_flags_stale_prices() -> None:
    late_evening = offer(observed_at=datetime(2026, 10, 30, 15, 30, tzinfo=ZoneInfo("UTC")))
    fresh = price_age(late_evening, date(2026, 11, 29), SHANGHAI, 30)
    assert fresh["observed_at"] == "2026-10-30T23:30:00+08:00"
    assert fresh["age_days"] == 30 and fresh["stale"] is False
    stale = price_age(late_evening, date(2026, 11, 30), SHANGHAI, 30)
    assert stale["age_days"] == 31 and stale["stale"] is True
    assert fresh["snapshot_id"] == "7" and fresh["price"] == "64.00"


def test_job_section_is_plain_json() -> None:
    section = job_section(JOB)
    assert json.loads(json.dumps(section)) == section
    assert section["card_hours"] == "100" and section["gpu"] == "A100-SXM4-80GB"
    assert section["earliest_start"] == "2026-12-01T00:00:00+08:00"
    assert section["requirements"]["provinces"] == [] and section["max_cost"] is None


def test_the_throughput_table_is_the_plans_own_rows() -> None:
    """The quote's GPU table copies the figures that priced the plan (plan.figures), never
    recomputes them (it once showed A100 MFU 0.38 where the plan priced 0.525)."""
    from comparator.quote.document import throughput_rows

    row = {"gpu": "A100-SXM4-80GB", "cards": 8, "mfu": 0.525, "relative": 1.0, "card_hours": 283.7}
    assert throughput_rows(a_result(None, assumptions={"throughput": [row]})) == [row]
    assert throughput_rows(a_result(None)) == []


def test_the_compliance_section_stays_bounded_and_keeps_the_plans_providers() -> None:
    """At national scale a quote holds the reports of the plans' providers and at most 50 in
    all; the others are counted by status (the report says so)."""
    start = datetime(2026, 12, 1, tzinfo=SHANGHAI)
    job = Job(
        name="bounded",
        schedule=Schedule(start, datetime(2026, 12, 4, tzinfo=SHANGHAI), True, 1),
        workload=Workload(Decimal(20), "A100-SXM4-80GB", None),
        requirements=Requirements(),
        source="bounded.toml",
    )
    context = PlanContext(today=date(2026, 11, 29), fx=FX)
    result = plan_job(
        job, [make_offer("1", "hourly", "8", provider="zz", country="SG")], {}, context
    )
    assert result.best is not None and result.best.provider == "zz"

    def report(pid: str, status: str) -> ProviderReport:
        return ProviderReport(pid, pid, (check("licence-valid", status, "z", "e"),), ())

    statuses = [PASS, WARN, FAIL]
    reports = [report(f"p{i:03}", statuses[i % 3]) for i in range(70)] + [report("zz", PASS)]
    section = compliance_section(dataclasses.replace(result, compliance=tuple(reports)), "en")
    listed = [r["provider"] for r in section["providers"]]
    assert len(listed) == MAX_COMPLIANCE_PROVIDERS == 50
    assert listed[0] == "zz" and listed[1:] == [f"p{i:03}" for i in range(49)]
    assert section["omitted"] == {"providers": 21, "by_status": {FAIL: 7, PASS: 7, WARN: 7}}
    small = compliance_section(dataclasses.replace(result, compliance=tuple(reports[:5])), "en")
    assert len(small["providers"]) == 5 and "omitted" not in small


def _report(pid: str, own: str, **centres: str) -> ProviderReport:
    datacenters = tuple(
        DatacenterReport(dc, dc, (check("dc-licence-covers", status, Msg("z")),))
        for dc, status in centres.items()
    )
    return ProviderReport(pid, pid, (check("licence-valid", own, Msg("z")),), datacenters)


def test_the_recommended_provider_comes_first_then_the_alternatives_by_rank() -> None:
    result = a_result(
        a_plan("1", provider="mm"),
        a_plan("2", provider="zz"),
        a_plan("3", provider="bb"),
        a_plan("4", provider="zz"),
        compliance=tuple(_report(p, PASS) for p in ("aa", "bb", "cc", "mm", "zz")),
    )
    listed = [r["provider"] for r in compliance_section(result, "en")["providers"]]
    assert listed == ["mm", "zz", "bb", "aa", "cc"]


def test_a_provider_passes_in_the_quote_when_a_data_centre_a_plan_uses_passes() -> None:
    """#25: 不通过 on a provider whose one compliant data centre was alternative #3."""
    reports = (
        _report("used", PASS, **{"gd-sz-1": PASS, "js-cz-1": FAIL}),
        _report("warned", PASS, **{"gd-sz-1": WARN, "gd-gz-1": PASS}),
        _report("own-fail", FAIL, **{"gd-sz-1": PASS}),
        _report("unused", PASS, **{"a": FAIL, "b": PASS}),
        _report("all-fail", PASS, **{"a": FAIL}),
    )
    result = a_result(
        a_plan("1", provider="warned"),
        a_plan("2", provider="used"),
        a_plan("3", provider="own-fail"),
        compliance=reports,
    )
    section = compliance_section(result, "en")["providers"]
    statuses = {r["provider"]: (r["status"], r["quote_status"]) for r in section}
    assert statuses == {
        "used": (FAIL, PASS),  # its other data centre fails; the one the plan uses passes
        "warned": (WARN, WARN),  # the plan's data centre warns: the warning stays
        "own-fail": (FAIL, FAIL),  # the provider's own check fails
        "unused": (FAIL, PASS),  # no plan: its best data centre
        "all-fail": (FAIL, FAIL),
    }
