"""Geometry of the report's inline SVG charts, computed from a frozen quote document.

Only numbers and labels are made here; the SVG markup lives in ``templates/_charts.html.j2``
so that every label goes through Jinja's autoescaping. Coordinates are in SVG user units;
the templates print them with one decimal, so the same document always gives the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

MEMORY_PARTS: tuple[str, ...] = ("weights", "gradients", "optimizer", "activations", "overhead")
CONTRACT_BILLINGS = frozenset({"daily", "weekly", "monthly", "yearly"})
MAX_COST_BARS = 25
SVG_FONT = "Noto Sans CJK SC, Noto Sans SC, sans-serif"

# Fill (or stroke) colour of each chart element, by the CSS class the geometry gives it.
# Presentation attributes rather than CSS: WeasyPrint's and browsers' SVG renderers agree on them.
COLORS: dict[str, str] = {
    "mem-weights": "#2a5db0",
    "mem-gradients": "#5d8fd6",
    "mem-optimizer": "#c99a06",
    "mem-activations": "#1f8a70",
    "mem-overhead": "#9aa3b2",
    "contract": "#f4c542",
    "run-hourly": "#2a5db0",
    "run-spot": "#5d8fd6",
    "run-daily": "#c99a06",
    "run-weekly": "#c99a06",
    "run-monthly": "#c99a06",
    "run-yearly": "#c99a06",
    "price": "#2a5db0",
    "bar": "#9fb4d8",
    "bar-best": "#1f6f43",
    "axis": "#8a93a3",
    "grid": "#e6e9ef",
    "deadline": "#b4232a",
    "limit": "#a86400",
    "capacity": "#1d2433",
    "ink": "#1d2433",
    "muted": "#5b6475",
}


@dataclass(frozen=True)
class Box:
    """A rectangle with the CSS class that colours it and a short label."""

    x: float
    y: float
    width: float
    height: float
    css_class: str
    label: str = ""


@dataclass(frozen=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True)
class MemoryChart:
    width: float
    height: float
    bars: tuple[Box, ...]
    usable_x: float
    capacity_x: float
    ticks: tuple[Tick, ...]


@dataclass(frozen=True)
class TimelineChart:
    width: float
    height: float
    plot_left: float
    plot_right: float
    plot_top: float
    plot_bottom: float
    price_path: str
    contract_blocks: tuple[Box, ...]
    run_bars: tuple[Box, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    deadline_x: float
    lane_y: float
    lane_height: float


@dataclass(frozen=True)
class CostBar:
    y: float
    width: float
    label: str
    value: Decimal
    best: bool
    capped: bool = False  # longer than the axis: drawn to its end and marked as cut


@dataclass(frozen=True)
class CostChart:
    width: float
    height: float
    label_width: float
    bar_height: float
    bars: tuple[CostBar, ...]
    shown: int
    total: int


def nice_step(span: float, max_ticks: int = 5) -> float:
    """A 1/2/5×10^k step that cuts ``span`` into at most ``max_ticks`` intervals."""
    if span <= 0:
        return 1.0
    raw = span / max_ticks
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= raw:
            return float(factor * magnitude)
    return float(10 * magnitude)


def _number_label(value: float) -> str:
    return f"{value:g}" if value < 1e6 else f"{value:.3g}"


def memory_chart(
    memory_gib: Mapping[str, Any], gpu_memory_gib: float, headroom: float, width: float = 640.0
) -> MemoryChart:
    """One stacked bar of a card's memory use, against its capacity and usable limit."""
    values = [(part, float(memory_gib.get(part, 0.0) or 0.0)) for part in MEMORY_PARTS]
    total = sum(value for _, value in values)
    scale_max = max(gpu_memory_gib, total, 1e-9)
    unit = width / scale_max
    bars, x = [], 0.0
    for part, value in values:
        bars.append(Box(x, 8.0, value * unit, 28.0, f"mem-{part}", part))
        x += value * unit
    step = nice_step(scale_max, 8)
    ticks = tuple(
        Tick(i * step * unit, _number_label(i * step)) for i in range(int(scale_max // step) + 1)
    )
    return MemoryChart(
        width,
        60.0,
        tuple(bars),
        (1 - headroom) * gpu_memory_gib * unit,
        gpu_memory_gib * unit,
        ticks,
    )


def _run_spans(segment: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(start, end) of each run block of a line item (quotes before run blocks: one)."""
    blocks = segment.get("run_blocks")
    if blocks:
        return [(str(b["start"]), str(b["end"])) for b in blocks]
    return [(str(segment["start"]), str(segment.get("run_end") or segment["end"]))]


def _hours_between(start: datetime, end: datetime) -> float:
    return (end - start).total_seconds() / 3600


def _window(
    job: Mapping[str, Any], segments: Sequence[Mapping[str, Any]]
) -> tuple[datetime, datetime]:
    starts = [datetime.fromisoformat(job["earliest_start"])]
    ends = [datetime.fromisoformat(job["deadline"])]
    starts += [datetime.fromisoformat(s["start"]) for s in segments]
    ends += [datetime.fromisoformat(s["end"]) for s in segments]
    return min(starts), max(ends)


def _time_ticks(start: datetime, hours: float, to_x: Any) -> tuple[Tick, ...]:
    """Ticks at local midnights, every 1, 2, 7, 14 or 30 days so that at most ~10 show."""
    days = hours / 24
    every = next((d for d in (1, 2, 7, 14, 30, 91) if days / d <= 10), 365)
    first = start.replace(hour=0, minute=0, second=0, microsecond=0)
    if first < start:
        first += timedelta(days=1)
    ticks, moment = [], first
    while _hours_between(start, moment) <= hours:
        ticks.append(Tick(to_x(_hours_between(start, moment)), moment.strftime("%m-%d")))
        moment += timedelta(days=every)
    return tuple(ticks)


def _price_path(
    curve: Sequence[Mapping[str, Any]], start: datetime, hours: float, to_x: Any, to_y: Any
) -> str:
    """A step path: each point's price holds until the next point (the last until the end)."""
    points = sorted(
        (
            (_hours_between(start, datetime.fromisoformat(p["hour_start"])), float(p["price"]))
            for p in curve
        ),
        key=lambda point: point[0],
    )
    commands: list[str] = []
    for index, (offset, price) in enumerate(points):
        following = points[index + 1][0] if index + 1 < len(points) else hours
        x0, x1, y = to_x(max(offset, 0.0)), to_x(min(following, hours)), to_y(price)
        commands.append(f"{'M' if not commands else 'L'}{x0:.1f} {y:.1f}")
        commands.append(f"L{x1:.1f} {y:.1f}")
    return " ".join(commands)


def timeline_chart(
    job: Mapping[str, Any],
    segments: Sequence[Mapping[str, Any]],
    curve: Sequence[Mapping[str, Any]],
    width: float = 720.0,
) -> TimelineChart:
    """The plan's segments on a time axis over the hourly price curve; contracts shaded."""
    start, end = _window(job, segments)
    hours = max(_hours_between(start, end), 1.0)
    left, right, top, bottom = 64.0, width - 24.0, 12.0, 132.0
    lane_y, lane_height = bottom + 14.0, 16.0
    max_price = max((float(p["price"]) for p in curve), default=0.0)
    y_step = nice_step(max_price * 1.1, 4) if max_price > 0 else 1.0
    y_top = y_step * max(1, math.ceil(max_price * 1.1 / y_step))

    def to_x(offset_hours: float) -> float:
        return left + (right - left) * offset_hours / hours

    def to_y(price: float) -> float:
        return bottom - (bottom - top) * price / y_top

    blocks, runs = [], []
    for segment in segments:
        x0 = to_x(_hours_between(start, datetime.fromisoformat(segment["start"])))
        x1 = to_x(_hours_between(start, datetime.fromisoformat(segment["end"])))
        billing = str(segment["billing"])
        if billing in CONTRACT_BILLINGS:
            blocks.append(Box(x0, top, max(x1 - x0, 0.5), bottom - top, "contract", billing))
        for run_start, run_end in _run_spans(segment):  # a contract may pause or outlast the run
            r0 = to_x(_hours_between(start, datetime.fromisoformat(run_start)))
            r1 = to_x(_hours_between(start, datetime.fromisoformat(run_end)))
            runs.append(Box(r0, lane_y, max(r1 - r0, 0.5), lane_height, f"run-{billing}", billing))
    y_ticks = tuple(
        Tick(to_y(i * y_step), _number_label(i * y_step)) for i in range(round(y_top / y_step) + 1)
    )
    deadline_x = to_x(_hours_between(start, datetime.fromisoformat(job["deadline"])))
    return TimelineChart(
        width,
        lane_y + lane_height + 24.0,
        left,
        right,
        top,
        bottom,
        _price_path(curve, start, hours, to_x, to_y),
        tuple(blocks),
        tuple(runs),
        _time_ticks(start, hours, to_x),
        y_ticks,
        deadline_x,
        lane_y,
        lane_height,
    )


def plan_label(plan: Mapping[str, Any], provider_names: Mapping[str, str]) -> str:
    """``Provider · region · GPU×cards`` for a bar or a table row."""
    name = provider_names.get(plan["provider"], plan["provider"])
    return f"{name} · {plan['region']} · {plan['gpu']}×{plan['cards']}"


OUTLIER_RATIO = Decimal(3)


def cost_axis(costs: Sequence[Decimal]) -> Decimal:
    """The cost axis' end: the largest cost, unless it is an outlier (over 3× the median),
    in which case the axis ends at the largest ordinary cost and longer bars are marked cut."""
    if not costs:
        return Decimal(0)
    ordered = sorted(costs)
    median = ordered[len(ordered) // 2]
    ordinary = [c for c in ordered if c <= median * OUTLIER_RATIO]
    return max(ordinary) * Decimal("1.1") if len(ordinary) < len(ordered) else ordered[-1]


def cost_chart(
    best: Mapping[str, Any] | None,
    alternatives: Sequence[Mapping[str, Any]],
    provider_names: Mapping[str, str],
    width: float = 720.0,
) -> CostChart:
    """Horizontal bars of the total cost of the best plan and the cheapest alternatives."""
    plans = ([best] if best else []) + list(alternatives)
    shown = plans[:MAX_COST_BARS]
    label_width, bar_height, gap = 300.0, 14.0, 6.0
    costs = [Decimal(p["total_cost"]) for p in shown]
    axis = cost_axis(costs)
    span = width - label_width - 90.0
    bars = tuple(
        CostBar(
            4.0 + index * (bar_height + gap),
            float(min(cost, axis) / axis) * span if axis > 0 else 0.0,
            plan_label(p, provider_names),
            cost,
            best is not None and index == 0,
            capped=cost > axis,
        )
        for index, (p, cost) in enumerate(zip(shown, costs, strict=True))
    )
    height = 8.0 + len(bars) * (bar_height + gap)
    return CostChart(width, height, label_width, bar_height, bars, len(shown), len(plans))
