"""Multi-node loss counted once (issue 23, item 5): the estimator's network model prices it,
and ``SUANLI_MULTI_NODE_EFFICIENCY`` replaces that model instead of multiplying it."""

from __future__ import annotations

import dataclasses
import math
import tomllib
from datetime import date
from decimal import Decimal

import pytest

from comparator.config import load_settings
from comparator.domain.job import Job, parse_job
from comparator.domain.money import FxTable
from comparator.errors import ConfigError
from comparator.estimate.estimator import estimate
from comparator.i18n import msg_from_json, render
from comparator.plan import PlanContext, plan_job
from comparator.plan.candidates import GpuWork
from comparator.plan.groups import link_key
from comparator.plan.work import work_table
from comparator.plan.work_hours import WORKLOAD_MULTI_NODE_EFFICIENCY, work_run_hours
from tests.support.plan_fixtures import make_offer

D = Decimal
CONTEXT = PlanContext(today=date(2026, 11, 29), fx=FxTable({"CNY": D(1)}, date(2026, 11, 27)))

JOB_13B_16_A100 = """
name = "13B full fine-tuning on two 8 × A100 machines"
[model]
name = "Llama-2-13b"
[training]
method = "full"
samples = 1000000
avg_tokens = 2048
seq_len = 2048
cards = 16
[schedule]
earliest_start = 2026-12-01T00:00:00+08:00
deadline = 2026-12-08T00:00:00+08:00
interruptible = false
[requirements]
gpus = ["A100-80G"]
"""


def _job() -> Job:
    return parse_job(tomllib.loads(JOB_13B_16_A100), "13b-16.toml")


def _machines() -> list:
    """8-card A100 machines in Singapore (no Chinese licence needed) on 8 × 200G IB."""
    return [
        make_offer("m", "hourly", "88", provider="sg", region="sg-1", cards=8, country="SG"),
    ]


def test_thirteen_b_on_sixteen_a100_plans_the_estimates_hours() -> None:
    job = _job()
    result = plan_job(job, _machines(), {}, CONTEXT)
    assert result.best is not None and result.best.cards == 16
    # `suanli estimate --model Llama-2-13b --method full --tokens 2048M --gpu A100-80G
    # --cards 16` on the offer's links (8 × 200G IB per node, the reference network)
    table = work_table(job, ["A100-SXM4-80GB"])
    request = dataclasses.replace(
        table.estimates["A100-SXM4-80GB"].solution.request, cards=16, network="ib-200g"
    )
    alone = estimate(request)
    assert alone.solution.nodes == 2
    assert result.best.card_hours == D(repr(alone.card_hours))
    assert result.best.work_hours == math.ceil(alone.solution.hours)
    # no second network factor: 0.9 more would have made it ceil(hours / 0.9)
    assert result.best.work_hours < math.ceil(alone.solution.hours / 0.9)
    machines = result.to_json()["best"]["machines"]
    assert machines["nodes"] == 2 and machines["node_cards"] == 8 and machines["network"] == "ib"
    text = render(msg_from_json(machines["text_msg"]), "en")
    assert text.startswith("2 × 8-card machines on one InfiniBand network")
    assert render(msg_from_json(machines["text_msg"]), "zh").startswith("2 台 8 卡机器")


def test_the_setting_replaces_the_network_model() -> None:
    job = _job()
    overridden = plan_job(
        job, _machines(), {}, dataclasses.replace(CONTEXT, multi_node_efficiency=D("0.5"))
    )
    assert overridden.best is not None and overridden.best.cards == 16
    one_node = work_table(job, ["A100-SXM4-80GB"]).work["A100-SXM4-80GB"]
    eight = one_node.on_link(link_key(_machines()[0])).card_hours_on(8)
    # one node's card-hours over the setting (hand: 8-card card-hours / 0.5, over 16 cards)
    assert overridden.best.card_hours == (eight / D("0.5")).quantize(D("0.000001"), "ROUND_CEILING")
    assert overridden.best.work_hours == math.ceil(eight * 2 / 16)


def test_a_workload_job_keeps_a_default_efficiency_across_nodes() -> None:
    work = GpuWork("A100-SXM4-80GB", D(160))
    assert work_run_hours(work, 8, 8, None) == 20
    assert work_run_hours(work, 16, 8, None) == math.ceil(
        160 / (16 * WORKLOAD_MULTI_NODE_EFFICIENCY)
    )
    assert work_run_hours(work, 16, 8, D("0.8")) == math.ceil(160 / (16 * 0.8))
    modelled = dataclasses.replace(work, network_modelled=True)
    assert work_run_hours(modelled, 16, 8, None) == 10  # the model's card-hours, no factor


def test_the_setting_is_unset_by_default_and_checked_when_set() -> None:
    assert load_settings({}).multi_node_efficiency is None
    assert load_settings({"SUANLI_MULTI_NODE_EFFICIENCY": "0.8"}).multi_node_efficiency == 0.8
    with pytest.raises(ConfigError, match="SUANLI_MULTI_NODE_EFFICIENCY"):
        load_settings({"SUANLI_MULTI_NODE_EFFICIENCY": "1.5"})
