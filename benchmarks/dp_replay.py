"""Replay the schedule problems a quote solves, timing the planner's DP against the reference.

``capture`` runs `suanli quote JOB` in this process on a catalog (copy a kept one first: a quote
stores itself) and pickles every problem the walk hands to ``solve_schedule``; ``replay`` then
solves each pickled problem with the DP as it was before issue #26
(``tests.support.dp_reference``, unchanged) and with the planner's, alternately in one run,
checks that both give the same cost for every finish slot and the same cheapest schedule, and
prints the time per solve of each (best of ``--repeat``) and their ratio::

    .venv/bin/python benchmarks/dp_replay.py capture --db sqlite:////tmp/me.db \
        --job examples/lora-7b-guangdong.toml --out /tmp/lora.pkl
    .venv/bin/python benchmarks/dp_replay.py replay /tmp/lora.pkl /tmp/13b.pkl

The quote command's own figures come from ``/usr/bin/time`` around `suanli quote` (see
docs/planner-pruning.md); this script isolates the DP.

Measured 2026-12-03 on the shared 2-core machine (load 11 to 16: compare CPU seconds), copies
of the kept 1M-offer benchmark catalog (SQLite). ``replay`` of the LoRA quote's 218 solves
(pre-#26 walk), best of 5: 4.62 -> 2.06 ms CPU per solve (2.2x); the 13B job's 44: 3.62 ->
2.31 ms (1.6x); the windowed storage job's 7: 9.31 -> 7.15 ms; the 70B job's 25: 1.22 ->
0.78 ms. ``capture`` in each tree: the README's LoRA quote spent 1.44 CPU s in 218 solves of
its 3.54 (``make_quote``) on main and 0.41 s in 104 solves of its 2.63 with the faster DP and
the interruptible bound (docs/planner-pruning.md, rule 2); the seeds' 13B 0.24 s (44 solves)
of 11.7 -> 0.15 s of 11.0.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TODAY = "2026-11-29"


def capture(url: str, job: str, out: str) -> None:
    from datetime import date

    from comparator.catalog.db import make_engine
    from comparator.config import load_settings
    from comparator.plan import selection
    from comparator.services.quoting import make_quote

    problems: list[Any] = []
    spent = [0.0]
    solve = selection.solve_schedule

    def recording(problem: Any, **kwargs: Any) -> Any:
        problems.append(problem)
        started = time.process_time()
        try:
            return solve(problem, **kwargs)
        finally:
            spent[0] += time.process_time() - started

    selection.solve_schedule = recording  # type: ignore[assignment]
    engine = make_engine(url)
    started = time.process_time()
    make_quote(engine, job, load_settings({}), today=date.fromisoformat(TODAY), lang="en")
    quote = time.process_time() - started
    Path(out).write_bytes(pickle.dumps(problems))
    print(
        f"{job}: {len(problems)} problems solved in {spent[0]:.3f} CPU s of the quote's "
        f"{quote:.2f} (make_quote, imports apart) -> {out}"
    )


def _answer(profile: Any) -> tuple[Any, ...]:
    best = profile.cheapest()
    plan = profile.schedule(best) if best is not None else None
    return tuple(profile.costs_cents), best, plan


def _timed(solve: Any, problems: list[Any]) -> float:
    started = time.process_time()
    for problem in problems:
        solve(problem, keep_trace=True)
    return time.process_time() - started


def replay(paths: list[str], repeat: int) -> None:
    from comparator.plan.dp.dp_solver import solve_schedule as new
    from tests.support.dp_reference.reference_solver import solve_schedule as old

    for path in paths:
        problems = pickle.loads(Path(path).read_bytes())
        for problem in problems:  # the same answers, to the cent and the schedule
            if _answer(old(problem)) != _answer(new(problem)):
                raise SystemExit(f"{path}: the DPs differ on a problem")
        before = after = float("inf")
        for _ in range(repeat):
            before = min(before, _timed(old, problems))
            after = min(after, _timed(new, problems))
        count = max(len(problems), 1)
        print(
            f"{Path(path).name}: {len(problems)} solves, same answers; per solve "
            f"{before / count * 1e3:.2f} ms -> {after / count * 1e3:.2f} ms CPU "
            f"({before / max(after, 1e-9):.2f}x; totals {before:.3f} -> {after:.3f} s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    grab = commands.add_parser("capture")
    grab.add_argument("--db", required=True)
    grab.add_argument("--job", required=True)
    grab.add_argument("--out", required=True)
    again = commands.add_parser("replay")
    again.add_argument("pickles", nargs="+")
    again.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.command == "capture":
        capture(args.db, args.job, args.out)
    else:
        replay(args.pickles, args.repeat)


if __name__ == "__main__":
    main()
