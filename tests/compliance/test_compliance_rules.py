"""Rules 1–9 of compliance.md, table-driven: each rule has passing and failing cases."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from comparator.catalog.models import OfferView
from comparator.compliance.engine import check_provider
from comparator.compliance.licence import required_report_year
from comparator.compliance.service import FACT_CHECKS
from comparator.compliance.verdicts import Check, ProviderReport
from comparator.domain.job import Requirements
from comparator.domain.profile import parse_profile
from tests.support.factories import offer_view

TODAY = date(2026, 11, 29)
LAST_DAY = date(2026, 12, 8)
SHANGHAI = ZoneInfo("Asia/Shanghai")

CLEAN: dict[str, Any] = {
    "provider": {
        "id": "clean",
        "name": "清白云",
        "uscc": "91440300708461136T",
        "invoice_types": ["专票", "普票"],
    },
    "licenses": [
        {
            "number": "B1-20210417",
            "services": ["B11", "B12"],
            "idc_item": "含互联网资源协作服务",
            "coverage": ["广东", "江苏-常州"],
            "valid_until": "2031-04-16",
            "last_annual_report": 2026,
        }
    ],
    "filings": [
        {"kind": "icp_filing", "number": "粤ICP备2021045678号-1"},
        {"kind": "gongan", "number": "粤公网安备44030502001234号"},
        {"kind": "mlps", "level": 3, "assessed_on": "2026-06-30"},
    ],
    "certifications": [{"name": "ISO27001", "certifier": "CQC", "valid_until": "2028-09-30"}],
    "datacenters": [
        {"id": "gd-sz", "name": "深圳", "province": "广东", "city": "深圳"},
        {"id": "js-cz", "name": "常州", "province": "江苏", "city": "常州"},
        {"id": "sg-1", "name": "Singapore", "country": "SG", "region": "Singapore"},
    ],
}

Edit = Callable[[dict[str, Any]], None]


def _set(*path: Any, value: Any) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        if value is None:
            target.pop(path[-1], None)
        else:
            target[path[-1]] = value

    return edit


def _licence(**values: Any) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        data["licenses"][0].update(values)
        for key in [k for k, v in values.items() if v is None]:
            del data["licenses"][0][key]

    return edit


def _filings(*filings: dict[str, Any]) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        data["filings"] = list(filings)

    return edit


@dataclass
class Case:
    name: str
    check_id: str
    status: str
    edit: Edit | None = None
    requirements: Requirements | None = None
    scope: str = ""  # "" = the provider's own checks, else a data-centre id
    fragment: str = ""  # must appear in the English message
    today: date = TODAY
    offers_observed: list[datetime] = field(default_factory=list)


MLPS2 = {"kind": "mlps", "level": 2, "assessed_on": "2025-01-01"}
CASES = [
    # rule 1: USCC
    Case("uscc ok", "uscc", "pass", fragment="correct check digit"),
    Case(
        "uscc wrong check digit",
        "uscc",
        "fail",
        _set("provider", "uscc", value="91440300708461136X"),
        fragment="expected T, got X",
    ),
    Case(
        "uscc malformed",
        "uscc",
        "fail",
        _set("provider", "uscc", value="9144030070846113"),
        fragment="malformed USCC",
    ),
    Case("uscc missing", "uscc", "warn", _set("provider", "uscc", value=None)),
    # rule 2: licence number and validity
    Case("licence valid", "licence-valid", "pass", fragment="valid until 2031-04-16"),
    Case(
        "website number",
        "licence-valid",
        "fail",
        _licence(number="粤B1-20090059-5"),
        fragment="website number under licence 粤B1-20090059",
    ),
    Case(
        "not a licence",
        "licence-valid",
        "fail",
        _licence(number="IDC-OK"),
        fragment="not a telecom business licence number",
    ),
    Case(
        "expires before last day",
        "licence-valid",
        "fail",
        _licence(valid_until="2026-12-05"),
        fragment="before the job's last day 2026-12-08",
    ),
    Case(
        "already expired",
        "licence-valid",
        "fail",
        _licence(valid_until="2026-01-01"),
        fragment="expired on 2026-01-01",
    ),
    Case(
        "expiring within 90 days",
        "licence-valid",
        "warn",
        _licence(valid_until="2027-01-20"),
        fragment="43 days after the job's last day",
    ),
    Case("validity not recorded", "licence-valid", "warn", _licence(valid_until=None)),
    Case(
        "no licence",
        "licence-valid",
        "fail",
        _set("licenses", value=[]),
        fragment="no telecom business licence",
    ),
    # rule 3: scope
    Case("B1 with B11", "licence-scope", "pass"),
    Case(
        "B2 only",
        "licence-scope",
        "fail",
        _licence(number="粤B2-20190318"),
        fragment="a B2 licence alone does not cover IDC",
    ),
    Case(
        "A2.B2 without B1",
        "licence-scope",
        "fail",
        _licence(number="A2.B2-20202637"),
        fragment="lack B1",
    ),
    Case(
        "B1 without B11",
        "licence-scope",
        "fail",
        _licence(services=["B12", "B14"]),
        fragment="do not include B11",
    ),
    Case(
        "ICP licence as IDC licence",
        "licence-scope",
        "fail",
        _licence(number="京ICP证030173号"),
        fragment="old-style ICP licence",
    ),
    Case("cloud item included", "licence-cloud-item", "pass"),
    Case(
        "cloud item only", "licence-cloud-item", "pass", _licence(idc_item="仅限互联网资源协作服务")
    ),
    Case(
        "cloud item excluded",
        "licence-cloud-item",
        "warn",
        _licence(idc_item="不含互联网资源协作服务"),
        fragment="self-service",
    ),
    # rule 4: coverage, per data centre
    Case("cross-regional lists province", "licence-coverage", "pass", scope="gd-sz"),
    Case("cross-regional lists city", "licence-coverage", "pass", scope="js-cz"),
    Case(
        "cross-regional misses province",
        "licence-coverage",
        "fail",
        _licence(coverage=["广东"]),
        scope="js-cz",
        fragment="does not include 江苏-常州",
    ),
    Case(
        "cross-regional other city",
        "licence-coverage",
        "fail",
        _licence(coverage=["江苏-苏州"]),
        scope="js-cz",
    ),
    Case(
        "cross-regional no coverage",
        "licence-coverage",
        "fail",
        _licence(coverage=[]),
        scope="gd-sz",
    ),
    Case(
        "cross-regional nationwide",
        "licence-coverage",
        "pass",
        _licence(coverage=["全国"]),
        scope="js-cz",
    ),
    Case(
        "provincial own province",
        "licence-coverage",
        "pass",
        _licence(number="粤B1-20070214", coverage=[]),
        scope="gd-sz",
    ),
    Case(
        "provincial other province",
        "licence-coverage",
        "fail",
        _licence(number="粤B1-20070214", coverage=["广东", "江苏"]),
        scope="js-cz",
        fragment="provincial licence of 广东",
    ),
    Case(
        "provincial listing other city",
        "licence-coverage",
        "fail",
        _licence(number="粤B1-20070214", coverage=["广东-广州"]),
        scope="gd-sz",
    ),
    Case(
        "website number covers nothing",
        "licence-coverage",
        "fail",
        _licence(number="B1-20210417-3"),
        scope="gd-sz",
        fragment="not a usable licence",
    ),
    # rule 5: annual report
    Case("annual report current", "annual-report", "pass"),
    Case(
        "annual report one behind",
        "annual-report",
        "warn",
        _licence(last_annual_report=2025),
        fragment="2026 missing",
    ),
    Case(
        "annual report two behind",
        "annual-report",
        "fail",
        _licence(last_annual_report=2024),
        fragment="two or more years behind",
    ),
    Case("annual report not recorded", "annual-report", "warn", _licence(last_annual_report=None)),
    Case(
        "annual report before May",
        "annual-report",
        "pass",
        _licence(last_annual_report=2025),
        today=date(2026, 4, 30),
    ),
    Case(
        "annual report two behind before May",
        "annual-report",
        "fail",
        _licence(last_annual_report=2023),
        today=date(2026, 4, 30),
    ),
    # rule 6: website filing
    Case("icp filing ok", "icp-filing", "pass", fragment="ICP filing well-formed (广东)"),
    Case(
        "icp filing malformed",
        "icp-filing",
        "warn",
        _filings({"kind": "icp_filing", "number": "粤ICP备1234号"}),
        fragment="malformed",
    ),
    Case(
        "icp filing other province",
        "icp-filing",
        "warn",
        _filings({"kind": "icp_filing", "number": "京ICP备05002571号"}),
        fragment="issued in 北京, but the USCC is registered in 广东",
    ),
    Case(
        "icp licence recorded",
        "icp-filing",
        "pass",
        _filings({"kind": "icp_license", "number": "粤ICP证030173号"}),
    ),
    Case("no website filing", "icp-filing", "warn", _filings()),
    # rule 7: 公安备案
    Case("gongan ok", "gongan", "pass"),
    Case(
        "gongan code of another province",
        "gongan",
        "warn",
        _filings({"kind": "gongan", "number": "粤公网安备11010802032137号"}),
        fragment="belong to 北京",
    ),
    Case(
        "gongan malformed",
        "gongan",
        "warn",
        _filings({"kind": "gongan", "number": "粤公网安备4403050200号"}),
    ),
    Case("gongan missing", "gongan", "warn", _filings()),
    # rule 8: job requirements
    Case("mlps 3 assessed recently", "mlps", "pass", requirements=Requirements(mlps_level=3)),
    Case(
        "mlps level too low",
        "mlps",
        "fail",
        _filings(MLPS2),
        requirements=Requirements(mlps_level=3),
        fragment="level 3; provider's filing: level 2",
    ),
    Case(
        "mlps assessment too old",
        "mlps",
        "fail",
        _filings({"kind": "mlps", "level": 3, "assessed_on": "2025-11-30"}),
        requirements=Requirements(mlps_level=3),
        fragment="over 365 days",
    ),
    Case(
        "mlps 2 needs no yearly assessment",
        "mlps",
        "pass",
        _filings(MLPS2),
        requirements=Requirements(mlps_level=2),
    ),
    Case(
        "certification held",
        "certification",
        "pass",
        requirements=Requirements(certifications=("ISO/IEC 27001:2022",)),
    ),
    Case(
        "certification missing",
        "certification",
        "fail",
        requirements=Requirements(certifications=("ISO27701",)),
        fragment="ISO27701",
    ),
    Case(
        "certification expires before last day",
        "certification",
        "fail",
        _set("certifications", 0, "valid_until", value="2026-12-01"),
        requirements=Requirements(certifications=("ISO27001",)),
        fragment="expires 2026-12-01",
    ),
    Case(
        "invoice available", "invoice", "pass", requirements=Requirements(invoice="增值税专用发票")
    ),
    Case(
        "invoice unavailable",
        "invoice",
        "fail",
        _set("provider", "invoice_types", value=["普票"]),
        requirements=Requirements(invoice="专票"),
        fragment="provider issues: 普票",
    ),
    Case(
        "province allowed",
        "location",
        "pass",
        requirements=Requirements(provinces=("广东",)),
        scope="gd-sz",
    ),
    Case(
        "province not allowed",
        "location",
        "fail",
        requirements=Requirements(provinces=("广东",)),
        scope="js-cz",
        fragment="this one is in 江苏-常州",
    ),
    Case(
        "overseas not in province",
        "location",
        "fail",
        requirements=Requirements(provinces=("广东",)),
        scope="sg-1",
    ),
    Case(
        "city allowed",
        "location-city",
        "pass",
        requirements=Requirements(cities=("深圳市",)),
        scope="gd-sz",
    ),
    Case(
        "city not allowed",
        "location-city",
        "fail",
        requirements=Requirements(cities=("广州",)),
        scope="gd-sz",
    ),
    Case(
        "PI stays in mainland",
        "data-residency",
        "pass",
        requirements=Requirements(contains_personal_info=True),
        scope="gd-sz",
    ),
    Case(
        "PI abroad without basis",
        "data-residency",
        "fail",
        requirements=Requirements(contains_personal_info=True),
        scope="sg-1",
        fragment="declares no legal basis for exporting it",
    ),
    Case(
        "PI abroad under standard contract",
        "data-residency",
        "pass",
        requirements=Requirements(contains_personal_info=True, export_basis="standard_contract"),
        scope="sg-1",
        fragment="standard_contract",
    ),
    # rule 9: freshness
    Case(
        "fresh prices",
        "price-freshness",
        "pass",
        scope="gd-sz",
        offers_observed=[datetime(2026, 11, 25, 10, tzinfo=SHANGHAI)],
    ),
    Case(
        "stale prices",
        "price-freshness",
        "warn",
        scope="gd-sz",
        offers_observed=[
            datetime(2026, 11, 25, tzinfo=SHANGHAI),
            datetime(2026, 10, 1, tzinfo=SHANGHAI),
        ],
        fragment="59 days old",
    ),
]


def offer(
    provider: str,
    region: str,
    observed_at: datetime,
    *,
    offer_id: str = "1",
    country: str = "CN",
    province: str | None = "广东",
    city: str | None = None,
    billing: str = "hourly",
) -> OfferView:
    return offer_view(
        offer_id=offer_id,
        provider=provider,
        provider_name=provider,
        region=region,
        region_name=region,
        country=country,
        province=province,
        city=city,
        mainland=country == "CN",
        cards=1,
        billing=billing,
        price=Decimal("8.00"),
        interconnect=None,
        network=None,
        observed_at=observed_at,
        source="test",
    )


def run_case(case: Case) -> ProviderReport:
    data = copy.deepcopy(CLEAN)
    if case.edit:
        case.edit(data)
    profile = parse_profile(data, f"{case.name}.toml")
    offers = [
        offer("clean", case.scope, t, offer_id=str(i)) for i, t in enumerate(case.offers_observed)
    ]
    return check_provider(
        profile, case.requirements, today=case.today, last_day=LAST_DAY, offers=offers
    )


def checks_in(report: ProviderReport, scope: str) -> list[Check]:
    if not scope:
        return list(report.checks)
    dc = report.datacenter(scope)
    assert dc is not None
    return list(dc.checks)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule(case: Case) -> None:
    found = [c for c in checks_in(run_case(case), case.scope) if c.id == case.check_id]
    assert len(found) == 1, found
    verdict = found[0]
    assert verdict.status == case.status, verdict
    assert case.fragment in verdict.message_en
    assert verdict.message_zh and verdict.message_zh != verdict.message_en


def test_every_rule_has_a_passing_and_a_failing_case() -> None:
    outcomes: dict[str, set[str]] = {}
    for case in CASES:
        outcomes.setdefault(case.check_id, set()).add(case.status)
    for check_id, statuses in outcomes.items():
        assert "pass" in statuses and statuses & {"warn", "fail"}, check_id


def test_evidence_names_what_was_looked_at() -> None:
    report = run_case(Case("b2", "licence-scope", "fail", _licence(number="粤B2-20190318")))
    scope = next(c for c in report.checks if c.id == "licence-scope")
    assert "粤B2-20190318" in scope.evidence


def test_best_licence_is_judged_when_there_are_several() -> None:
    data = copy.deepcopy(CLEAN)
    data["licenses"].insert(0, {"number": "粤B2-20190318", "services": ["B25"]})
    report = check_provider(parse_profile(data, "two.toml"), None, today=TODAY)
    scope = next(c for c in report.checks if c.id == "licence-scope")
    assert scope.status == "pass" and "B1-20210417" in scope.evidence


def test_overseas_provider_needs_no_chinese_licence_but_residency_applies() -> None:
    data = {
        "provider": {"id": "far", "name": "Far", "country": "US"},
        "datacenters": [{"id": "us-1", "name": "Virginia"}],
    }
    profile = parse_profile(data, "far.toml")
    plain = check_provider(profile, None, today=TODAY)
    assert plain.status == "pass"
    # the service facts are informational checks every provider gets (issue 24)
    assert [c.id for c in plain.checks if c.id not in FACT_CHECKS] == ["licence-valid"]
    with_pi = check_provider(profile, Requirements(contains_personal_info=True), today=TODAY)
    assert with_pi.status == "fail"
    assert with_pi.failures_for("us-1")[0].id == "data-residency"


def test_no_job_means_no_requirement_checks() -> None:
    report = run_case(Case("none", "uscc", "pass"))
    ids = {c.id for c in report.checks} | {c.id for d in report.datacenters for c in d.checks}
    assert not ids & {"mlps", "certification", "invoice", "location", "data-residency"}


def test_results_depend_only_on_the_given_dates() -> None:
    expiring = _licence(valid_until="2027-01-20")
    first = run_case(Case("a", "licence-valid", "warn", expiring))
    assert first == run_case(Case("a", "licence-valid", "warn", expiring))
    months_later = run_case(Case("a", "licence-valid", "fail", expiring, today=date(2027, 2, 1)))
    statuses = [
        next(c for c in r.checks if c.id == "licence-valid").status for r in (first, months_later)
    ]
    assert statuses == ["warn", "fail"]


@pytest.mark.parametrize(
    ("today", "year"),
    [
        (date(2026, 1, 1), 2025),
        (date(2026, 4, 30), 2025),
        (date(2026, 5, 1), 2026),
        (date(2026, 12, 31), 2026),
    ],
)
def test_required_report_year(today: date, year: int) -> None:
    assert required_report_year(today) == year
