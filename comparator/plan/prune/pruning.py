"""Build candidates only when they can matter (pure; docs/planner-pruning.md, rules 2–3).

:func:`comparator.plan.selection.choose` solves candidates in order of their lower bounds and skips
the provably hopeless; building every candidate first (its slot prices, its problem) cost more
than solving the few that matter. Here each (provider, data centre, GPU, node size) group
gets a cheap lower bound first — ``W × the cheapest slot price`` of each card count, from the
offers' prices and their rules' cheapest factor, without any slot-price array — and a group is
expanded into candidates only when the best-first walk reaches its bound. Candidates are then
solved in exactly the order :func:`~comparator.plan.selection.choose` would solve them (by key, then
by their place in the candidate list), and the walk stops where ``choose`` would find every
remaining candidate hopeless, so the plans and alternatives are the same, to the cent and the
tie. Card counts never reached are not built (counted in ``stats["counts_not_built"]``).
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from comparator.domain.offer_view import OfferView
from comparator.plan.candidates import (
    Candidate,
    CandidateBuilder,
    CandidateOptions,
    CandidateSet,
    GpuWork,
    GroupInput,
)
from comparator.plan.groups import GroupKey, group_offers
from comparator.plan.prune.bounds import (
    FIRST,
    Floor,
    Key,
    count_floors,
    count_key,
    count_span,
    floors_of,
    group_key,
    group_runs,
    lengths_envelope,
    lengths_key_of,
    max_cards,
    may_not_fit,
)
from comparator.plan.prune.dominated_offers import undominated_offers
from comparator.plan.selection import (
    Evaluated,
    PlanOptions,
    Selection,
    _evaluate,
    _lower_key,
    _Ranking,
    candidate_bound_cents,
    stretch_hopeless,
)
from comparator.plan.work_hours import work_run_hours

Entry = tuple[Key, int, int, int, Any]  # key, group index, position, stage, item


class Pending(Protocol):
    """The groups not read yet (docs/planner-pruning.md, rule 5), in (key, index) order."""

    def first_before(self, limit: Entry | None) -> Entry | None:
        """The least unread entry if it is less than ``limit`` (None: any), else None."""
        ...

    def pop(self) -> Entry: ...

    def left(self) -> int:
        """How many groups are not read."""
        ...


class HeapPending:
    """Unread entries all keyed at once, as a heap."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        heapq.heapify(entries)  # by (key, first offer id): unique, never compares the groups

    def first_before(self, limit: Entry | None) -> Entry | None:
        head = self.entries[0] if self.entries else None
        return head if head is not None and (limit is None or head < limit) else None

    def pop(self) -> Entry:
        return heapq.heappop(self.entries)

    def left(self) -> int:
        return len(self.entries)


@dataclass
class LazyCandidates:
    """Groups ready to expand, and the candidates built so far (with the offers' notes)."""

    builder: CandidateBuilder
    groups: list[GroupInput]
    built: CandidateSet = field(default_factory=CandidateSet)
    used: set[str] = field(default_factory=set)  # offers some candidate would hold
    not_built: int = 0
    dominated: set[str] = field(default_factory=set)  # offers a machine-mate strictly dominates
    floors: list[list[Floor]] = field(default_factory=list)  # each group's offers' floors
    # groups not read yet (docs/planner-pruning.md, rule 5): entries in (key, index) order,
    # read in batches by ``read`` (the groups of those entries, each with its index and key)
    pending: Pending | None = None
    read: Callable[[list[Entry]], list[tuple[GroupInput, int, Key]]] | None = None
    unread: int = 0  # pending groups the bound left unread

    def add(self, key: GroupKey, group: list[OfferView], work: GpuWork) -> GroupInput | None:
        """One group prepared (prices, calendars, card counts), not expanded; the offers no
        count of the group can use get their notes now. None: nothing in it can be planned."""
        g = self.builder.prelude(key, group, work.on_link(key[4]))
        if not (g.offers and g.counts):
            return None
        fewest = min(g.counts)
        most = [max_cards(o) for o in g.offers]
        self.used.update(o.offer_id for o, m in zip(g.offers, most, strict=True) if m >= fewest)
        unusable = [o for o, m in zip(g.offers, most, strict=True) if m < fewest]
        if unusable:
            self.builder.note_unusable(unusable, g.counts, [])
        return g

    def undominated(self, g: GroupInput) -> GroupInput:
        """``g`` without the offers a machine-mate strictly dominates (rule 4), recorded in
        :attr:`dominated`: done when the walk reaches the group, since neither its bound nor
        any count's bound depends on a dominated offer (docs/planner-pruning.md)."""
        kept = undominated_offers(g.offers, g.prices, g.grid)
        if len(kept) == len(g.offers):
            return g
        self.dominated |= {o.offer_id for o in g.offers} - {o.offer_id for o in kept}
        return dataclasses.replace(g, offers=kept)


def lazy_candidates(
    offers: Sequence[OfferView], work_by_gpu: Mapping[str, GpuWork], options: CandidateOptions
) -> LazyCandidates:
    """Every group of ``offers`` prepared (prices, calendars, card counts, floors), none
    expanded; the offers no count of their group can use get their notes now."""
    built = CandidateSet()
    lazy = LazyCandidates(CandidateBuilder(options, built), [], built)
    for key, group in group_offers(offers).items():
        work = work_by_gpu.get(key[2])
        g = None if work is None else lazy.add(key, group, work)
        if g is not None:
            lazy.groups.append(g)
            lazy.floors.append(floors_of(g, options))
    return lazy


def kept_counts(g: GroupInput, options: CandidateOptions) -> list[int]:
    """The card counts :func:`comparator.plan.candidates.undominated` keeps, without building
    the candidates: a count is dropped when a larger one runs no longer on the same offers
    with the same units of each (usable offers only shrink and units only grow as the count
    grows, so "at most as many units of a superset" means exactly this)."""
    node, eff = g.key[3], options.multi_node_efficiency
    offers = [(o.offer_id, o.cards, max_cards(o)) for o in g.offers]
    alike: dict[tuple[tuple[str, int], ...], list[tuple[int, int]]] = {}
    kept = []
    for n in g.counts:
        usable = tuple((i, -(-n // cards)) for i, cards, most in offers if most >= n)
        if usable:
            kept.append((n, work_run_hours(g.work, n, node, eff), usable))
            alike.setdefault(usable, []).append(kept[-1][:2])
    return [n for n, run, usable in kept if not any(m > n and r <= run for m, r in alike[usable])]


GROUP, COUNT, BUILT = 0, 1, 2
UNREAD = -1  # a group not read from the catalog yet (its summary's key)
READ_BATCH = 16  # unread groups read at once


def choose_lazy(lazy: LazyCandidates, options: PlanOptions) -> Selection:
    """:func:`comparator.plan.selection.choose` over lazily built candidates (same answer).

    Stages: a group (its cheapest count's key) → its card counts (each count's key, after
    the card-count dominance of the candidate builder) → a built candidate (its proven bound).
    """
    objective, builder = options.objective, lazy.builder
    heap: list[Entry] = [
        (group_key(g, fl, builder.options, objective, builder.bill(g.key), False), i, -1, GROUP, g)
        for i, (g, fl) in enumerate(zip(lazy.groups, lazy.floors, strict=True))
    ]
    heapq.heapify(heap)
    walk = _Walk(lazy, options)
    while True:
        pending = lazy.pending
        if pending is not None and pending.first_before(heap[0] if heap else None) is not None:
            walk.read(pending, heap)
            continue
        if not heap:
            break
        key, index, position, stage, item = heapq.heappop(heap)
        if stage == BUILT:
            walk.solve(key, item)
        elif key != FIRST and walk.all_hopeless(key):
            walk.drop(item, index)
        elif stage == GROUP and (raised := walk.raised(item, key)) is not None:
            heapq.heappush(heap, (raised, index, position, stage, item))
        elif stage == GROUP:
            for entry in walk.counts(item, index, key):
                heapq.heappush(heap, entry)
        elif (built := walk.build(item[0], item[1], index, position, key)) is not None:
            heapq.heappush(heap, built)
    return walk.finish()


class _Walk:
    def __init__(self, lazy: LazyCandidates, options: PlanOptions) -> None:
        self.lazy = lazy
        self.options = options
        self.selection = Selection()
        self.ranking = _Ranking(options)
        self.unbounded: list[tuple[int, int, Candidate]] = []
        self.places: dict[int, tuple[int, int]] = {}  # id(candidate) → (group, position)
        self.threshold: Key | None = None  # the (top+1)-th ranked key, once there is one
        self.dropped: dict[int, tuple[GroupInput, int]] = {}  # group → its fewest cards dropped
        self.refined: set[int] = set()  # groups whose block-length floor was read

    def all_hopeless(self, key: Key) -> bool:
        """Whether ``key`` proves every candidate at or above it out of the shown plans
        (``_Ranking.hopeless``'s second test, against a threshold kept up to date)."""
        return self.threshold is not None and key[1:] > self.threshold

    def hopeless(self, candidate: Candidate, key: Key) -> bool:
        """``_Ranking.hopeless`` without re-sorting the ranking for every candidate."""
        current = self.ranking.best_by_pair.get(self.ranking.group(candidate))
        if current is not None and key[1:] > current.key(self.options.objective):
            return True
        return self.all_hopeless(key)

    def read(self, pending: Pending, heap: list[Entry]) -> None:
        """Read the next unread groups in key order (a batch, popped from ``pending``) and
        push each with its own group key (never below its summary's); once the bound proves
        the next one hopeless, every later one is too (keys only grow, the threshold only
        falls): none is read."""
        batch: list[Entry] = []
        while len(batch) < READ_BATCH and (head := pending.first_before(None)) is not None:
            if head[0] != FIRST and self.all_hopeless(head[0]):
                break
            batch.append(pending.pop())
        if not batch:
            self.lazy.unread = pending.left()
            self.lazy.pending = None
            return
        assert self.lazy.read is not None
        objective, builder = self.options.objective, self.lazy.builder
        for g, index, least in self.lazy.read(batch):
            floors = floors_of(g, builder.options)
            key = group_key(g, floors, builder.options, objective, builder.bill(g.key), False)
            heapq.heappush(heap, (max(key, least), index, -1, GROUP, g))

    def raised(self, g: GroupInput, key: Key) -> Key | None:
        """The group's key at its block-length floor, read the first time the group is due
        and not hopeless (most groups read in a batch never are); None when not above
        ``key`` (or read before): the group is expanded now. A raised key is still at most
        every candidate's (Claim M), so pushing it back keeps Claim 1's order."""
        if key == FIRST or id(g) in self.refined:
            return None
        self.refined.add(id(g))
        builder = self.lazy.builder
        objective = self.options.objective
        raised = lengths_key_of(g, builder.options, objective, builder.bill(g.key))
        return raised if raised is not None and raised > key else None

    def counts(self, g: GroupInput, index: int, least: Key) -> list[Entry]:
        """The group's card counts that the builder would keep, each with its own key, over
        its undominated offers, never below the group's key ``least`` (a bound of every
        candidate of the group, above the count's own where a job that may not pause gets
        the block floor) unless FIRST (a count that may not fit is built at once)."""
        options, bill = self.lazy.builder.options, self.lazy.builder.bill(g.key)
        g = self.lazy.undominated(g)
        floors = floors_of(g, options)
        lengths = lengths_envelope(g, options, group_runs(g, options))
        kept = kept_counts(g, options)
        entries = []
        for position, (cards, blocks) in enumerate(
            zip(kept, count_floors(g, kept, options, lengths), strict=True)
        ):
            key = count_key(g, floors, cards, options, self.options.objective, bill, blocks)
            assert key is not None
            key = key if key == FIRST else max(key, least)
            entries.append((key, index, position, COUNT, (g, cards)))
        return entries

    def drop(self, item: GroupInput | tuple[GroupInput, int], index: int) -> None:
        """A group or card count left unbuilt: the bound proves it hopeless. A count's offers
        count as skipped (so none is reported as missing the deadline), as in ``choose``."""
        if isinstance(item, tuple):
            self.lazy.not_built += 1
            g, cards = item
            self.dropped[id(g)] = (g, min(cards, self.dropped.get(id(g), (g, cards))[1]))
            return
        self.lazy.not_built += len(item.counts)
        self.record_unfit(item, index)

    def record_unfit(self, g: GroupInput, index: int) -> None:
        """A whole group dropped: ``choose`` would still record its counts whose work may not
        fit the rentable slots as unsolvable, and skip the others; so does the walk (sketches),
        so that its offers are reported as missing the deadline exactly as there. Nothing to
        do when the slowest count fits (none of its offers can be so reported)."""
        builder = self.lazy.builder
        options, upload = builder.options, builder.bill(g.key).upload_slots
        if not may_not_fit(
            count_span(g.key[3], g.work, g.counts, options)[0], g.grid, upload, options
        ):
            return
        node, eff = g.key[3], options.multi_node_efficiency
        for position, cards in enumerate(kept_counts(g, options)):
            sketch = builder.sketch(g, cards)
            assert sketch is not None
            work = work_run_hours(g.work, cards, node, eff)
            if may_not_fit(work, g.grid, upload, options):
                self.unbounded.append((index, position, sketch))
            else:
                self.selection.skipped.append(sketch)

    def build(
        self, g: GroupInput, cards: int, index: int, position: int, key: Key = ()
    ) -> Entry | None:
        """The count's candidate, pushed with its bound; a count whose work may not fit
        (``key`` FIRST: ``bounds.may_not_fit``, so its candidate has no bound) is recorded as
        unsolvable from its sketch (its offers, units and run hours: all that is read of an
        unsolved candidate), without its rates."""
        builder = self.lazy.builder
        first = key == FIRST
        if first:
            candidate = builder.sketch(g, cards)
        else:
            candidate = builder.candidate(g.key, g.offers, g.prices, g.work, cards, g.grid)
        assert candidate is not None
        self.lazy.built.candidates.append(candidate)
        self.places[id(candidate)] = (index, position)
        bound = None if first else candidate_bound_cents(candidate)
        self.selection.bounds[id(candidate)] = bound
        if bound is None:
            self.unbounded.append((index, position, candidate))
            return None
        return (
            (1, *_lower_key(candidate, bound, self.options.objective)),
            index,
            position,
            BUILT,
            candidate,
        )

    def solve(self, key: Key, candidate: Candidate) -> None:
        ranking, selection = self.ranking, self.selection
        if self.hopeless(candidate, key) or stretch_hopeless(
            ranking, candidate, key[1:], lambda c, k: self.hopeless(c, (1, *k))
        ):
            selection.skipped.append(candidate)
            return
        evaluated = _evaluate(candidate, self.options)
        ranking.add(evaluated)
        if (threshold := ranking.shown_key()) is not None:
            self.threshold = threshold
        if ranking.best_by_pair.get(ranking.group(candidate)) is not evaluated:
            evaluated.profile = None
        selection.evaluated.append(evaluated)

    def finish(self) -> Selection:
        selection = self.selection
        for g, cards in self.dropped.values():  # the offers of every dropped count: skipped
            sketch = self.lazy.builder.sketch(g, cards)  # (usable offers shrink with cards)
            if sketch is not None:
                selection.skipped.append(sketch)
        self.unbounded.sort(key=lambda e: e[:2])
        selection.evaluated[:0] = [Evaluated(c, None, None, None, None) for *_, c in self.unbounded]
        self.lazy.built.candidates.sort(key=lambda c: self.places[id(c)])
        ranked = self.ranking.ranked()
        if ranked:
            selection.best = ranked[0]
            selection.alternatives = ranked[1 : 1 + self.options.top]
        return selection
