"""Geometry of the market report's SVG charts: the index per GPU over the weeks (one line per
billing mode, the median) and this week's price spread per GPU (min – median – P90).

Numbers and labels only; the markup is in ``templates/_market_charts.html.j2``. The charts are
drawn 480 units wide and scale to the page, so their 11-unit text stays legible on a phone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from comparator.report.charts import Tick, nice_step

WIDTH = 480.0
LEFT, RIGHT, TOP = 44.0, 12.0, 10.0
PLOT_HEIGHT = 130.0
ROW_HEIGHT = 22.0
SPREAD_LABEL = 70.0
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


def _by_gpu(index: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for row in index:
        groups.setdefault(str(row["gpu"]), []).append(row)
    return groups


def line_charts(index: Sequence[Mapping[str, Any]], weeks: Sequence[str]) -> list[LineChart]:
    return [_line_chart(gpu, rows, weeks) for gpu, rows in _by_gpu(index).items()]


def _scale(values: Sequence[Decimal]) -> tuple[float, tuple[Tick, ...]]:
    """The axis top (a whole step above the largest value) and its ticks from 0."""
    largest = float(max(values)) if values else 1.0
    step = nice_step(largest or 1.0, 4)
    top = step * max(1, math.ceil(largest / step + 1e-9))
    count = round(top / step)
    return top, tuple(Tick(step * k, f"{step * k:g}") for k in range(count + 1))


def _line_chart(gpu: str, rows: Sequence[Mapping[str, Any]], weeks: Sequence[str]) -> LineChart:
    medians = [Decimal(h["median"]) for r in rows for h in r["history"] if "median" in h]
    top, ticks = _scale(medians)
    bottom = TOP + PLOT_HEIGHT
    right = WIDTH - RIGHT
    step = (right - LEFT) / max(1, len(weeks) - 1)

    def y_of(value: float) -> float:
        return bottom - value / top * PLOT_HEIGHT

    series = []
    for row in rows:
        points = tuple(
            (LEFT + i * step, y_of(float(h["median"])), str(h["median"]))
            for i, h in enumerate(row["history"])
            if "median" in h
        )
        path = " ".join(
            f"{'M' if k == 0 else 'L'}{x:.1f},{y:.1f}" for k, (x, y, _) in enumerate(points)
        )
        billing = str(row["billing"])
        series.append(Series(billing, MODE_COLORS.get(billing, "#1d2433"), path, points))
    every = max(1, (len(weeks) + 5) // 6)
    x_ticks = tuple(
        Tick(LEFT + i * step, week.split("-")[-1])
        for i, week in enumerate(weeks)
        if (len(weeks) - 1 - i) % every == 0
    )
    y_ticks = tuple(Tick(y_of(t.position), t.label) for t in ticks)
    return LineChart(gpu, WIDTH, bottom + 22, LEFT, right, bottom, tuple(series), y_ticks, x_ticks)


def spread_charts(index: Sequence[Mapping[str, Any]]) -> list[SpreadChart]:
    charts = []
    for gpu, rows in _by_gpu(index).items():
        current = [r for r in rows if r["current"] is not None]
        if current:
            charts.append(_spread_chart(gpu, current))
    return charts


def _spread_chart(gpu: str, rows: Sequence[Mapping[str, Any]]) -> SpreadChart:
    top, ticks = _scale([Decimal(r["current"]["p90"]) for r in rows])
    right = WIDTH - RIGHT

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
    height = TOP + len(rows) * ROW_HEIGHT + 20
    axis = tuple(Tick(x_of(repr(t.position)), t.label) for t in ticks)
    return SpreadChart(gpu, WIDTH, height, SPREAD_LABEL, right, tuple(spread), axis)
