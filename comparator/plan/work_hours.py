"""The hours a placement runs, the multi-node loss counted once (pure).

A ``[model]`` job's card-hours come from the estimator for each card count and network: its
fit and network model already hold the loss of spanning machines, so no factor is added.
``SUANLI_MULTI_NODE_EFFICIENCY``, when set, replaces that model: one machine's card-hours are
divided by it across machines. A ``[workload]`` job's card-hours are given (measured, not
modelled): across machines they are divided by the setting, or by
:data:`WORKLOAD_MULTI_NODE_EFFICIENCY` when it is unset.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal
from typing import Protocol

from comparator.estimate.throughput import run_hours

#: Across nodes, a ``[workload]`` job's card-hours are divided by this unless
#: ``SUANLI_MULTI_NODE_EFFICIENCY`` says otherwise (the setting's default before 0.3).
WORKLOAD_MULTI_NODE_EFFICIENCY = Decimal("0.90")
_PLACES = Decimal("0.000001")


class Work(Protocol):
    """What the hours need of a GPU's work (:class:`comparator.plan.candidates.GpuWork`)."""

    @property
    def network_modelled(self) -> bool: ...

    def card_hours_on(self, cards: int) -> Decimal: ...


def priced_card_hours(
    work: Work, cards: int, node_cards: int, efficiency: Decimal | None
) -> Decimal:
    """The card-hours that price ``cards`` cards of ``node_cards``-card machines."""
    if cards <= node_cards or (work.network_modelled and efficiency is None):
        return work.card_hours_on(cards)
    if not work.network_modelled:
        factor = WORKLOAD_MULTI_NODE_EFFICIENCY if efficiency is None else efficiency
        return _per_efficiency(work.card_hours_on(cards), factor)
    assert efficiency is not None
    return _per_efficiency(work.card_hours_on(node_cards), efficiency)


def work_run_hours(work: Work, cards: int, node_cards: int, efficiency: Decimal | None) -> int:
    """Whole hours on ``cards`` cards: the priced card-hours over the cards, rounded up."""
    priced = priced_card_hours(work, cards, node_cards, efficiency)
    return run_hours(priced, cards, node_cards, Decimal(1))


def node_group(layout: tuple[int, int, int] | None) -> int:
    """Cards a model-parallel layout (TP, CP, PP) needs inside one machine: TP × CP."""
    return 1 if layout is None else layout[0] * layout[1]


def layout_counts(
    layout: tuple[int, int, int] | None, node_cards: int, counts: list[int]
) -> list[int]:
    """The card counts a layout can use: multiples of TP × CP × PP, none when its TP × CP
    group does not fit in one ``node_cards``-card machine."""
    if layout is None:
        return counts
    if node_cards < node_group(layout):
        return []
    return [n for n in counts if not n % (layout[0] * layout[1] * layout[2])]


def _per_efficiency(card_hours: Decimal, efficiency: Decimal) -> Decimal:
    return (card_hours / efficiency).quantize(_PLACES, rounding=ROUND_CEILING)
