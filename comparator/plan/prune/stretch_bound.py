"""A floor on the run slots of an interruptible job that pays for every restart (pure).

An interruptible job with restart overhead ``o`` runs ``b`` blocks — intervals of consecutive
runnable slots — and at least ``W + o·(b − 1)`` run slots (every block after the first begins
with ``o`` overhead slots). Each run slot costs at least its per-slot minimum ``p(t)``
(:func:`comparator.plan.selection.lower_bound_cents`). Where ``p`` is cheap only in short
stretches (a night rate), few blocks cannot reach enough cheap slots and many blocks pay their
overhead, so the ``W`` cheapest slots are far below any plan. For a price level ``v`` (``C``
the runnable slots at most ``v``, in ``m`` maximal stretches; every other runnable slot costs at
least ``v⁺``, the next level): a plan of ``b`` blocks whose blocks bridge ``K`` gaps between
stretches (a block touching ``κ`` stretches holds the ``κ − 1`` gaps between them, slots above
``v``) touches at most ``b + K`` stretches, so at most ``L(b + K)`` of its run slots are in
``C`` (``L(x)`` the length of the ``x`` longest stretches) and at least ``G(K)`` are not
(``G(K)`` the ``K`` shortest bridgeable gaps). So it pays at least ``S(c) + v⁺·e``, ``S(c)`` the
``c`` cheapest prices of ``C``, with ``c ≤ min(L(b + K), |C|)``, ``e ≥ G(K)`` and
``c + e ≥ W + o·(b − 1)``; the least such sum over ``b`` and ``K`` is a floor
(docs/planner-pruning.md, "Fifth round: growth").
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

LEVELS = 2  # the cheapest price levels tried (each gives a floor; the largest is kept)


def least_over_blocks(
    per_slot: NDArray[np.float64], work: int, overhead: int, levels: int = LEVELS
) -> float | None:
    """A floor on the sum of ``per_slot`` over the run slots of any plan of ``work`` work slots
    with ``overhead`` slots at each restart (``inf`` where the job cannot run). None when no
    level leaves a finite floor (then no plan exists: the DP says so)."""
    finite = np.isfinite(per_slot)
    values = np.unique(per_slot[finite])
    if not len(values) or work < 1:
        return None
    blocked = np.concatenate(([0], np.cumsum(~finite)))  # non-runnable slots before each slot
    best = -math.inf
    for i, level in enumerate(values[:levels]):
        above = float(values[i + 1]) if i + 1 < len(values) else math.inf
        best = max(best, _level_floor(per_slot, blocked, float(level), above, work, overhead))
    return best if math.isfinite(best) else None


def _level_floor(
    per_slot: NDArray[np.float64],
    blocked: NDArray[np.int64],
    level: float,
    above: float,
    work: int,
    overhead: int,
) -> float:
    """The floor at one price ``level`` (``above``: the next one, ``inf`` if none)."""
    cheap = per_slot <= level
    edges = np.diff(np.concatenate(([0], cheap.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    stretches = len(starts)
    gaps = (starts[1:] - ends[:-1]).astype(np.float64)
    gaps[blocked[starts[1:]] > blocked[ends[:-1]]] = math.inf  # no block spans a closed slot
    longest = np.concatenate(([0], np.cumsum(np.sort(ends - starts)[::-1])))  # L(x), x ≤ m
    shortest = np.concatenate(([0.0], np.cumsum(np.sort(gaps))))  # G(K), K < m
    sums = np.concatenate(([0.0], np.cumsum(np.sort(per_slot[cheap]))))  # S(c)
    blocks = np.arange(1, stretches + 1)[:, None]
    bridges = np.arange(stretches)[None, :]
    runs = work + overhead * (blocks - 1)
    inside = np.minimum(longest[np.minimum(blocks + bridges, stretches)], longest[-1])
    bridged = shortest[bridges]
    with np.errstate(invalid="ignore"):
        cheap_runs = np.clip(runs - bridged, 0, inside).astype(np.int64)
    dear = np.maximum(bridged, runs - cheap_runs)
    paid = dear * above if math.isfinite(above) else np.where(dear > 0, math.inf, 0.0)
    return float((sums[cheap_runs] + paid).min())
