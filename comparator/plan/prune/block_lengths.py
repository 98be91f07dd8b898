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

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray


class Envelope:
    """``ȟ`` of one price curve on ``[1, longest]``: its vertices (lengths, least sums)."""

    __slots__ = ("lengths", "sums")

    def __init__(self, lengths: NDArray[np.float64], sums: NDArray[np.float64]) -> None:
        self.lengths, self.sums = lengths, sums

    def floor(self, work: int, overhead: int) -> float | None:
        """The least ``b·ȟ(N_b / b)`` over ``1 ≤ b ≤ work`` blocks whose mean length is at
        most the longest block read (None: no number of blocks fits)."""
        floors = self.floors([work], overhead)
        return None if floors is None else float(floors[0])

    def floors(self, works: Sequence[int], overhead: int) -> NDArray[np.float64] | None:
        """:meth:`floor` of each of ``works`` (None: one of them fits no number of blocks)."""
        if not len(self.lengths) or min(works) < 1:
            return None
        work = np.asarray(works, dtype=np.float64)[:, None]
        blocks = np.arange(1, max(works) + 1, dtype=np.float64)[None, :]
        mean = (work + overhead * (blocks - 1)) / blocks
        fits = (mean <= self.lengths[-1]) & (blocks <= work)
        if not fits.any(axis=1).all():
            return None
        at = np.interp(np.where(fits, mean, 1.0), self.lengths, self.sums)
        values = np.where(fits, blocks * at, np.inf)
        least: NDArray[np.float64] = values.min(axis=1)
        return least


def least_sums(per_slot: NDArray[np.float64], longest: int) -> NDArray[np.float64]:
    """``h(ℓ)`` for ``ℓ = 1 … longest``: the least sum of ``per_slot`` over ``ℓ`` consecutive
    finite slots (``inf`` where there is no such run), run by run of finite slots."""
    longest = min(longest, len(per_slot))
    out = np.full(max(longest, 0), np.inf)
    if longest < 1:
        return out
    finite = np.concatenate(([False], np.isfinite(per_slot), [False]))
    edges = np.diff(finite.astype(np.int8))
    for start, end in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
        run = per_slot[start:end]
        reach = min(longest, len(run))
        sums = np.concatenate(([0.0], np.cumsum(run), np.full(reach, np.inf)))
        windows = np.lib.stride_tricks.sliding_window_view(sums, reach + 1)[: len(run)]
        least = (windows[:, 1:] - windows[:, :1]).min(axis=0)
        np.minimum(out[:reach], least, out=out[:reach])
    return out


def envelope(per_slot: NDArray[np.float64], longest: int) -> Envelope:
    """The lower convex envelope of ``h`` on ``[1, longest']``, ``longest'`` the longest run
    of finite slots if shorter (no block is longer): a point above the chord of its
    neighbours is on no lower envelope, so all such are dropped until none is left."""
    h = least_sums(per_slot, longest)
    top = int(np.isfinite(h).sum())  # h is finite exactly up to the longest run
    xs = np.arange(1, top + 1, dtype=np.float64)
    ys = h[:top]
    while len(xs) > 2:
        dx, dy = np.diff(xs), np.diff(ys)
        above = dy[:-1] * dx[1:] >= dy[1:] * dx[:-1]  # slope in ≥ slope out: not convex there
        if not above.any():
            break
        keep = np.concatenate(([True], ~above, [True]))
        xs, ys = xs[keep], ys[keep]
    return Envelope(xs, ys)


def least_over_lengths(
    per_slot: NDArray[np.float64], work: int, overhead: int, longest: int
) -> float | None:
    """The floor of any plan of ``work`` work slots, ``overhead`` slots at each restart and
    blocks of at most ``longest`` slots (None: none fits)."""
    return envelope(per_slot, longest).floor(work, overhead)
