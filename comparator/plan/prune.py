"""Build candidates only when they can matter (pure; docs/planner-pruning.md, rules 2–3).

:func:`comparator.plan.solve.choose` solves candidates in order of their lower bounds and skips
the provably hopeless; building every candidate first (its slot prices, its problem) cost more
than solving the few that matter. Here each (provider, data centre, GPU, node size) group
gets a cheap lower bound first — ``W × the cheapest slot price`` of each card count, from the
offers' prices and their rules' cheapest factor, without any slot-price array — and a group is
expanded into candidates only when the best-first walk reaches its bound. Candidates are then
solved in exactly the order :func:`~comparator.plan.solve.choose` would solve them (by key, then
by their place in the candidate list), and the walk stops where ``choose`` would find every
remaining candidate hopeless, so the plans and alternatives are the same, to the cent and the
tie. Only the groups never reached are not built (counted in ``stats["groups_not_built"]``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from comparator.domain.offer_view import OfferView
from comparator.estimate.throughput import is_rdma, run_hours
from comparator.plan.candidates import (
    HOURLY_MODES,
    Candidate,
    CandidateBuilder,
    CandidateOptions,
    CandidateSet,
    GpuWork,
    GroupInput,
    group_offers,
)
from comparator.plan.slot_prices import shared_factors
from comparator.plan.solve import (
    Evaluated,
    PlanOptions,
    Selection,
    _evaluate,
    _lower_key,
    _Ranking,
    lower_bound_cents,
)

Key = tuple[Any, ...]
FIRST: Key = (0,)  # groups with an infeasible card count are expanded first (recorded as such)


@dataclass
class LazyCandidates:
    """Groups ready to expand, and the candidates built so far (with the offers' notes)."""

    builder: CandidateBuilder
    groups: list[GroupInput]
    built: CandidateSet = field(default_factory=CandidateSet)
    used: set[str] = field(default_factory=set)  # offers some candidate would hold
    not_built: int = 0


def lazy_candidates(
    offers: Sequence[OfferView], work_by_gpu: Mapping[str, GpuWork], options: CandidateOptions
) -> LazyCandidates:
    """Every group of ``offers`` prepared (prices, calendars, card counts), none expanded."""
    built = CandidateSet()
    builder = CandidateBuilder(options, built)
    groups = []
    for key, group in group_offers(offers).items():
        work = work_by_gpu.get(key[2])
        if work is not None:
            prepared = builder.prelude(key, group, work)
            if prepared.offers and prepared.counts:
                groups.append(prepared)
    lazy = LazyCandidates(builder, groups, built)
    for g in groups:
        fewest = min(g.counts)
        usable = {o.offer_id for o in g.offers if _max_cards(o) >= fewest}
        lazy.used |= usable
        builder.note_unusable([o for o in g.offers if o.offer_id not in usable], g.counts, [])
    return lazy


def _max_cards(offer: OfferView) -> float:
    """The most cards ``offer`` can rent (its stock of units; one node without RDMA)."""
    most = math.inf if offer.stock is None else offer.stock * offer.cards
    return most if is_rdma(offer.network) else min(most, offer.node_cards)


def _slot_floor(g: GroupInput, offer: OfferView, slots: int, runs: int) -> float:
    """A lower bound on what one unit of ``offer`` costs per run slot."""
    price = float(g.prices[offer.offer_id])
    if offer.billing in HOURLY_MODES:
        factors = shared_factors(offer.time_of_use, g.grid.first, max(slots, 1), g.grid.timezone)
        return price * float(min(factors[:slots] or factors))
    return max(price / offer.period_hours, offer.min_units * price / max(runs, 1))


def group_bound(g: GroupInput, options: CandidateOptions, objective: str) -> Key:
    """The smallest key any candidate of the group can have (FIRST: some count is infeasible)."""
    slots = g.grid.deadline_slot
    overhead = options.restart_overhead_hours if options.interruptible else 0
    best: Key | None = None
    for cards in g.counts:
        usable = [o for o in g.offers if _max_cards(o) >= cards]
        if not usable:
            continue
        work = run_hours(g.work.card_hours, cards, g.key[3], options.multi_node_efficiency)
        if work > slots:
            return FIRST
        runs = min(slots, work + overhead * (work - 1))
        floor = min(-(-cards // o.cards) * _slot_floor(g, o, slots, runs) for o in usable)
        bound = math.floor(work * floor * 100 * (1 - 1e-6)) - (runs + 1) // 2 - 1
        earliest = g.grid.at(work)
        key = (1, earliest, bound) if objective == "time" else (1, bound, earliest)
        best = key if best is None or key < best else best
    return best if best is not None else FIRST


def choose_lazy(lazy: LazyCandidates, options: PlanOptions) -> Selection:
    """:func:`comparator.plan.solve.choose` over lazily built candidates (same answer)."""
    heap: list[tuple[Key, int, int, Candidate | GroupInput]] = [
        (group_bound(g, lazy.builder.options, options.objective), i, -1, g)
        for i, g in enumerate(lazy.groups)
    ]
    heapq.heapify(heap)
    selection, ranking = Selection(), _Ranking(options)
    unbounded: list[tuple[int, int, Candidate]] = []
    while heap:
        key, index, _position, item = heapq.heappop(heap)
        if isinstance(item, GroupInput):
            if key != FIRST and _all_hopeless(ranking, key):
                lazy.not_built = 1 + sum(isinstance(e[3], GroupInput) for e in heap)
                heap = [e for e in heap if not isinstance(e[3], GroupInput)]
                heapq.heapify(heap)
                continue
            _expand(lazy, item, index, options, selection, heap, unbounded)
            continue
        if ranking.hopeless(item, key[1:]):
            selection.skipped.append(item)
            continue
        evaluated = _evaluate(item, options)
        ranking.add(evaluated)
        if ranking.best_by_pair.get(ranking.group(item)) is not evaluated:
            evaluated.profile = None
        selection.evaluated.append(evaluated)
    unbounded.sort(key=lambda e: e[:2])
    selection.evaluated[:0] = [Evaluated(c, None, None, None, None) for _, _, c in unbounded]
    ranked = ranking.ranked()
    if ranked:
        selection.best = ranked[0]
        selection.alternatives = ranked[1 : 1 + options.top]
    return selection


def _all_hopeless(ranking: _Ranking, key: Key) -> bool:
    """Whether a bound proves every candidate at or above ``key`` out of the shown plans."""
    shown = ranking.options.top + 1
    ranked = ranking.ranked()
    return len(ranked) >= shown and key[1:] > ranked[shown - 1].key(ranking.options.objective)


def _expand(
    lazy: LazyCandidates,
    g: GroupInput,
    index: int,
    options: PlanOptions,
    selection: Selection,
    heap: list[tuple[Key, int, int, Candidate | GroupInput]],
    unbounded: list[tuple[int, int, Candidate]],
) -> None:
    for position, candidate in enumerate(lazy.builder.expand(g)):
        lazy.built.candidates.append(candidate)
        bound = lower_bound_cents(candidate.problem)
        selection.bounds[id(candidate)] = bound
        if bound is None:
            unbounded.append((index, position, candidate))
            continue
        key = (1, *_lower_key(candidate, bound, options.objective))
        heapq.heappush(heap, (key, index, position, candidate))
