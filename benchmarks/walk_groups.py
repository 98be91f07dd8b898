"""How many of the groups the cost walk expands could a tighter group key leave unexpanded
(docs/planner-pruning.md, "Fifth round: growth").

    .venv/bin/python benchmarks/walk_groups.py sqlite:///CATALOG.db [JOB.toml]

Quotes the job (default: the README's LoRA job, as of 2026-11-29) in process and, for every
group the walk expanded, builds each card count's candidate and takes the least of its bound
(``candidate_bound_cents``) and of the larger of that and the stretch bound; prints how many
groups have one not above the final ``(top+1)``-th ranked cost. Writes a stored quote.
"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's code, not the installed one

from comparator.catalog.db import make_engine  # noqa: E402
from comparator.config import load_settings  # noqa: E402
from comparator.plan.prune import pruning  # noqa: E402
from comparator.plan.selection import candidate_bound_cents, stretch_bound_cents  # noqa: E402
from comparator.services.quoting import make_quote  # noqa: E402


def main(url: str, job: Path) -> None:
    expanded: list[tuple[Any, list[Any]]] = []
    counts = pruning._Walk.counts

    def recorded(walk: Any, g: Any, index: int, least: Any) -> list[Any]:
        entries = counts(walk, g, index, least)
        expanded.append((walk, entries))
        return entries

    pruning._Walk.counts = recorded  # type: ignore[method-assign]
    make_quote(make_engine(url), job, load_settings({}), today=date(2026, 11, 29), lang="en")
    threshold = expanded[0][0].threshold[0] if expanded else None
    keyed = stretched = 0
    for walk, entries in expanded:
        bounds = [b for entry in entries if (b := _bounds(walk, entry)) is not None]
        keyed += any(b <= threshold for b, _ in bounds)
        stretched += any(s <= threshold for _, s in bounds)
    print(f"(top+1)-th cost {threshold} cents; groups expanded {len(expanded)}")
    print(f"  with a candidate bound not above it: {keyed}")
    print(f"  with max(bound, stretch bound) not above it: {stretched}")


def _bounds(walk: Any, entry: Any) -> tuple[int, int] | None:
    key, _index, _position, _stage, (g, cards) = entry
    if key == pruning.FIRST:
        return None
    candidate = walk.lazy.builder.candidate(g.key, g.offers, g.prices, g.work, cards, g.grid)
    bound = candidate_bound_cents(candidate)
    if bound is None:
        return None
    stretch = stretch_bound_cents(candidate.problem)
    return bound, bound if stretch is None else max(bound, stretch + candidate.bill.fixed_cents)


if __name__ == "__main__":
    main(
        sys.argv[1],
        Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "examples/lora-7b-guangdong.toml",
    )
