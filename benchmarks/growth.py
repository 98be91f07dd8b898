"""Growth of a quote's wall time from a small catalog to one ten times larger (issue #26, item 2).

    .venv/bin/python benchmarks/growth.py SMALL.db LARGE.db [--rounds 10] [--tree DIR ...]
        [--job examples/lora-7b-guangdong.toml]

SMALL.db and LARGE.db are SQLite catalogs (e.g. kept by ``benchmarks/scale.py --keep``: 100k
and 1M offers). Each run quotes the job as a new user would (``python -m comparator … quote
--json``, a process of its own) on a fresh copy of the catalog (a quote stores itself), with
the code of each ``--tree`` (a checkout; default: this one), its bytecode compiled first. The
runs interleave: every round quotes each tree on both catalogs, the order turned round every
other round, so that a change in the machine's load falls on all of them alike. It prints
each tree's median and least wall time per catalog and their ratios, large over small; the
issue's target is a median ratio of at most 1.5.

A single run says little on a shared machine: three runs of each size one after the other
(the earlier ``growth.sh``) gave ratios from 1.44 to 1.61 for the same code within an hour.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def quote_s(tree: Path, catalog: Path, job: str, scratch: Path) -> tuple[float, str]:
    """(wall s, total cost) of one quote by ``tree``'s code on a copy of ``catalog``."""
    copy = scratch / "catalog.db"
    shutil.copyfile(catalog, copy)
    command = [sys.executable, "-m", "comparator", "--db", f"sqlite:///{copy}", "--lang", "en"]
    command += ["quote", job, "--today", "2026-11-29", "--json", "-o", str(scratch / "q.html")]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    wall_s = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{tree}: the quote failed:\n{done.stderr[-2000:]}")
    return wall_s, str(json.loads(done.stdout)["total_cost"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("small", type=Path, help="the smaller SQLite catalog")
    parser.add_argument("large", type=Path, help="the catalog ten times larger")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--tree", type=Path, action="append", help="a checkout (repeatable)")
    parser.add_argument("--job", default="examples/lora-7b-guangdong.toml")
    args = parser.parse_args()
    trees = [t.resolve() for t in args.tree or [HERE]]
    for tree in trees:
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "comparator", "providers"],
            cwd=tree,
            check=True,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""},
        )
    sizes = {"small": args.small.resolve(), "large": args.large.resolve()}
    walls: dict[tuple[Path, str], list[float]] = {(t, s): [] for t in trees for s in sizes}
    totals: dict[tuple[Path, str], set[str]] = {(t, s): set() for t in trees for s in sizes}
    print(f"# load {os.getloadavg()[0]:.1f} at the start", flush=True)
    with tempfile.TemporaryDirectory(prefix="suanli-growth-") as folder:
        for n in range(args.rounds):
            order = [(t, s) for t in trees for s in sizes]
            for tree, size in order if n % 2 == 0 else order[::-1]:
                wall_s, total = quote_s(tree, sizes[size], args.job, Path(folder))
                walls[tree, size].append(wall_s)
                totals[tree, size].add(total)
            print(f"# round {n + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    print(f"# load {os.getloadavg()[0]:.1f} at the end")
    for tree in trees:
        small, large = walls[tree, "small"], walls[tree, "large"]
        median = statistics.median(large) / statistics.median(small)
        least = min(large) / min(small)
        print(
            f"{tree}: small median {statistics.median(small):.3f} s (least {min(small):.3f}),"
            f" large median {statistics.median(large):.3f} s (least {min(large):.3f});"
            f" growth by medians {median:.2f}x, by least {least:.2f}x;"
            f" totals {sorted(totals[tree, 'small'])} / {sorted(totals[tree, 'large'])}"
        )


if __name__ == "__main__":
    main()
