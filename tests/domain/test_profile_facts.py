"""Issue 24, the pure side: profile facts, claimed credentials and network fields parse (or
fail naming file and field), job service requirements, and the distance estimate."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from comparator.domain.geo import approximate_rtt_ms, great_circle_km, place_of
from comparator.domain.job import parse_job
from comparator.domain.profile import parse_profile, profile_to_dict
from comparator.errors import JobFileError, ProfileError

BASE: dict[str, Any] = {
    "provider": {"id": "p", "name": "P"},
    "datacenters": [{"id": "gz", "name": "广州", "province": "广东", "city": "广州"}],
}
JOB: dict[str, Any] = {
    "workload": {"card_hours": 10, "gpu": "A100-80G"},
    "schedule": {
        "earliest_start": "2026-12-01T00:00:00+08:00",
        "deadline": "2026-12-08T00:00:00+08:00",
    },
}


def profile(provider: dict[str, Any] | None = None, **tables: Any) -> dict[str, Any]:
    data = {**BASE, **tables}
    data["provider"] = {**BASE["provider"], **(provider or {})}
    return data


def test_every_fact_round_trips_through_the_catalogs_json() -> None:
    data = profile(
        {
            "cnnic_member": True,
            "elastic_scaling": False,
            "hourly_refund": True,
            "free_maintenance": True,
            "prepayment": "按月预付",
            "deposit_cny": 5000,
            "sla_percent": 99.95,
        },
        licenses=[{"claimed": True, "name": "一类全牌照"}],
        filings=[{"kind": "mlps", "claimed": True, "level": 3}],
        certifications=[{"name": "ISO27001", "claimed": True}],
        datacenters=[
            {
                **BASE["datacenters"][0],
                "carriers": ["telecom", "BGP"],
                "latency_ms": {"深圳市": 4.5},
            }
        ],
    )
    parsed = parse_profile(data, "p.toml")
    assert parsed.terms.sla_percent == Decimal("99.95") and parsed.terms.elastic_scaling is False
    assert parsed.licenses[0].claimed and parsed.licenses[0].number == ""
    assert parsed.filings[0].claimed and parsed.certifications[0].claimed
    network = parsed.datacenters[0].network
    assert network.carriers == ("电信", "BGP") and network.measured_ms("深圳") == Decimal("4.5")
    assert parse_profile(profile_to_dict(parsed), "catalog") == parsed


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"provider": {"sla_percent": 120}}, "provider.sla_percent"),
        ({"provider": {"elastic_scaling": "yes"}}, "provider.elastic_scaling"),
        ({"licenses": [{"name": "一类全牌照"}]}, "[[licenses]] #1 number"),
        ({"dc": {"carriers": ["卫星"]}}, "[[datacenters]] #1 carriers"),
        ({"dc": {"latency_ms": {"深圳": -1}}}, "[[datacenters]] #1 latency_ms.深圳"),
        ({"dc": {"latency_ms": 5}}, "[[datacenters]] #1 latency_ms"),
    ],
)
def test_a_bad_fact_names_the_file_and_field(change: dict[str, Any], field: str) -> None:
    data = profile(change.get("provider"))
    if "licenses" in change:
        data["licenses"] = change["licenses"]
    if "dc" in change:
        data["datacenters"] = [{**BASE["datacenters"][0], **change["dc"]}]
    with pytest.raises(ProfileError) as error:
        parse_profile(data, "p.toml")
    text = str(error.value.msg.render(None))
    assert text.startswith("p.toml: ") and field in text


def test_service_requirements_parse_and_name_their_field() -> None:
    req = {
        "own_datacenter": True,
        "support": "7×24",
        "max_support_response_minutes": 30,
        "elastic_scaling": True,
        "max_latency_ms": 20,
        "latency_from": "深圳市",
    }
    service = parse_job({**JOB, "requirements": req}, "job.toml").requirements.service
    assert service.support == "7x24" and service.latency_from == "深圳"
    assert service.max_latency_ms == Decimal(20) and service.own_datacenter
    for bad, field in (
        ({"support": "5x8"}, "requirements.support"),
        ({"max_latency_ms": 20}, "requirements.latency_from"),
        ({"max_latency_ms": 20, "latency_from": "火星"}, "requirements.latency_from"),
        ({"max_support_response_minutes": 0}, "requirements.max_support_response_minutes"),
    ):
        with pytest.raises(JobFileError) as error:
            parse_job({**JOB, "requirements": bad}, "job.toml")
        assert field in str(error.value.msg.render(None))


def test_the_distance_estimate_from_shenzhen() -> None:
    shenzhen = place_of("广东", "深圳")
    assert shenzhen is not None
    guangzhou, hohhot = place_of("广东", "广州"), place_of("内蒙古", None)
    assert guangzhou is not None and hohhot is not None and hohhot.by_capital
    assert 100 < great_circle_km(shenzhen, guangzhou) < 110  # ≈ 105 km
    assert approximate_rtt_ms(great_circle_km(shenzhen, guangzhou)) == Decimal("3.6")
    # 呼和浩特 ≈ 2,036 km: 2 × 2036 × 1.5 × 5 µs + 2 ms
    assert approximate_rtt_ms(great_circle_km(shenzhen, hohhot)) == Decimal("32.5")
    assert place_of(None, "Oregon") is None
