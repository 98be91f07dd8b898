"""Chart geometry: positions follow the data (pure functions, no rendering)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from comparator.report import charts, cost_bars

JOB = {"earliest_start": "2026-12-01T00:00:00+08:00", "deadline": "2026-12-03T00:00:00+08:00"}


def segment(start: str, end: str, billing: str, run_end: str | None = None) -> dict[str, Any]:
    found = {
        "offer_id": "x",
        "billing": billing,
        "units": 1,
        "cost": "1.00",
        "start": f"2026-12-{start}:00:00+08:00",
        "end": f"2026-12-{end}:00:00+08:00",
    }
    if run_end:
        found["run_end"] = f"2026-12-{run_end}:00:00+08:00"
    return found


@pytest.mark.parametrize(("span", "step"), [(10, 2), (80, 20), (0.9, 0.2), (7.5, 2), (1e6, 2e5)])
def test_nice_steps(span: float, step: float) -> None:
    assert charts.nice_step(span) == pytest.approx(step)


def test_memory_bars_are_proportional_and_stack() -> None:
    chart = charts.memory_chart(
        {"weights": 20, "gradients": 10, "optimizer": 30, "activations": 10, "overhead": 10},
        80.0,
        0.10,
        width=800,
    )
    assert [round(b.width) for b in chart.bars] == [200, 100, 300, 100, 100]
    assert [round(b.x) for b in chart.bars] == [0, 200, 300, 600, 700]
    assert chart.capacity_x == pytest.approx(800)
    assert chart.usable_x == pytest.approx(720)


def test_memory_over_capacity_scales_to_the_total() -> None:
    chart = charts.memory_chart({"weights": 100, "overhead": 20}, 80.0, 0.10, width=600)
    assert sum(b.width for b in chart.bars) == pytest.approx(600)
    assert chart.capacity_x == pytest.approx(400)


def test_timeline_places_contracts_and_runs_on_the_hour_axis() -> None:
    segments = [
        segment("01T00", "01T08", "hourly"),
        segment("02T00", "03T00", "daily", run_end="02T06"),
    ]
    chart = charts.timeline_chart(JOB, segments, [], width=720)
    per_hour = (chart.plot_right - chart.plot_left) / 48
    assert len(chart.contract_blocks) == 1
    block = chart.contract_blocks[0]
    assert block.x == pytest.approx(chart.plot_left + 24 * per_hour)
    assert block.width == pytest.approx(24 * per_hour)
    hourly, daily = chart.run_bars
    assert hourly.width == pytest.approx(8 * per_hour) and hourly.css_class == "run-hourly"
    assert daily.width == pytest.approx(6 * per_hour), "the run ends before the contract"
    assert chart.deadline_x == pytest.approx(chart.plot_right)
    assert [t.label for t in chart.x_ticks] == ["12-01", "12-02", "12-03"]


def test_a_contract_that_pauses_draws_each_run_block() -> None:
    """A daily contract paused between 06:00 and 12:00 (run windows): two run bars inside the
    one contract block, where the job runs."""
    daily = segment("02T00", "03T00", "daily", run_end="02T18")
    daily["run_blocks"] = [
        {"start": "2026-12-02T00:00:00+08:00", "end": "2026-12-02T06:00:00+08:00"},
        {"start": "2026-12-02T12:00:00+08:00", "end": "2026-12-02T18:00:00+08:00"},
    ]
    chart = charts.timeline_chart(JOB, [daily], [], width=720)
    per_hour = (chart.plot_right - chart.plot_left) / 48
    assert len(chart.contract_blocks) == 1
    first, second = chart.run_bars
    assert first.x == pytest.approx(chart.plot_left + 24 * per_hour)
    assert second.x == pytest.approx(chart.plot_left + 36 * per_hour)
    assert first.width == pytest.approx(6 * per_hour) == second.width


def test_a_contract_past_the_deadline_widens_the_window() -> None:
    chart = charts.timeline_chart(JOB, [segment("02T00", "09T00", "weekly")], [])
    assert chart.deadline_x < chart.plot_right
    assert chart.contract_blocks[0].x + chart.contract_blocks[0].width == pytest.approx(
        chart.plot_right
    )


def test_price_curve_is_a_step_path_over_the_window() -> None:
    curve = [
        {"hour_start": "2026-12-01T00:00:00+08:00", "price": "4.00"},
        {"hour_start": "2026-12-01T08:00:00+08:00", "price": "8.00"},
    ]
    chart = charts.timeline_chart(JOB, [], curve)
    numbers = [float(n) for n in re.findall(r"[\d.]+", chart.price_path)]
    xs, ys = numbers[0::2], numbers[1::2]
    assert xs[0] == pytest.approx(chart.plot_left) and xs[-1] == pytest.approx(
        chart.plot_right, abs=0.1
    )
    assert ys[0] > ys[-1], "the cheaper night hours are drawn lower"
    assert chart.price_path.startswith("M") and chart.price_path.count("M") == 1


def test_cost_bars_start_with_the_best_and_stop_at_the_cap() -> None:
    plan = {"provider": "p", "region": "r", "gpu": "A100-SXM4-80GB", "cards": 8}
    best = dict(plan, total_cost="100.00")
    alternatives = [dict(plan, total_cost=f"{200 + i}.00") for i in range(40)]
    chart = cost_bars.cost_chart(best, alternatives, {"p": "某云"})
    assert chart.shown == cost_bars.MAX_COST_BARS and chart.total == 41
    assert chart.bars[0].best and not any(b.best for b in chart.bars[1:])
    widest = max(b.width for b in chart.bars)
    assert chart.bars[0].width == pytest.approx(widest * 100 / 223)
    assert chart.bars[0].label == "某云 · r · A100-SXM4-80GB×8"


def test_an_outlier_does_not_shrink_every_other_bar() -> None:
    from decimal import Decimal

    from comparator.report.cost_bars import cost_chart

    plans = [
        {"provider": "a", "region": "r", "gpu": "G", "cards": 1, "total_cost": str(cost)}
        for cost in ("100.00", "120.00", "130.00", "150.00", "99999.00")
    ]
    chart = cost_chart(plans[0], plans[1:], {})
    bars = {bar.value: bar for bar in chart.bars}
    assert bars[Decimal("99999.00")].capped
    assert not any(bar.capped for value, bar in bars.items() if value < 1000)
    longest = bars[Decimal("99999.00")].width
    assert bars[Decimal("100.00")].width > 0.5 * longest  # readable, not a sliver
