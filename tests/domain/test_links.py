"""Offers' interconnect and network strings read as bandwidth, and used for the hours (issue 12)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from comparator.domain.job import Job, Schedule
from comparator.domain.links import (
    REFERENCE_NETWORK_GBPS,
    parse_interconnect,
    parse_network,
)
from comparator.estimate.estimator import EstimateRequest, estimate
from comparator.estimate.throughput import is_rdma
from comparator.plan import PlanContext, plan_job
from comparator.plan.groups import group_offers, link_key
from tests.plan.test_plan_planning import CONTEXT
from tests.support.factories import make_offer

SHANGHAI = ZoneInfo("Asia/Shanghai")


@pytest.mark.parametrize(
    ("text", "kind", "gbps", "assumed"),
    [
        ("IB 200G", "ib", 200, False),
        ("4×200G IB", "ib", 800, False),
        ("8x400G NDR", "ib", 3200, False),
        ("ib-200g", "ib", 200, False),
        ("IB-400G", "ib", 400, False),
        ("HDR InfiniBand", "ib", 200, False),
        ("InfiniBand", "ib", 200, True),
        ("RoCE 100Gbps", "roce", 100, False),
        ("roce-200g", "roce", 200, False),
        ("RoCE v2 2x100G", "roce", 200, False),
        ("3.2T RoCE", "roce", 3200, False),
        ("25G 以太网", "ethernet", 25, False),
        ("eth-25g", "ethernet", 25, False),
        ("100GbE", "ethernet", 100, False),
        ("万兆以太网", "ethernet", 10, False),
        ("高速网络", "unknown", 25, True),
    ],
)
def test_network_strings_read_as_kind_and_node_bandwidth(
    text: str, kind: str, gbps: float, assumed: bool
) -> None:
    link = parse_network(text)
    assert link is not None
    assert (link.kind, link.gbps, link.assumed) == (kind, gbps, assumed)
    assert link.rdma == (kind in ("ib", "roce")) == is_rdma(text)


def test_no_network_is_none_and_not_rdma() -> None:
    assert parse_network(None) is None and parse_network("  ") is None
    assert not is_rdma(None) and not is_rdma("")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("NVLink", "nvlink"),
        ("nvlink", "nvlink"),
        ("NVSwitch", "nvlink"),
        ("PCIe 4.0", "pcie"),
        ("HCCS", "hccs"),
        ("PCI-E", "pcie"),
        ("专有互联", "unknown"),
    ],
)
def test_interconnect_strings_read_as_kind(text: str, kind: str) -> None:
    link = parse_interconnect(text)
    assert link is not None and link.kind == kind and link.assumed == (kind == "unknown")


def _comm_heavy(**change: object) -> EstimateRequest:
    """7B full fine-tuning on two nodes, short micro-batches: gradients dominate the step."""
    request = EstimateRequest(
        model="Llama-2-7b", method="full", cards=16, micro_batch=1, seq_len=512, tokens=10**9
    )
    return dataclasses.replace(request, **change)


def test_the_bare_estimate_states_the_assumed_links() -> None:
    doc = estimate(_comm_heavy()).to_json()["links"]
    assert doc["network"] == {
        "text": None,
        "kind": "ib",
        "gbps": REFERENCE_NETWORK_GBPS,
        "rdma": True,
        "assumed": True,
    }
    assert doc["interconnect"]["assumed"] and doc["interconnect"]["nvlink"]
    assert doc["network_time_factor"] == 1.0


def test_a_slower_network_costs_time_a_faster_one_is_not_credited() -> None:
    reference = estimate(_comm_heavy())
    one_port = estimate(_comm_heavy(network="IB 200G"))
    eight_ports = estimate(_comm_heavy(network="8×200G IB"))
    faster = estimate(_comm_heavy(network="8×400G NDR"))
    assert one_port.hours > 1.5 * reference.hours
    assert eight_ports.hours == pytest.approx(reference.hours) == faster.hours
    factor = one_port.to_json()["links"]["network_time_factor"]
    assert one_port.hours == pytest.approx(reference.hours * factor, rel=1e-3)
    single_node = _comm_heavy(cards=8, network="25G 以太网")
    assert estimate(single_node).to_json()["links"]["network_time_factor"] == 1.0


def test_a_long_micro_batch_hides_the_gradient_traffic() -> None:
    """70B full on 4 nodes of 1 × 200G: a longer micro-batch is chosen because its step takes
    longer than the gradient traffic, which a one-sequence step leaves exposed."""
    request = EstimateRequest(
        model="Llama-2-70b", method="full", cards=32, tokens=10**9, network="IB 200G"
    )
    result = estimate(request)
    batch = result.solution.setup.micro_batch
    assert batch > 1 and result.to_json()["links"]["network_time_factor"] == 1.0
    shorter = estimate(dataclasses.replace(request, micro_batch=batch // 2))
    assert shorter.to_json()["links"]["network_time_factor"] > 1.0
    assert shorter.hours > result.hours


def test_an_offer_that_says_pcie_gets_the_pcie_throughput() -> None:
    request = EstimateRequest(model="Llama-2-7b", method="lora", cards=4, tokens=10**9)
    nvlink = estimate(dataclasses.replace(request, interconnect="NVLink"))
    pcie = estimate(dataclasses.replace(request, interconnect="PCIe"))
    assert nvlink.hours == pytest.approx(estimate(request).hours)
    assert pcie.hours > 2 * nvlink.hours
    assert any(note.code == "pcie_only" for note in pcie.notes)
    assert pcie.to_json()["links"]["interconnect"]["gbs"] == 25.0


def test_unreadable_links_are_assumed_with_a_note_naming_the_string() -> None:
    result = estimate(_comm_heavy(network="高速网络", interconnect="专有互联"))
    notes = {note.code: note for note in result.notes}
    assert "高速网络" in notes["unknown_network"].message
    assert "专有互联" in notes["unknown_interconnect"].message
    assert result.to_json()["links"]["network"]["assumed"] is True


def test_groups_split_by_rdma_speed_and_interconnect_not_by_ethernet() -> None:
    offers = [
        make_offer("a", network="ib-200g"),
        make_offer("b", network="IB 200G"),
        make_offer("c", network="4×200G IB"),
        make_offer("d", network="eth-25g"),
        make_offer("e", network=None),
        dataclasses.replace(make_offer("f", network=None), interconnect="PCIe"),
    ]
    groups = {tuple(o.offer_id for o in group) for group in group_offers(offers).values()}
    assert groups == {("a", "b"), ("c",), ("d", "e"), ("f",)}
    assert link_key(offers[2]) == "nvlink|ib 800G" and link_key(offers[3]) == "nvlink|"


def _model_job() -> Job:
    schedule = Schedule(
        datetime(2026, 12, 1, tzinfo=SHANGHAI),
        datetime(2026, 12, 15, tzinfo=SHANGHAI),
        True,
        0,
    )
    training = {"method": "full", "cards": 16, "micro_batch": 1, "seq_len": 512}
    return Job(
        name="7b",
        schedule=schedule,
        model={"name": "Llama-2-7b"},
        training={**training, "tokens": "1B"},
        source="7b.toml",
    )


def test_the_planner_times_each_offer_on_its_own_network() -> None:
    slow = make_offer("slow", provider="slow", network="IB 200G", stock=16, country="SG")
    fast = make_offer(
        "fast", provider="fast", price="11", network="8×200G IB", stock=16, country="SG"
    )
    result = plan_job(_model_job(), [slow, fast], {}, CONTEXT)
    plans = {p.provider: p for p in [result.best, *result.alternatives] if p}
    assert set(plans) == {"slow", "fast"}
    expected = {
        name: estimate(
            EstimateRequest(
                model="Llama-2-7b",
                method="full",
                cards=16,
                micro_batch=1,
                seq_len=512,
                tokens=10**9,
                network=network,
            )
        ).card_hours
        for name, network in (("slow", "ib 200G"), ("fast", "ib 1600G"))
    }
    for name, plan in plans.items():
        assert float(plan.card_hours) == pytest.approx(expected[name], rel=1e-9)
    assert plans["slow"].work_hours > 1.5 * plans["fast"].work_hours
    assert result.best is not None and result.best.provider == "fast"


def test_the_quote_estimate_uses_the_best_plans_links() -> None:
    slow = make_offer("slow", provider="slow", network="IB 200G", stock=16, country="SG")
    result = plan_job(_model_job(), [slow], {}, PlanContext(today=CONTEXT.today, fx=CONTEXT.fx))
    assert result.best is not None and result.estimate is not None
    links = result.estimate.to_json()["links"]
    assert links["network"]["gbps"] == 200 and not links["network"]["assumed"]
    assert result.estimate.card_hours == pytest.approx(float(result.best.card_hours))
