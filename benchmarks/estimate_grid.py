"""Time 10,000 estimates over a grid of models, methods, sequence lengths, GPUs and batches.

Run from the repository root:  .venv/bin/python benchmarks/estimate_grid.py
Target: the 10,000 ``estimate()`` calls in under 2 s. Also prints the time with
``to_json()`` (which adds the downgrade advice for jobs that do not fit).
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from comparator.estimate.estimator import EstimateRequest, estimate

ESTIMATES = 10_000
MODELS = (
    "Qwen2.5-0.5B",
    "Qwen2.5-7B",
    "Llama-2-7b",
    "Llama-3.1-8B",
    "Qwen3-14B",
    "Yi-34B",
    "Llama-3.1-70B",
    "Qwen2.5-72B",
    "Mixtral-8x7B",
    "7B",
)
METHODS = ("full", "lora", "qlora")
SEQ_LENS = (512, 2048, 4096, 8192, 32768)
GPUS = ("A100-80G", "H800", "4090", "L40S", "910B")
MICRO_BATCHES = (None, 1, 4)  # None: the estimator chooses the largest that fits
GRAD_CKPT = (True, False)
CARDS = (None, 8)
ZERO = (None, 3)


def grid() -> list[EstimateRequest]:
    points = itertools.product(
        MODELS, METHODS, SEQ_LENS, GPUS, MICRO_BATCHES, GRAD_CKPT, CARDS, ZERO
    )
    requests = [
        EstimateRequest(
            model=model,
            method=method,
            seq_len=seq_len,
            gpu=gpu,
            micro_batch=micro_batch,
            grad_ckpt=ckpt,
            cards=cards,
            zero=zero,
            tokens=10**9,
        )
        for model, method, seq_len, gpu, micro_batch, ckpt, cards, zero in points
    ]
    # 18,000 grid points; 10,000 spread evenly over them (every model, GPU and micro-batch)
    return [requests[i * len(requests) // ESTIMATES] for i in range(ESTIMATES)]


def main() -> None:
    requests = grid()
    started, cpu_started = time.perf_counter(), time.process_time()
    results = [estimate(request) for request in requests]
    estimate_s = time.perf_counter() - started
    cpu_s = time.process_time() - cpu_started
    started = time.perf_counter()
    for result in results:
        result.to_json()
    json_s = time.perf_counter() - started
    fitting = sum(result.fits for result in results)
    print(
        f"grid points:            {len(requests):,} ({fitting:,} fit, "
        f"{len(requests) - fitting:,} do not)"
    )
    print(
        f"estimate():             {estimate_s:.3f} s  "
        f"({estimate_s / len(requests) * 1e6:.0f} µs each; target < 2 s)"
    )
    print(f"  of which CPU time:    {cpu_s:.3f} s  (wall time above also counts other load)")
    print(f"to_json() incl. advice: {json_s:.3f} s  ({json_s / len(requests) * 1e6:.0f} µs each)")


if __name__ == "__main__":
    main()
