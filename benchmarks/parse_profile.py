"""How fast provider profiles are parsed: ``parse_profile`` over the demo profiles, the test
profiles that parse, and a generated national-scale set (:mod:`benchmarks.scale_catalog`).

Profiles are parsed in bulk (a 30,000-provider import, 10,000 per quote), so this prints
profiles per CPU second. The TOML is read once up front: only ``parse_profile`` is timed.
``--repo`` points at another checkout (say main) to measure its parser in the same run:

    .venv/bin/python benchmarks/parse_profile.py --generated 3000 --repo /work/main
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]


def documents(repo: Path, generated: int) -> list[tuple[str, dict[str, Any]]]:
    """(source, parsed TOML) of the demo and test profiles, then ``generated`` more."""
    sys.path.insert(0, str(HERE))
    from benchmarks.scale_catalog import DATACENTER, PROFILE, datacenters, provider_id

    paths = sorted((HERE / "providers" / "demo").glob("*.toml"))
    paths += [HERE / "tests" / "data" / "profiles" / n for n in ("acme.toml", "northsouth.toml")]
    found = [(str(p), tomllib.loads(p.read_text(encoding="utf-8"))) for p in paths]
    rng = random.Random(15)
    for n in range(generated):
        pid = provider_id(n)
        text = PROFILE.format(pid=pid, n=n) + "".join(
            DATACENTER.format(dc=dc, province=p, city=c, i=i)
            for i, (dc, p, c) in enumerate(datacenters(rng, n))
        )
        found.append((f"{pid}.toml", tomllib.loads(text)))
    return found


def measure(repo: Path, docs: list[tuple[str, dict[str, Any]]], rounds: int) -> float:
    """Seconds of the fastest of ``rounds`` passes of ``repo``'s parse_profile over ``docs``."""
    sys.path.insert(0, str(repo))
    parse = importlib.import_module("comparator.domain.profile").parse_profile
    parse(docs[0][1], docs[0][0])  # warm: imports and caches
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()  # CPU time: the machine is shared
        for source, data in docs:
            parse(data, source)
        best = min(best, time.process_time() - start)
    return best


def in_child(repo: Path, generated: int, rounds: int) -> float:
    """:func:`measure` in a fresh interpreter (each checkout imports its own ``comparator``)."""
    command = [sys.executable, __file__, "--child", str(repo), "--generated", str(generated)]
    out = subprocess.run([*command, "--rounds", str(rounds)], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generated", type=int, default=3000, help="generated profiles")
    parser.add_argument("--rounds", type=int, default=3, help="passes per interpreter")
    parser.add_argument("--turns", type=int, default=3, help="interpreters per checkout")
    parser.add_argument("--repo", type=Path, help="also measure this checkout (the baseline)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    docs = documents(HERE, args.generated)
    if args.child is not None:
        print(measure(args.child, docs, args.rounds))
        return
    print(
        f"load {os.getloadavg()[0]:.2f}; {len(docs)} profiles; best of {args.turns}×{args.rounds}"
    )
    repos = [HERE] + ([args.repo.resolve()] if args.repo is not None else [])
    best = dict.fromkeys(repos, float("inf"))
    for _ in range(args.turns):  # alternate, so both see the same load
        for repo in repos:
            best[repo] = min(best[repo], in_child(repo, args.generated, args.rounds))
    for repo in repos:
        print(f"{repo}: {len(docs) / best[repo]:,.0f} profiles/s")
    if args.repo is not None:
        ratio = best[args.repo.resolve()] / best[HERE]
        print(f"speed ratio this checkout / {args.repo}: {ratio:.2f}")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
