"""A floor on the run slots of an interruptible job with restart overhead that only grows with
the slot prices (pure; docs/planner-pruning.md, "Sixth round: growth").

A plan of ``b`` blocks (intervals of consecutive runnable slots) runs at least
``N_b = W + o·(b − 1)`` slots (every block after the first begins with ``o`` overhead slots),
each block at most ``R`` slots long (``R ≥`` any optimal plan's run slots:
``selection.lower_bound_cents``'s). A block of ``ℓ`` slots costs at least ``h(ℓ)``, the least
sum of the per-slot prices ``p`` over any ``ℓ`` consecutive slots; so the plan pays at least
``Σ h(ℓ_i) ≥ b·ȟ(N_b / b)``, ``ȟ`` the lower convex envelope of ``h`` on ``[1, R]`` (Jensen;
``ȟ`` never decreases since ``p ≥ 0``, and ``Σ ℓ_i ≥ N_b``). The least of that over ``b`` is
the floor. Where nights are cheap and 8 slots long, a card that must run 52 slots with one slot
of overhead pays 29.5 night prices' worth at least, where the ``W + o`` cheapest said 26.5.

Unlike :mod:`.stretch_bound`, this floor is *monotone*: ``p' ≤ p`` slot by slot (and ``p'``
finite wherever ``p`` is) gives ``h' ≤ h``, ``ȟ' ≤ ȟ`` and a floor no larger; and it is
homogeneous (``n·p`` gives ``n`` times the floor). So a group's or a summary's curve, below
every candidate's slot by slot, keys the walk with a floor no candidate's key goes below
(rule 2, Claim 1).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

CELLS = 1 << 20  # (start, length) pairs read at once


class Envelope:
    """``ȟ`` of one price curve on ``[1, longest]``: its vertices (lengths, least sums)."""

    __slots__ = ("lengths", "sums")

    def __init__(self, lengths: NDArray[np.float64], sums: NDArray[np.float64]) -> None:
        self.lengths, self.sums = lengths, sums

    def floor(self, work: int, overhead: int) -> float | None:
        """The least ``b·ȟ(N_b / b)`` over ``1 ≤ b ≤ work`` blocks whose mean length is at
        most the longest block read (None: no number of blocks fits)."""
        if work < 1 or not len(self.lengths):
            return None
        blocks = np.arange(1, work + 1, dtype=np.float64)
        mean = (work + overhead * (blocks - 1)) / blocks
        fits = mean <= self.lengths[-1]
        if not fits.any():
            return None
        values = blocks[fits] * np.interp(mean[fits], self.lengths, self.sums)
        least = float(values.min())
        return least if math.isfinite(least) else None


def least_sums(per_slot: NDArray[np.float64], longest: int) -> NDArray[np.float64]:
    """``h(ℓ)`` for ``ℓ = 1 … longest``: the least sum of ``per_slot`` over ``ℓ`` consecutive
    finite slots (``inf`` where there is no such run)."""
    slots = len(per_slot)
    longest = min(longest, slots)
    out = np.full(max(longest, 0), np.inf)
    if longest < 1:
        return out
    finite = np.isfinite(per_slot)
    sums = np.concatenate(([0.0], np.cumsum(np.where(finite, per_slot, 0.0))))
    gaps = np.concatenate(([0], np.cumsum(~finite)))
    starts = np.arange(slots)
    step = max(1, CELLS // slots)
    for low in range(1, longest + 1, step):
        lengths = np.arange(low, min(low + step, longest + 1))
        ends = starts[:, None] + lengths[None, :]
        inside = ends <= slots
        ends = np.minimum(ends, slots)
        whole = inside & (gaps[ends] == gaps[starts][:, None])
        window = np.where(whole, sums[ends] - sums[starts][:, None], np.inf)
        out[low - 1 : low - 1 + len(lengths)] = window.min(axis=0)
    return out


def envelope(per_slot: NDArray[np.float64], longest: int) -> Envelope:
    """The lower convex envelope of ``h`` on ``[1, longest']``, ``longest'`` the longest run
    of finite slots if shorter (no block is longer)."""
    h = least_sums(per_slot, longest)
    finite = np.flatnonzero(np.isfinite(h))
    if not len(finite):
        return Envelope(np.zeros(0), np.zeros(0))
    top = int(finite[-1]) + 1  # h is finite exactly up to the longest run
    xs: list[float] = []
    ys: list[float] = []
    for x, y in zip(range(1, top + 1), h[:top].tolist(), strict=True):
        while len(xs) >= 2 and (ys[-1] - ys[-2]) * (x - xs[-2]) >= (y - ys[-2]) * (xs[-1] - xs[-2]):
            xs.pop()
            ys.pop()
        xs.append(float(x))
        ys.append(y)
    return Envelope(np.array(xs), np.array(ys))


def least_over_lengths(
    per_slot: NDArray[np.float64], work: int, overhead: int, longest: int
) -> float | None:
    """The floor of any plan of ``work`` work slots, ``overhead`` slots at each restart and
    blocks of at most ``longest`` slots (None: none fits)."""
    return envelope(per_slot, longest).floor(work, overhead)
