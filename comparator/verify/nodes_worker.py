"""One rank of the inter-node all-reduce test: ``python -m comparator.verify.nodes_worker``.

The launcher (:mod:`comparator.verify.nodes`) starts one per host of the host file, locally or
over ssh; each prints one JSON line (its rank, the collective it ran, bytes, seconds, algorithm
and bus bandwidth, whether the sum was right) and exits 0, or prints ``{"error": …}`` and exits 1.

Collectives: ``torch.distributed`` with NCCL (CUDA) or gloo when PyTorch is importable
(``auto`` picks NCCL when a CUDA device is visible, else gloo), else the built-in TCP ring
(:mod:`comparator.verify.ring`, numpy over sockets).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
import time
from typing import Any

import numpy as np

COLLECTIVES = ("auto", "ring", "gloo", "nccl")
WARMUP = 2


def choose(collective: str) -> str:
    """The collective ``auto`` stands for here."""
    if collective != "auto":
        return collective
    if importlib.util.find_spec("torch") is None:
        return "ring"
    torch = importlib.import_module("torch")
    return "nccl" if torch.cuda.is_available() else "gloo"


def _figures(elements: int, seconds: float, iterations: int, world: int) -> dict[str, float]:
    size = elements * 4
    algbw = size * iterations / seconds / 1e9
    return {"seconds": seconds, "algbw_gbs": algbw, "busbw_gbs": algbw * 2 * (world - 1) / world}


def run_ring(args: argparse.Namespace, elements: int) -> dict[str, Any]:
    from comparator.verify.ring import connect_ring, ring_allreduce

    host, port = args.master.rsplit(":", 1)
    ring = connect_ring(args.rank, args.world, (host, int(port)), args.host, args.timeout)
    try:
        check = np.full(elements, args.rank + 1, dtype=np.float32)
        ring_allreduce(ring, check)
        right = bool(np.all(check == args.world * (args.world + 1) / 2))
        work = np.zeros(elements, dtype=np.float32)
        for _ in range(WARMUP):
            ring_allreduce(ring, work)
        began = time.perf_counter()
        for _ in range(args.iterations):
            ring_allreduce(ring, work)
        seconds = time.perf_counter() - began
    finally:
        ring.close()
    return {"sum_right": right, **_figures(elements, seconds, args.iterations, args.world)}


def run_torch(args: argparse.Namespace, elements: int, backend: str) -> dict[str, Any]:
    torch = importlib.import_module("torch")
    dist = importlib.import_module("torch.distributed")
    dist.init_process_group(
        backend, init_method=f"tcp://{args.master}", rank=args.rank, world_size=args.world
    )
    try:
        device = "cpu"
        if backend == "nccl":
            device = f"cuda:{args.local_device}"
            torch.cuda.set_device(args.local_device)
        check = torch.full((elements,), float(args.rank + 1), device=device)
        dist.all_reduce(check)
        right = bool((check == args.world * (args.world + 1) / 2).all().item())
        work = torch.zeros(elements, device=device)
        for _ in range(WARMUP):
            dist.all_reduce(work)
        dist.barrier()
        if backend == "nccl":
            torch.cuda.synchronize()
        began = time.perf_counter()
        for _ in range(args.iterations):
            dist.all_reduce(work)
        if backend == "nccl":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - began
    finally:
        dist.destroy_process_group()
    return {"sum_right": right, **_figures(elements, seconds, args.iterations, args.world)}


def run_torch_as(backend: str) -> Any:
    return lambda args, elements: run_torch(args, elements, backend)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="comparator.verify.nodes_worker")
    parser.add_argument("--rank", type=int, required=True)
    parser.add_argument("--world", type=int, required=True)
    parser.add_argument("--master", required=True, help="HOST:PORT of rank 0")
    parser.add_argument("--host", required=True, help="the name other ranks reach this one by")
    parser.add_argument("--mib", type=float, default=64.0)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--collective", choices=COLLECTIVES, default="auto")
    parser.add_argument("--local-device", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    elements = max(args.world, int(args.mib * (1 << 20)) // 4)
    collective = choose(args.collective)
    report: dict[str, Any] = {"rank": args.rank, "host": args.host, "collective": collective}
    try:
        run = run_ring if collective == "ring" else run_torch_as(collective)
        figures = run(args, elements)
    except Exception as exc:  # reported to the launcher, which judges it
        print(json.dumps({**report, "error": f"{type(exc).__name__}: {exc}"}), flush=True)
        return 1
    print(json.dumps({**report, "bytes": elements * 4, **figures}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
