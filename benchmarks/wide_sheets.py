"""Wide sheets: how long a sheet far wider than the limit takes to be refused.

    .venv/bin/python benchmarks/wide_sheets.py [--runs 3] [--keys 1000000]

Builds a JSON sheet that is one object with a million keys, a JSON list whose one row has a
million keys, and a CSV with a million columns, and prints for each the time ``parse_sheet``
takes to refuse it (the median and the least of the runs, which a busy shared machine disturbs
least, and the process's CPU time, which it disturbs less), with the load average beside it.
The issue's target: under 2 s each (#27).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from comparator.errors import InputError
from providers.sheet.parse import KnownCatalog, parse_sheet


def sheets(keys: int) -> dict[str, bytes]:
    row = {f"k{i}": "1" for i in range(keys)}
    header = ",".join(f"c{i}" for i in range(keys))
    return {
        "object.json": json.dumps(row).encode(),
        "row.json": json.dumps([row]).encode(),
        "wide.csv": (header + "\n" + ",".join("1" * keys) + "\n").encode(),
    }


def refuse_s(content: bytes, name: str) -> tuple[float, float]:
    """(wall s, CPU s of this process) until ``parse_sheet`` refuses the sheet."""
    started, cpu = time.perf_counter(), time.process_time()
    try:
        parse_sheet(content, name, KnownCatalog({}))
    except InputError:
        return time.perf_counter() - started, time.process_time() - cpu
    raise SystemExit(f"{name} was accepted")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keys", type=int, default=1_000_000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for name, content in sheets(args.keys).items():
        runs = [refuse_s(content, name) for _ in range(args.runs)]
        wall, cpu = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"{name:12} {len(content) / 2**20:6.1f} MiB  refused in median "
            f"{statistics.median(wall):.2f} s, least {min(wall):.2f} s "
            f"(CPU median {statistics.median(cpu):.2f} s)"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
