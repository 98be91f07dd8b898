"""Geometry of the quote's alternatives chart: one bar per plan (the best and the cheapest
alternatives) with its total cost, each labelled ``Provider · region · GPU×cards``.

No label is ever cut: the label column is sized from the labels' measured width
(:mod:`.chart_text`); when the labels would take more than about half the chart they go on a
line of their own above their bars (always on a phone), with the GPU name shortened
(``H800-80GB``) and, where still too long, the provider's name on one line and the rest on the
next. Card counts are always drawn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from comparator.report.chart_text import fit_text, short_gpu, text_width
from comparator.report.charts import NARROW_FONT, NARROW_WIDTH, WIDE_FONT, WIDE_WIDTH, Sized

MAX_COST_BARS = 25
OUTLIER_RATIO = Decimal(3)
LABEL_SHARE = 0.55  # of what the cost values leave: the most a label column beside bars takes


@dataclass(frozen=True)
class CostBar:
    y: float
    width: float
    label: str  # the whole label (the bar's tooltip)
    value: Decimal
    best: bool
    capped: bool = False  # longer than the axis: drawn to its end and marked as cut
    lines: tuple[str, ...] = ()  # the label as drawn, one or two lines; the card count always
    label_y: float = 0.0  # baseline of the drawn label's first line

    @property
    def text(self) -> str:
        return " · ".join(self.lines)


@dataclass(frozen=True)
class CostChart:
    width: float
    height: float
    label_width: float
    bar_height: float
    bars: tuple[CostBar, ...]
    shown: int
    total: int
    font_size: float = WIDE_FONT
    stacked: bool = False  # each label on its own line(s) above its bar
    line_height: float = WIDE_FONT + 3


def plan_label(
    plan: Mapping[str, Any], provider_names: Mapping[str, str], *, short: bool = False
) -> str:
    """``Provider · region · GPU×cards`` for a bar or a table row (``short``: the GPU name
    without its form factor)."""
    name = provider_names.get(plan["provider"], plan["provider"])
    gpu = short_gpu(str(plan["gpu"])) if short else plan["gpu"]
    return f"{name} · {plan['region']} · {gpu}×{plan['cards']}"


def _label_lines(
    plan: Mapping[str, Any], names: Mapping[str, str], font_size: float, room: float
) -> tuple[str, ...]:
    """The bar's label within ``room``: whole; else with the short GPU name; else the
    provider's name on a line and ``region · GPU×cards`` on the next (a name longer than a
    whole line, and only that, is cut)."""
    for short in (False, True):
        text = plan_label(plan, names, short=short)
        if text_width(text, font_size) <= room:
            return (text,)
    name = str(names.get(plan["provider"], plan["provider"]))
    tail = f"{plan['region']} · {short_gpu(str(plan['gpu']))}×{plan['cards']}"
    return (fit_text(name, font_size, room - text_width(" · ", font_size)), tail)


def _cost_labels(
    plans: Sequence[Mapping[str, Any]], names: Mapping[str, str], width: float, font_size: float
) -> tuple[list[tuple[str, ...]], float]:
    """The drawn labels and the label column's width (0: labels above their bars)."""
    for short in (False, True):
        labels = [plan_label(p, names, short=short) for p in plans]
        widest = max((text_width(text, font_size) for text in labels), default=0.0) + 8
        if widest <= LABEL_SHARE * width:
            return [(text,) for text in labels], widest
    return [_label_lines(p, names, font_size, width - 4) for p in plans], 0.0


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
    width: float = WIDE_WIDTH,
    font_size: float = WIDE_FONT,
) -> CostChart:
    """Horizontal bars of the total cost of the best plan and the cheapest alternatives,
    each labelled whole beside its bar, or above it when labels would take over half the
    width."""
    plans = ([best] if best else []) + list(alternatives)
    shown = plans[:MAX_COST_BARS]
    costs = [Decimal(p["total_cost"]) for p in shown]
    value_room = 8 + max((text_width(f"MMM {c:,.2f} ▸", font_size) for c in costs), default=0)
    labels, label_width = _cost_labels(shown, provider_names, width - value_room, font_size)
    stacked, line_height = label_width == 0.0, font_size + 3
    bar_height, gap = font_size + 2, 6.0
    axis = cost_axis(costs)
    span = width - label_width - value_room
    bars, top = [], 4.0
    for index, (plan, cost, lines) in enumerate(zip(shown, costs, labels, strict=True)):
        label_y = top + font_size + 1 if stacked else top + bar_height / 2 + font_size * 0.35
        bar_y = top + len(lines) * line_height + 2 if stacked else top
        bars.append(
            CostBar(
                bar_y,
                float(min(cost, axis) / axis) * span if axis > 0 else 0.0,
                plan_label(plan, provider_names),
                cost,
                best is not None and index == 0,
                capped=cost > axis,
                lines=lines,
                label_y=label_y,
            )
        )
        top = bar_y + bar_height + gap
    return CostChart(
        width, top, label_width, bar_height, tuple(bars), len(shown), len(plans), font_size,
        stacked, line_height,
    )  # fmt: skip


def cost_charts(
    best: Mapping[str, Any] | None,
    alternatives: Sequence[Mapping[str, Any]],
    provider_names: Mapping[str, str],
) -> Sized[CostChart]:
    return Sized(
        cost_chart(best, alternatives, provider_names, WIDE_WIDTH, WIDE_FONT),
        cost_chart(best, alternatives, provider_names, NARROW_WIDTH, NARROW_FONT),
    )
