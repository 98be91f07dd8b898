"""The inter-node check: an all-reduce across the rented machines of a host file, its bus
bandwidth, and the judgement against the offer's stated node network.

:func:`run_nodes` starts one rank per host (:mod:`comparator.verify.nodes_worker`): on this
machine for ``localhost``/``127.0.0.1``/``::1``, else over ``ssh HOST python3 -m …`` (suanli
installed on every node); rank 0 is the first host. It collects each rank's JSON line and
keeps the slowest rank's figures (an all-reduce is as fast as its slowest link).
:func:`nodes_check` compares the bus bandwidth with the offer's network (``IB 200G`` → 25 GB/s
per node): pass at ≥ 70 % (the same ratio as the single-machine NCCL check), warn at ≥ 35 %,
fail below; without a stated network the figure is reported, not judged.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from comparator.domain.links import parse_network
from comparator.errors import InputError, Msg
from comparator.i18n import say
from comparator.verify.checks import AcceptanceCheck

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
DEFAULT_PORT = 29533
PASS_RATIO, WARN_RATIO = 0.70, 0.35


@dataclass(frozen=True)
class NodeRun:
    """What the ranks reported: every rank's line, and the slowest rank's figures."""

    hosts: tuple[str, ...]
    collective: str
    ranks: tuple[dict[str, Any], ...] = ()
    busbw_gbs: float | None = None
    algbw_gbs: float | None = None
    bytes: int | None = None
    error: str | None = None
    sum_right: bool = False

    def to_json(self) -> dict[str, Any]:
        document = asdict(self)
        document["hosts"], document["ranks"] = list(self.hosts), list(self.ranks)
        return document


def read_hostfile(path: Path) -> list[str]:
    """One host per line (``host`` or ``host slots=N``; ``#`` starts a comment)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            "--nodes {path}: cannot read the host file ({reason})",
            path=str(path),
            reason=exc,
            hint=Msg(
                "write the host file with one host (a name or an address) per line, at least two"
            ),
        ) from None
    hosts = [line.split("#", 1)[0].split()[0] for line in lines if line.split("#", 1)[0].strip()]
    if len(hosts) < 2:
        raise InputError(
            "--nodes {path}: expected at least two hosts, one per line (got {count})",
            path=str(path),
            count=len(hosts),
            hint=Msg(
                "write the host file with one host (a name or an address) per line, at least two"
            ),
        )
    return hosts


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("", 0))
        return int(probe.getsockname()[1])


def _command(host: str, arguments: list[str]) -> list[str]:
    module = ["-m", "comparator.verify.nodes_worker", *arguments]
    if host in LOCAL_HOSTS:
        return [sys.executable, *module]
    return ["ssh", "-o", "BatchMode=yes", host, "python3", *module]


def run_nodes(
    hosts: list[str],
    *,
    collective: str = "auto",
    mib: float = 64.0,
    iterations: int = 10,
    timeout_s: float = 300.0,
) -> NodeRun:
    """Start one rank per host, wait for all, and gather their figures."""
    local = all(h in LOCAL_HOSTS for h in hosts)
    master = f"{hosts[0]}:{_free_port() if local else DEFAULT_PORT}"
    common = ["--world", str(len(hosts)), "--master", master, "--mib", str(mib)]
    common += ["--iterations", str(iterations), "--collective", collective]
    common += ["--timeout", str(timeout_s)]
    processes = [
        subprocess.Popen(
            _command(host, ["--rank", str(rank), "--host", host, *common]),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank, host in enumerate(hosts)
    ]
    lines = [_collect(process, rank, timeout_s) for rank, process in enumerate(processes)]
    return _gathered(tuple(hosts), collective, lines)


def _collect(process: subprocess.Popen[str], rank: int, timeout_s: float) -> dict[str, Any]:
    try:
        out, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return {"rank": rank, "error": f"no answer within {timeout_s:g} s"}
    for line in reversed(out.splitlines()):
        try:
            found = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(found, dict):
            return found
    tail = (err.strip().splitlines() or ["no output"])[-1]
    return {"rank": rank, "error": f"exit {process.returncode}: {tail}"}


def _gathered(hosts: tuple[str, ...], collective: str, lines: list[dict[str, Any]]) -> NodeRun:
    failed = [line for line in lines if "error" in line]
    if failed:
        first = failed[0]
        error = f"rank {first.get('rank')}: {first['error']}"
        return NodeRun(hosts, collective, tuple(lines), error=error)
    slowest = min(lines, key=lambda line: float(line["busbw_gbs"]))
    return NodeRun(
        hosts,
        str(slowest.get("collective") or collective),
        tuple(lines),
        busbw_gbs=float(slowest["busbw_gbs"]),
        algbw_gbs=float(slowest["algbw_gbs"]),
        bytes=int(slowest["bytes"]),
        sum_right=all(bool(line.get("sum_right")) for line in lines),
    )


def nodes_check(run: NodeRun, network: str | None, lang: str) -> AcceptanceCheck:
    """The run judged against the offer's node network (``network``: its stated text)."""
    what = say(
        lang,
        "all-reduce bus bandwidth across {count} machines ({collective})",
        count=len(run.hosts),
        collective=run.collective,
    )
    if run.error is not None or run.busbw_gbs is None:
        return AcceptanceCheck(
            "nodes_bandwidth",
            "fail",
            say(lang, "inter-node all-reduce failed: {error}", error=run.error or "?"),
        )
    if not run.sum_right:
        return AcceptanceCheck(
            "nodes_bandwidth",
            "fail",
            say(
                lang,
                "{what}: the sums came out wrong; the network or the software is broken",
                what=what,
            ),
        )
    shown = f"{run.busbw_gbs:.2f} GB/s"
    link = parse_network(network)
    if link is None:
        return AcceptanceCheck(
            "nodes_bandwidth",
            "pass",
            say(lang, "{what}: {values} (no registry spec to compare)", what=what, values=shown),
        )
    expected = link.gbps / 8
    ratio = run.busbw_gbs / expected
    status = "pass" if ratio >= PASS_RATIO else "warn" if ratio >= WARN_RATIO else "fail"
    spec = f"{expected:g} GB/s ({network})"
    if status == "pass":
        message = say(lang, "{what}: {values}, spec {spec}", what=what, values=shown, spec=spec)
    else:
        message = say(
            lang,
            "{what} {value}, only {ratio:.0%} of the spec {spec}",
            what=what,
            value=shown,
            ratio=ratio,
            spec=spec,
        )
    return AcceptanceCheck("nodes_bandwidth", status, message)
