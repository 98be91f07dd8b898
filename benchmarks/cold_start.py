"""Cold start: how long `suanli --help` and `suanli offers` spend importing modules.

    .venv/bin/python benchmarks/cold_start.py [--runs 3]

Runs each command under ``python -X importtime`` (a demo catalog in a temporary SQLite file for
`offers`), and prints the import time (sum of the modules' own times; the median of the runs and
the least, which a busy shared machine disturbs least; target < 0.3 s for --help), the heaviest
top-level packages, and whether `offers` loaded Alembic (target: no). The wall time of each
command is printed beside it.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def importtime(argv: list[str]) -> tuple[float, float, Counter[str]]:
    """(wall s, import s, import s per top-level package) of ``python -m comparator ARGV``."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "comparator", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    if proc.returncode:
        raise SystemExit(f"{argv} failed:\n{proc.stderr[-2000:]}")
    per_package: Counter[str] = Counter()
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _, name = line.removeprefix("import time:").split("|")
        per_package[name.strip().split(".")[0]] += int(own)
    return wall, sum(per_package.values()) / 1e6, per_package


def report(label: str, argv: list[str], runs: int, target: str) -> Counter[str]:
    results = [importtime(argv) for _ in range(runs)]
    wall = statistics.median(r[0] for r in results)
    imports = statistics.median(r[1] for r in results)
    least = min(r[1] for r in results)
    packages = min(results, key=lambda r: r[1])[2]
    heaviest = ", ".join(f"{p} {us / 1e3:.0f} ms" for p, us in packages.most_common(6))
    print(
        f"{label:16} imports {imports:.3f} s median, {least:.3f} s least ({target}), "
        f"wall {wall:.3f} s — {heaviest}"
    )
    return packages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    report("suanli --help", ["--help"], args.runs, "target < 0.3 s")
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'demo.db'}"
        subprocess.run(
            [sys.executable, "-m", "comparator", "--db", db, "init"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        packages = report("suanli offers", ["--db", db, "offers", "--json"], args.runs, "")
        loaded = "loaded" if "alembic" in packages else "not loaded"
        print(f"{'':16} Alembic {loaded} by `offers` (target: not loaded)")


if __name__ == "__main__":
    main()
