"""The whole bill: upload before the first run hour, storage for the rental window, egress."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from comparator.domain.job import DataNeeds, Job, Schedule, Workload, parse_job
from comparator.domain.money import FxTable
from comparator.domain.profile import (
    DataCenter,
    ProviderProfile,
    parse_profile,
    profile_to_dict,
)
from comparator.domain.storage import StorageTerms
from comparator.errors import JobFileError, ProfileError
from comparator.plan import PlanContext, plan_job
from comparator.plan.candidates import PriceBasis
from tests.support.factories import make_offer
from tests.support.plan_validate import ValidationContext, validate_plan

D = Decimal
SHANGHAI = ZoneInfo("Asia/Shanghai")
START = datetime(2026, 12, 1, tzinfo=SHANGHAI)
CONTEXT = PlanContext(today=date(2026, 11, 29), fx=FxTable({"CNY": D(1)}, date(2026, 11, 27)))
TERMS = StorageTerms(
    price_gb_month=D("0.36"), free_gb=D(100), upload_gbps=D(1), egress_price_gb=D("0.5")
)


def _profile(terms: StorageTerms) -> ProviderProfile:
    dc = DataCenter("sg-1", "Singapore 1", "SG", storage=terms)
    return ProviderProfile(id="sg", name="SG", country="SG", datacenters=(dc,))


def _job(hours: int, interruptible: bool = False, data: DataNeeds | None = None) -> Job:
    return Job(
        name="data",
        schedule=Schedule(START, START + timedelta(days=3), interruptible, 1),
        workload=Workload(D(hours * 8), "A100-SXM4-80GB", 8),
        source="data.toml",
        data=data or DataNeeds(D(2000), D(100)),
    )


def _plan(job: Job, terms: StorageTerms, offers: list | None = None):  # type: ignore[no-untyped-def]
    offers = offers or [
        make_offer("h", "hourly", "10", provider="sg", region="sg-1", cards=8, country="SG")
    ]
    result = plan_job(job, offers, {"sg": _profile(terms)}, CONTEXT)
    check = ValidationContext(
        job, {o.offer_id: o for o in offers}, PriceBasis("CNY", CONTEXT.fx), D("0.9")
    )
    assert result.best is not None, result.message
    assert validate_plan(result.best, check) == []
    return result


def test_2_tb_over_1_gbit_uploads_for_4_4_hours_before_the_first_run_hour() -> None:
    best = _plan(_job(20), TERMS).best
    assert best is not None
    upload, storage, egress = best.bill
    assert upload.kind == "upload" and upload.quantity == D("4.44")  # 16,000 Gbit / 1 Gbit/s
    assert upload.start == START and upload.end == best.start == START + timedelta(hours=5)
    # storage: (2,000 + 100 − 100 free) GB × 0.36 / 720 = ¥1.00 an hour, upload start to finish
    assert storage.kind == "storage" and storage.unit_price == D("1.00")
    assert storage.start == START and storage.end == best.finish and storage.quantity == 25
    assert storage.cost == D("25.00")
    assert egress.kind == "egress" and egress.cost == D("50.00")  # 100 GB × ¥0.50
    assert sum(s.cost for s in best.segments) == D("200.00")
    assert best.total_cost == D("275.00") == D("200") + D("25") + D("50")
    json_bill = [line["cost"] for line in best.to_json()["bill"]]
    assert json_bill == ["0.00", "25.00", "50.00"]


def test_storage_is_billed_while_paused_so_a_long_pause_must_pay_for_itself() -> None:
    # cheap hours after a dear night: pausing saves ¥5 of GPU hours but the disk costs ¥1/h
    costs = "00:00-08:00*3"
    offer = make_offer(
        "h", "hourly", "10", provider="sg", region="sg-1", cards=8, country="SG", time_of_use=costs
    )
    best = _plan(_job(20, True), TERMS, [offer]).best
    assert best is not None
    assert len(best.run_blocks) == 2  # paused through the dear night
    storage = next(line for line in best.bill if line.kind == "storage")
    assert storage.start == best.start - timedelta(hours=5)  # the upload just before
    hours = int((best.finish - storage.start).total_seconds() // 3600)
    assert storage.quantity == hours and storage.cost == D(hours)


def test_what_a_data_centre_does_not_state_is_named_not_guessed() -> None:
    best = _plan(_job(20), StorageTerms()).best
    assert best is not None
    upload, storage, egress = best.bill
    assert "assumed" in str(upload.note) and upload.quantity == D("4.44")  # 1 Gbit/s, documented
    assert storage.cost == 0 and "no storage price" in str(storage.note)
    assert egress.cost == 0 and "no egress price" in str(egress.note)
    assert [line.to_json()["stated"] for line in best.bill] == [False, False, False]
    stated = _plan(_job(20), TERMS).best
    assert stated is not None and all(line.stated for line in stated.bill)


def test_an_unstated_storage_price_reaches_the_quotes_attention_list() -> None:
    """Billed at 0, and said so where a manager looks: the quote's attention list (both
    languages), not only a dim note beside the line."""
    import json

    from comparator.report import render as report
    from tests.report.test_report_html import DATA
    from tests.support.htmltree import parse_html

    document = json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))
    for terms, expected in ((StorageTerms(upload_gbps=D(1)), 2), (TERMS, 0)):
        best = _plan(_job(20), terms).best
        assert best is not None
        document["plan"]["best"] = {**document["plan"]["best"], **best.to_json()}
        for lang, text in (
            ("en", "states no storage price: billed at 0"),
            ("zh-CN", "未注明存储价格"),
        ):
            root = parse_html(report.render_html(document, lang=lang))
            items = [e for e in root.iter() if "unstated" in e.attrs.get("class", "").split()]
            assert len(items) == expected
            if expected:
                assert text in " ".join(e.text() for e in items)


def test_data_keys_in_job_and_profile() -> None:
    base = {
        "name": "j",
        "workload": {"card_hours": 8, "gpu": "A100"},
        "schedule": {"earliest_start": START, "deadline": START + timedelta(days=1)},
    }
    job = parse_job({**base, "data": {"dataset_gb": 2000, "checkpoint_gb": "50.5"}}, "j.toml")
    assert job.data == DataNeeds(D(2000), D("50.5"), stated=True)
    with pytest.raises(JobFileError, match=r"data\.dataset_gb"):
        parse_job({**base, "data": {"dataset_gb": -1}}, "j.toml")
    profile = _profile(TERMS)
    assert parse_profile(profile_to_dict(profile), "p.toml") == profile
    document = profile_to_dict(profile)
    document["datacenters"][0]["storage_price_gb_day"] = "0.01"
    with pytest.raises(ProfileError, match="not both"):
        parse_profile(document, "p.toml")


def test_the_quote_shows_each_data_line_and_they_add_up_to_the_total() -> None:
    import json

    from comparator.report import render as report
    from tests.report.test_report_html import DATA
    from tests.support.htmltree import parse_html

    document = json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))
    best = _plan(_job(20), TERMS).best
    assert best is not None
    plan = best.to_json()
    document["plan"]["best"] = {**document["plan"]["best"], **plan}
    root = parse_html(report.render_html(document, lang="en"))
    cells = {e.attrs["data-bill"]: e.text().strip() for e in root.iter() if "data-bill" in e.attrs}
    assert cells == {
        "upload": report.format_money("0.00"),
        "storage": report.format_money("25.00"),
        "egress": report.format_money("50.00"),
    }
    lines = [Decimal(s["cost"]) for s in plan["segments"]] + [
        Decimal(b["cost"]) for b in plan["bill"]
    ]
    assert sum(lines) == Decimal(plan["total_cost"]) == D("275.00")


def test_a_negotiated_discount_applies_before_the_plan_and_shows_in_the_assumptions() -> None:
    import dataclasses

    offers = [make_offer("h", "hourly", "10", provider="sg", region="sg-1", cards=8, country="SG")]
    profile = dataclasses.replace(_profile(StorageTerms()), discount=D("0.85"))
    job = _job(20, data=DataNeeds())
    result = plan_job(job, offers, {"sg": profile}, CONTEXT)
    assert result.best is not None and result.best.total_cost == D("170.00")  # 200 × 0.85
    assert result.best.segments[0].unit_price == D("8.5000")
    assert result.assumptions["discounts"] == {"sg": "0.85"}
    check = ValidationContext(
        job, {"h": offers[0]}, PriceBasis("CNY", CONTEXT.fx, {"sg": D("0.85")}), D("0.9")
    )
    assert validate_plan(result.best, check) == []
    assert parse_profile(profile_to_dict(profile), "p.toml").discount == D("0.85")
    with pytest.raises(ProfileError, match="discount"):
        parse_profile({"provider": {"id": "x", "name": "X", "discount": 1.5}}, "p.toml")


def test_max_price_per_card_hour_excludes_dearer_offers() -> None:
    import dataclasses

    cheap = make_offer("cheap", "hourly", "16", provider="sg", region="sg-1", cards=8, country="SG")
    dear = make_offer("dear", "hourly", "2.5", provider="sg", region="sg-1", cards=1, country="SG")
    job = dataclasses.replace(_job(20, data=DataNeeds()), max_price_per_card_hour=D("2.2"))
    result = plan_job(job, [cheap, dear], {"sg": _profile(StorageTerms())}, CONTEXT)
    assert [e.offer_id for e in result.excluded] == ["dear"]
    assert "max_price_per_card_hour 2.2" in str(result.excluded[0].reasons[0])
    assert result.best is not None and result.best.segments[0].offer_id == "cheap"
    parsed = parse_job(
        {
            "workload": {"card_hours": 8, "gpu": "A100"},
            "schedule": {"earliest_start": START, "deadline": START + timedelta(days=1)},
            "budget": {"max_cost": 100, "max_price_per_card_hour": "2.5"},
        },
        "j.toml",
    )
    assert parsed.max_price_per_card_hour == D("2.5") and parsed.max_cost == D(100)


def test_free_trial_hours_open_the_plan_once_per_provider_when_the_job_allows() -> None:
    import dataclasses

    first = make_offer("a", "hourly", "10", provider="sg", region="sg-1", cards=8, country="SG")
    other = make_offer("b", "hourly", "11", provider="sg", region="sg-1", cards=8, country="SG")
    offers = [
        dataclasses.replace(first, free_trial_hours=5),
        dataclasses.replace(other, free_trial_hours=3),
    ]
    plain = _job(20, data=DataNeeds())
    without = plan_job(plain, offers, {"sg": _profile(StorageTerms())}, CONTEXT)
    assert without.best is not None and without.best.total_cost == D("200.00")
    allowed = dataclasses.replace(plain, use_free_trial=True)
    result = plan_job(allowed, offers, {"sg": _profile(StorageTerms())}, CONTEXT)
    best = result.best
    assert best is not None and best.total_cost == D("150.00")  # 5 free hours, then 15 × 10
    trial, rest = best.segments
    assert trial.free_trial and trial.offer_id == "a" and trial.cost == 0
    assert (trial.end - trial.start) == timedelta(hours=5) and not rest.free_trial
    assert rest.start == trial.end and rest.overhead_hours == 0  # seamless on the same machine
    check = ValidationContext(
        allowed, {o.offer_id: o for o in offers}, PriceBasis("CNY", CONTEXT.fx), D("0.9")
    )
    assert validate_plan(best, check) == []
    job_check = ValidationContext(
        plain, {o.offer_id: o for o in offers}, PriceBasis("CNY", CONTEXT.fx), D("0.9")
    )
    assert any("free trial" in p for p in validate_plan(best, job_check))
