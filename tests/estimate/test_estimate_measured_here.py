"""The estimator against training steps measured on lent GPU machines (held out of the fit).

``tests/data/throughput/measured/*.jsonl`` are ``benchmarks/train_step.py`` documents as
``benchmarks/gpu_machine.sh`` wrote them on an H200 (README.md beside them). They are not in
``runs.json``, so the throughput fit never saw them: each job is estimated again here with the
same request and compared with what the card did.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from comparator.domain.gpus import find_gpu
from comparator.estimate.estimator import EstimateRequest, estimate

ROOT = Path(__file__).parents[2]
MEASURED = ROOT / "tests" / "data" / "throughput" / "measured"
TOKENS = 10**9


def _jobs() -> list[dict[str, Any]]:
    jobs = []
    for path in sorted(MEASURED.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            job = json.loads(line)
            job["file"] = path.name
            jobs.append(job)
    return jobs


JOBS = _jobs()


def _estimated(job: dict[str, Any]) -> dict[str, Any]:
    gpu = find_gpu(job["card"])
    assert gpu is not None, job["card"]
    request = EstimateRequest(
        model=str(ROOT / job["config"]),
        method=job["method"],
        lora_rank=job["lora_rank"] or 16,
        seq_len=job["seq_len"],
        micro_batch=job["micro_batch"],
        grad_ckpt=job["grad_ckpt"],
        tokens=TOKENS,
        gpu=gpu.name,
        cards=1,
        stack="hf",
    )
    return estimate(request).to_json()


def _tokens_per_s(hours: float) -> float:
    return TOKENS / (hours * 3600)


def _label(job: dict[str, Any]) -> str:
    return f"{job['file']}:{Path(job['config']).stem}-{job['method']}-mb{job['micro_batch']}"


def test_the_measurements_cover_full_lora_and_recomputation() -> None:
    assert len(JOBS) >= 10
    assert {job["method"] for job in JOBS} == {"full", "lora"}
    assert {job["grad_ckpt"] for job in JOBS} == {True, False}
    assert all(job["card"] == "NVIDIA H200" and job["peak_reserved_gib"] > 0 for job in JOBS)


@pytest.mark.parametrize("job", JOBS, ids=_label)
def test_every_measured_step_lies_in_the_estimated_range(job: dict[str, Any]) -> None:
    document = _estimated(job)
    slowest = _tokens_per_s(document["hours_range"]["high"])
    fastest = _tokens_per_s(document["hours_range"]["low"])
    assert slowest <= job["tokens_per_s_per_card"] <= fastest
    assert document["fits"]


def test_tokens_per_s_within_15_percent_at_the_median_and_memory_within_20() -> None:
    """Figures of 2026-12-04: tokens/s 0.72–0.98 × estimated (median 0.90); the estimated
    memory 0.86–1.12 × the peak PyTorch reserved (median 1.01, since Hugging Face's Llama
    layers keep what autograd was measured to save; 0.83–1.11, median 0.95, before; phi-2
    0.86 since its unfused tanh GELU is counted, 0.72 before)."""
    speed, memory = [], []
    for job in JOBS:
        document = _estimated(job)
        speed.append(job["tokens_per_s_per_card"] / _tokens_per_s(document["hours"]))
        memory.append(document["memory_gib"]["total"] / job["peak_reserved_gib"])
    assert abs(statistics.median(speed) - 1) <= 0.15, speed
    assert abs(statistics.median(memory) - 1) <= 0.20, memory
    assert all(0.6 <= ratio <= 1.4 for ratio in memory), memory
