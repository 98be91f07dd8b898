"""The unread groups in the walk's order, keyed only as the walk reaches them (pure;
docs/planner-pruning.md, rule 5, Claim C).

The catalog sorts a job's groups by a lower bound of their keys that it can compute from the
summaries alone (:class:`~comparator.domain.offer_source.OrderedGroup`); :class:`PendingGroups`
keys them in that order and hands the walk an unread entry only once no group behind the
stream's frontier can come before it.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from zoneinfo import ZoneInfo

from comparator.domain.offer_source import GroupShape, OrderedGroup, ShapeId, ShapeOrder
from comparator.domain.profile_plan import PlanTerms
from comparator.plan.candidates import CandidateBuilder, CandidateOptions, card_counts
from comparator.plan.groups import _link_key
from comparator.plan.prune.bounds import Key, count_span
from comparator.plan.prune.pruning import Entry
from comparator.plan.work import WorkTable

FETCH_GROUPS = 256  # groups keyed at once (their providers' terms read in one question)
EXHAUSTED: Key = (2,)  # above every key


def window_slots(options: CandidateOptions) -> int:
    """At least every provider's ``grid.deadline_slot``: a grid starts at the first whole local
    hour at or after the earliest start, so it holds at most the window's whole hours."""
    return max(math.floor((options.deadline - options.earliest).total_seconds() / 3600), 0)


def shape_orders(
    shapes: Sequence[GroupShape], table: WorkTable, options: CandidateOptions
) -> dict[ShapeId, ShapeOrder]:
    """How each shape whose groups get a key is ordered: its link key, whether its slowest
    count may exceed some provider's window (FIRST: read before any other), and its work's
    card-hours on that link (a group key's ``card_slots``). A shape with no work or no card
    count is left out: :func:`~comparator.plan.prune.streamed.summary_entries` keys none."""
    least_slots = max(window_slots(options) - 1, 0)  # a grid's deadline_slot is at least it
    out: dict[ShapeId, ShapeOrder] = {}
    for shape in shapes:
        work = table.work.get(shape.gpu)
        if work is None:
            continue
        link = _link_key(shape.interconnect, shape.network)
        on_link = work.on_link(link)
        counts = card_counts(on_link, shape.node_cards, [shape.network], options.max_nodes)
        if not counts:
            continue
        slowest = count_span(shape.node_cards, on_link, counts, options)[0]
        key = (shape.gpu, shape.node_cards, shape.interconnect, shape.network)
        out[key] = ShapeOrder(link, slowest > least_slots, float(on_link.card_hours))
    return out


def frontier(order: tuple[int, float], half_slots: int) -> Key:
    """A key no group at or after ``order`` in the stream goes below: ``(0,)`` while shapes
    that may be FIRST remain; else the summary key's bound at ``card_hours·(d·A − h·M)``,
    less the most any window's half slots and the data bill (≥ 0) can take, with one more
    margin for the database's float arithmetic (Claim C)."""
    stage, value = order
    if stage == 0:
        return (0,)
    cents = max(value, 0.0) * (1 - 1e-9) * 100 * (1 - 1e-6) * (1 - 1e-9)
    return (1, math.floor(cents) - half_slots - 2)


class PendingGroups:
    """The unread groups: those keyed so far (a heap) and the catalog's ordered stream."""

    def __init__(
        self,
        stream: Iterator[OrderedGroup],
        groups: int,
        keyed: Callable[[list[OrderedGroup]], list[Entry]],
        window: int,
    ) -> None:
        self.heap: list[Entry] = []
        self.stream, self.groups, self.keyed = stream, groups, keyed
        self.half_slots = (window + 1) // 2
        self.popped = 0
        self.fetched = 0
        self.next = next(stream, None)

    def _frontier(self) -> Key:
        return EXHAUSTED if self.next is None else frontier(self.next.order, self.half_slots)

    def _fetch(self) -> None:
        batch: list[OrderedGroup] = []
        while self.next is not None and len(batch) < FETCH_GROUPS:
            batch.append(self.next)
            self.next = next(self.stream, None)
        self.fetched += len(batch)
        for entry in self.keyed(batch):
            heapq.heappush(self.heap, entry)

    def first_before(self, limit: Entry | None) -> Entry | None:
        while True:
            head = self.heap[0] if self.heap else None
            edge = self._frontier()
            if head is not None and head[0] < edge:  # no group behind the frontier is smaller
                return head if limit is None or head < limit else None
            if limit is not None and limit[0] < edge and (head is None or not head < limit):
                return None
            if self.next is None:
                return None
            self._fetch()

    def pop(self) -> Entry:
        self.popped += 1
        return heapq.heappop(self.heap)

    def left(self) -> int:
        return self.groups - self.popped


TermsReader = Callable[[Collection[str]], Mapping[str, PlanTerms]]


class LazyTerms:
    """The providers' terms in the builder's options, read as their groups are keyed: the
    walk's keys read a provider's zone, storage terms and ``converts_billing`` (its discount
    is in the options from the start, as every price needs it)."""

    def __init__(self, read: TermsReader, builder: CandidateBuilder) -> None:
        self.read, self.builder = read, builder
        self.known: set[str] = set()

    def ensure(self, providers: Collection[str]) -> None:
        new = set(providers) - self.known
        if not new:
            return
        self.known |= new
        got = self.read(sorted(new))
        options = self.builder.options
        self.builder.options = dataclasses.replace(
            options,
            timezones={**options.timezones, **{p: ZoneInfo(t.timezone) for p, t in got.items()}},
            no_conversion=options.no_conversion
            | {p for p, t in got.items() if not t.converts_billing},
            storage_terms={
                **options.storage_terms,
                **{(p, dc.id): dc.storage for p, t in got.items() for dc in t.datacenters},
            },
        )
