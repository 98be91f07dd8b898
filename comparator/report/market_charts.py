"""Geometry of the market report's SVG charts: the index per GPU over the weeks (one line per
billing mode, the median) and this week's price spread per GPU (min – median – P90).

Numbers and labels only; the markup is in ``templates/_market_charts.html.j2``. Each chart is
drawn wide and narrow like the quote's charts (:data:`comparator.report.charts.WIDE_WIDTH`…):
the page shows the one whose text stays at 10 px or more on the screen at hand.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from comparator.report.chart_text import text_width
from comparator.report.charts import (
    NARROW_FONT,
    NARROW_WIDTH,
    WIDE_FONT,
    WIDE_WIDTH,
    Sized,
    Tick,
    nice_step,
)

RIGHT, TOP = 16.0, 10.0
PLOT_HEIGHT = 130.0
ROW_HEIGHT = 22.0
SPREAD_LABEL = 70.0  # room for the billing mode's name left of its spread (≤ 64 units)
# one colour per billing mode, the same in both charts
MODE_COLORS: dict[str, str] = {
    "hourly": "#2a5db0",
    "spot": "#5d8fd6",
    "daily": "#1f8a70",
    "weekly": "#c99a06",
    "monthly": "#b4232a",
    "yearly": "#6b4fa0",
}


@dataclass(frozen=True)
class Series:
    billing: str
    color: str
    path: str
    points: tuple[tuple[float, float, str], ...]  # x, y, the week's median as text


@dataclass(frozen=True)
class LineChart:
    gpu: str
    width: float
    height: float
    plot_left: float
    plot_right: float
    plot_bottom: float
    series: tuple[Series, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    font_size: float = WIDE_FONT


@dataclass(frozen=True)
class SpreadRow:
    billing: str
    color: str
    y: float
    x_min: float
    x_median: float
    x_p90: float
    text: str


@dataclass(frozen=True)
class SpreadChart:
    gpu: str
    width: float
    height: float
    plot_left: float
    plot_right: float
    rows: tuple[SpreadRow, ...]
    ticks: tuple[Tick, ...]
    font_size: float = WIDE_FONT


def _by_gpu(index: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for row in index:
        groups.setdefault(str(row["gpu"]), []).append(row)
    return groups


def line_charts(index: Sequence[Mapping[str, Any]], weeks: Sequence[str]) -> list[Sized[LineChart]]:
    return [
        Sized(
            _line_chart(gpu, rows, weeks, WIDE_WIDTH, WIDE_FONT),
            _line_chart(gpu, rows, weeks, NARROW_WIDTH, NARROW_FONT),
        )
        for gpu, rows in _by_gpu(index).items()
    ]


def _scale(values: Sequence[Decimal]) -> tuple[float, tuple[Tick, ...]]:
    """The axis top (a whole step above the largest value) and its ticks from 0."""
    largest = float(max(values)) if values else 1.0
    step = nice_step(largest or 1.0, 4)
    top = step * max(1, math.ceil(largest / step + 1e-9))
    count = round(top / step)
    return top, tuple(Tick(step * k, f"{step * k:g}") for k in range(count + 1))


def _line_chart(
    gpu: str, rows: Sequence[Mapping[str, Any]], weeks: Sequence[str], width: float, font: float
) -> LineChart:
    medians = [Decimal(h["median"]) for r in rows for h in r["history"] if "median" in h]
    top, ticks = _scale(medians)
    bottom = TOP + PLOT_HEIGHT
    left = max(44.0, *(text_width(t.label, font) + 10 for t in ticks))
    right = width - RIGHT
    step = (right - left) / max(1, len(weeks) - 1)

    def y_of(value: float) -> float:
        return bottom - value / top * PLOT_HEIGHT

    series = []
    for row in rows:
        points = tuple(
            (left + i * step, y_of(float(h["median"])), str(h["median"]))
            for i, h in enumerate(row["history"])
            if "median" in h
        )
        path = " ".join(
            f"{'M' if k == 0 else 'L'}{x:.1f},{y:.1f}" for k, (x, y, _) in enumerate(points)
        )
        billing = str(row["billing"])
        series.append(Series(billing, MODE_COLORS.get(billing, "#1d2433"), path, points))
    most = max(2, int((right - left) / (text_width("W00", font) + 12)))
    every = max(1, (len(weeks) + most - 1) // most)
    x_ticks = tuple(
        Tick(left + i * step, week.split("-")[-1])
        for i, week in enumerate(weeks)
        if (len(weeks) - 1 - i) % every == 0
    )
    y_ticks = tuple(Tick(y_of(t.position), t.label) for t in ticks)
    return LineChart(
        gpu, width, bottom + 10 + font, left, right, bottom, tuple(series), y_ticks, x_ticks, font
    )


def spread_charts(index: Sequence[Mapping[str, Any]]) -> list[Sized[SpreadChart]]:
    charts = []
    for gpu, rows in _by_gpu(index).items():
        current = [r for r in rows if r["current"] is not None]
        if current:
            charts.append(
                Sized(
                    _spread_chart(gpu, current, WIDE_WIDTH, WIDE_FONT),
                    _spread_chart(gpu, current, NARROW_WIDTH, NARROW_FONT),
                )
            )
    return charts


def _spread_chart(
    gpu: str, rows: Sequence[Mapping[str, Any]], width: float, font: float
) -> SpreadChart:
    top, ticks = _scale([Decimal(r["current"]["p90"]) for r in rows])
    right = width - RIGHT

    def x_of(value: str) -> float:
        return SPREAD_LABEL + float(value) / top * (right - SPREAD_LABEL)

    spread = []
    for i, row in enumerate(rows):
        now = row["current"]
        billing = str(row["billing"])
        spread.append(
            SpreadRow(
                billing,
                MODE_COLORS.get(billing, "#1d2433"),
                TOP + i * ROW_HEIGHT + ROW_HEIGHT / 2,
                x_of(now["min"]),
                x_of(now["median"]),
                x_of(now["p90"]),
                f"{now['min']} – {now['median']} – {now['p90']}",
            )
        )
    height = TOP + len(rows) * ROW_HEIGHT + 8 + font
    axis = tuple(Tick(x_of(repr(t.position)), t.label) for t in ticks)
    return SpreadChart(gpu, width, height, SPREAD_LABEL, right, tuple(spread), axis, font)
