"""A job's group summaries in memory, read in the walk's order (pure).

The in-memory :class:`~comparator.domain.offer_source.GroupStream`: what the catalog computes
in SQL over its temporary table of summaries (:mod:`comparator.catalog.group_stream`), in
Python over a list, by the same rules (docs/planner-pruning.md, rule 5).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from comparator.domain.offer_filter import GroupSummary
from comparator.domain.offer_source import (
    GroupShape,
    OrderedGroup,
    ShapeId,
    ShapeOrder,
)


def shape_of(s: GroupSummary) -> ShapeId:
    return (s.gpu, s.node_cards, s.interconnect, s.network)


def part_order(
    s: GroupSummary, shape: ShapeOrder, least_discount: float, half_place: float
) -> tuple[int, float]:
    """Where a raw summary's group may come at the earliest: ``(0, 0)`` for a shape that may
    be FIRST, else ``(1, card_hours · (d·A − h·M))`` (the SQL's expression, in floats)."""
    if shape.first:
        return (0, 0.0)
    least = s.least_per_card or 0.0
    return (1, shape.card_hours * (least_discount * least - half_place * s.most_factor_per_card))


class ListStream:
    """``summaries`` (one per raw group of a job's offers) as a group stream."""

    def __init__(
        self, summaries: Sequence[GroupSummary], unfit: Mapping[str, int] | None = None
    ) -> None:
        self.summaries = list(summaries)
        self.left_out = dict(unfit or {})

    def unfit(self) -> dict[str, int]:
        return self.left_out

    def shapes(self) -> list[GroupShape]:
        shapes: dict[ShapeId, GroupShape] = {}
        for s in self.summaries:
            key = shape_of(s)
            was = shapes.get(key, GroupShape(*key, 0, False, 0))
            shapes[key] = was._replace(
                offers=was.offers + s.offers,
                free_trial=was.free_trial or s.free_trial,
                groups=was.groups + 1,
            )
        return list(shapes.values())

    def providers(self) -> list[str]:
        return sorted({s.provider for s in self.summaries})

    def ordered(
        self, order: Mapping[ShapeId, ShapeOrder], least_discount: float, half_place: float
    ) -> tuple[int, Iterator[OrderedGroup]]:
        groups: dict[tuple[str, str, str, int, str], list[GroupSummary]] = {}
        for s in self.summaries:
            if (shape := order.get(shape_of(s))) is not None:
                groups.setdefault((s.provider, s.region, s.gpu, s.node_cards, shape.link), [])
                groups[(s.provider, s.region, s.gpu, s.node_cards, shape.link)].append(s)
        out = [
            OrderedGroup(
                min(part_order(s, order[shape_of(s)], least_discount, half_place) for s in parts),
                parts,
            )
            for parts in groups.values()
        ]
        out.sort(key=lambda g: g.order)
        return len(out), iter(out)

    def at(self, provider: str, region: str, gpu: str) -> list[GroupSummary]:
        return [
            s for s in self.summaries if (s.provider, s.region, s.gpu) == (provider, region, gpu)
        ]

    def close(self) -> None:
        pass
