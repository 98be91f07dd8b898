"""How fast provider profiles are parsed: ``parse_profile`` over the demo profiles, the test
profiles that parse, and a generated national-scale set (:mod:`benchmarks.scale_catalog`).

Profiles are parsed in bulk (a 30,000-provider import, 10,000 per quote), so this prints
profiles per CPU second, and how fast the catalog's record of each parsed profile reads back
(``profile_from_record``, issue #29). The TOML is read once up front: only ``parse_profile``
and the record's reading are timed.
``--repo`` points at another checkout (say main) to measure its parser in the same run:

    .venv/bin/python benchmarks/parse_profile.py --generated 3000 --repo OTHER_CHECKOUT
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
from collections.abc import Callable
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


def measure(repo: Path, docs: list[tuple[str, dict[str, Any]]], rounds: int) -> list[float]:
    """Seconds of the fastest of ``rounds`` passes of ``repo``'s parse_profile over ``docs``,
    then (where ``repo`` has them) of reading each parsed profile back from its catalog record
    (``profile_from_record``), as the catalog's readers do."""
    sys.path.insert(0, str(repo))
    parse = importlib.import_module("comparator.domain.profile").parse_profile
    parse(docs[0][1], docs[0][0])  # warm: imports and caches
    passes: list[Callable[[], object]] = [lambda: [parse(data, src) for src, data in docs]]
    try:
        records = importlib.import_module("comparator.domain.profile_record")
    except ImportError:
        records = None
    if records is not None:
        stored = [records.profile_record(parse(data, src)) for src, data in docs]
        passes.append(lambda: [records.profile_from_record(text) for text in stored])
    best = [float("inf")] * len(passes)
    for _ in range(rounds):
        for i, one_pass in enumerate(passes):
            start = time.process_time()  # CPU time: the machine is shared
            one_pass()
            best[i] = min(best[i], time.process_time() - start)
    return best


def in_child(repo: Path, generated: int, rounds: int) -> list[float]:
    """:func:`measure` in a fresh interpreter (each checkout imports its own ``comparator``)."""
    command = [sys.executable, __file__, "--child", str(repo), "--generated", str(generated)]
    out = subprocess.run([*command, "--rounds", str(rounds)], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    return [float(x) for x in out.stdout.split()]


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
        print(*measure(args.child, docs, args.rounds))
        return
    print(
        f"load {os.getloadavg()[0]:.2f}; {len(docs)} profiles; best of {args.turns}×{args.rounds}"
    )
    repos = [HERE] + ([args.repo.resolve()] if args.repo is not None else [])
    best: dict[Path, list[float]] = {}
    for _ in range(args.turns):  # alternate, so both see the same load
        for repo in repos:
            found = in_child(repo, args.generated, args.rounds)
            best[repo] = [min(pair) for pair in zip(best.get(repo, found), found, strict=True)]
    for repo in repos:
        parse_s, *record_s = best[repo]
        line = f"{repo}: parse_profile {parse_s / len(docs) * 1e6:.1f} µs a profile"
        line += f" ({len(docs) / parse_s:,.0f}/s)"
        if record_s:
            line += f"; from its record {record_s[0] / len(docs) * 1e6:.1f} µs"
            line += f" ({len(docs) / record_s[0]:,.0f}/s)"
        print(line)
    if args.repo is not None:
        ratio = best[args.repo.resolve()][0] / best[HERE][0]
        print(f"parse_profile speed ratio this checkout / {args.repo}: {ratio:.2f}")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
