"""The MILP as HiGHS takes it: a sparse model of binary variables built row by row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

THREADS = 1  # HiGHS keeps one thread scheduler per process: every instance must ask alike


def new_highs(*, log: bool = False, **options: float) -> Any:
    """A HiGHS with a fixed seed on ``THREADS`` threads (a later instance asking for another
    count fails to run: "the scheduler has already been initialized") and ``options``; silent
    unless ``log`` (:attr:`comparator.plan.context.PlanContext.solver_log`).

    Silence is HiGHS's own: ``output_flag`` and ``log_to_console`` are the first calls on the
    instance, before any that logs (HiGHS logs its banner on the first call after options,
    github.com/ERGO-Code/HiGHS/issues/1702). That is why this is highspy's core class: the
    ``highspy.Highs`` wrapper registers its callbacks in its constructor, which prints the
    banner before an option can be set. Nothing redirects the process's stdout."""
    from highspy._core import _Highs  # HiGHS loads only when several jobs share stock

    highs = _Highs()
    for name, value in {
        "output_flag": log,
        "log_to_console": log,
        "threads": THREADS,
        "random_seed": 0,
        **options,
    }.items():
        highs.setOptionValue(name, value)
    return highs


class Model:
    """A sparse MILP built row by row (all variables binary)."""

    def __init__(self) -> None:
        self.cost: list[float] = []
        self.rows: list[tuple[list[int], list[float], float, float]] = []

    def var(self, cost: float = 0.0) -> int:
        self.cost.append(cost)
        return len(self.cost) - 1

    def row(self, terms: Sequence[tuple[int, float]], low: float, high: float) -> None:
        self.rows.append(([i for i, _ in terms], [v for _, v in terms], low, high))

    def lp(self) -> Any:
        import highspy  # HiGHS loads only when several jobs share stock, not for `plan --help`

        lp = highspy.HighsLp()
        lp.num_col_ = len(self.cost)
        lp.num_row_ = len(self.rows)
        lp.col_cost_ = np.array(self.cost)
        lp.col_lower_ = np.zeros(len(self.cost))
        lp.col_upper_ = np.ones(len(self.cost))
        lp.row_lower_ = np.array([r[2] for r in self.rows])
        lp.row_upper_ = np.array([r[3] for r in self.rows])
        starts = np.cumsum([0] + [len(r[0]) for r in self.rows])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = starts
        lp.a_matrix_.index_ = np.array([i for r in self.rows for i in r[0]], dtype=np.int32)
        lp.a_matrix_.value_ = np.array([v for r in self.rows for v in r[1]])
        lp.integrality_ = [highspy.HighsVarType.kInteger] * len(self.cost)
        return lp


INF = float("inf")
