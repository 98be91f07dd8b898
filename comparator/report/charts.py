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
from typing import Any, Generic, TypeVar

from comparator.report.chart_text import text_width

MEMORY_PARTS: tuple[str, ...] = ("weights", "gradients", "optimizer", "activations", "overhead")
CONTRACT_BILLINGS = frozenset({"daily", "weekly", "monthly", "yearly"})
SVG_FONT = "Noto Sans CJK SC, Noto Sans SC, sans-serif"
# Each chart is drawn twice and CSS shows one: the wide drawing on screens wider than 640 px and
# in print, the narrow one on phones. Both scale to the text column, so text is sized for the
# narrowest column each is shown in: 12 units × 611/720 ≥ 10 px on a 641 px screen (the column
# is the screen less 2 × 4 mm of padding), 11 units × 367/360 ≥ 10 px on a 390 px phone
# (less 2 × 3 mm): see templates/print.css.
WIDE_WIDTH, WIDE_FONT = 720.0, 12.0
NARROW_WIDTH, NARROW_FONT = 360.0, 11.0

Chart = TypeVar("Chart")

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
class Sized(Generic[Chart]):
    """The wide (screen, print) and narrow (phone) drawing of one chart."""

    wide: Chart
    narrow: Chart

    def items(self) -> tuple[tuple[str, Chart], tuple[str, Chart]]:
        return (("wide", self.wide), ("narrow", self.narrow))


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
    font_size: float = WIDE_FONT
    tick_y: float = 58.0


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
    font_size: float = WIDE_FONT
    lane_label_y: float = 0.0


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
    memory_gib: Mapping[str, Any],
    gpu_memory_gib: float,
    headroom: float,
    width: float = 640.0,
    font_size: float = WIDE_FONT,
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
    widest = text_width(_number_label(scale_max) + "0", font_size)
    step = nice_step(scale_max, max(2, min(8, int(width / (widest + 12)))))
    ticks = tuple(
        Tick(i * step * unit, _number_label(i * step)) for i in range(int(scale_max // step) + 1)
    )
    tick_y = 46.0 + font_size
    return MemoryChart(
        width,
        tick_y + 5.0,
        tuple(bars),
        (1 - headroom) * gpu_memory_gib * unit,
        gpu_memory_gib * unit,
        ticks,
        font_size,
        tick_y,
    )


def memory_charts(
    memory_gib: Mapping[str, Any], gpu_memory_gib: float, headroom: float
) -> Sized[MemoryChart]:
    """The memory bar drawn wide and narrow (40 units of each drawing are margin)."""
    return Sized(
        memory_chart(memory_gib, gpu_memory_gib, headroom, WIDE_WIDTH - 80, WIDE_FONT),
        memory_chart(memory_gib, gpu_memory_gib, headroom, NARROW_WIDTH - 40, NARROW_FONT),
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


def _time_ticks(start: datetime, hours: float, to_x: Any, max_ticks: int = 10) -> tuple[Tick, ...]:
    """Ticks at local midnights, every 1, 2, 7, 14 or 30 days so that at most ``max_ticks``
    (~10 on a wide chart) show."""
    days = hours / 24
    every = next((d for d in (1, 2, 7, 14, 30, 91) if days / d <= max_ticks), 365)
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


def _price_scale(curve: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    """The price axis' step and top (a whole step above 110 % of the highest price)."""
    max_price = max((float(p["price"]) for p in curve), default=0.0)
    y_step = nice_step(max_price * 1.1, 4) if max_price > 0 else 1.0
    return y_step, y_step * max(1, math.ceil(max_price * 1.1 / y_step))


def _timeline_boxes(
    segments: Sequence[Mapping[str, Any]], start: datetime, to_x: Any, plot: tuple[float, ...]
) -> tuple[list[Box], list[Box]]:
    """Contract blocks over the price plot and run bars in the lane below it."""
    top, bottom, lane_y, lane_height = plot
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
    return blocks, runs


def timeline_chart(
    job: Mapping[str, Any],
    segments: Sequence[Mapping[str, Any]],
    curve: Sequence[Mapping[str, Any]],
    width: float = WIDE_WIDTH,
    font_size: float = WIDE_FONT,
    lane_label: str = "",
) -> TimelineChart:
    """The plan's segments on a time axis over the hourly price curve; contracts shaded.
    The margins fit the axis labels and ``lane_label`` (drawn left of the run lane)."""
    start, end = _window(job, segments)
    hours = max(_hours_between(start, end), 1.0)
    y_step, y_top = _price_scale(curve)
    y_labels = [_number_label(i * y_step) for i in range(round(y_top / y_step) + 1)]
    left = max(40.0, *(text_width(text, font_size) + 10 for text in [*y_labels, lane_label]))
    day_width = text_width("12-01", font_size)
    right, top, bottom = width - max(12.0, day_width / 2 + 4), 12.0, 132.0
    lane_y, lane_height = bottom + 14.0, 16.0

    def to_x(offset_hours: float) -> float:
        return left + (right - left) * offset_hours / hours

    def to_y(price: float) -> float:
        return bottom - (bottom - top) * price / y_top

    blocks, runs = _timeline_boxes(segments, start, to_x, (top, bottom, lane_y, lane_height))
    deadline_x = to_x(_hours_between(start, datetime.fromisoformat(job["deadline"])))
    max_ticks = max(2, int((right - left) / (day_width + 14)))
    return TimelineChart(
        width,
        lane_y + lane_height + 9.0 + font_size,
        left,
        right,
        top,
        bottom,
        _price_path(curve, start, hours, to_x, to_y),
        tuple(blocks),
        tuple(runs),
        _time_ticks(start, hours, to_x, min(10, max_ticks)),
        tuple(Tick(to_y(i * y_step), text) for i, text in enumerate(y_labels)),
        deadline_x,
        lane_y,
        lane_height,
        font_size,
        lane_y + lane_height / 2 + font_size * 0.35,
    )


def timeline_charts(
    job: Mapping[str, Any],
    segments: Sequence[Mapping[str, Any]],
    curve: Sequence[Mapping[str, Any]],
    lane_label: str,
) -> Sized[TimelineChart]:
    return Sized(
        timeline_chart(job, segments, curve, WIDE_WIDTH, WIDE_FONT, lane_label),
        timeline_chart(job, segments, curve, NARROW_WIDTH, NARROW_FONT, lane_label),
    )
