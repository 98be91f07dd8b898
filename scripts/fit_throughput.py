#!/usr/bin/env python3
"""Refit the throughput model to the published runs and write comparator/estimate/mfu_fit.json.

Run from the repository root:  .venv/bin/python scripts/fit_throughput.py [--check]

Each run in tests/data/throughput/runs.json gives its measured throughput (tokens per second
per GPU, tokens and GPU-hours, or the source's own TFLOP/s per GPU). Its efficiency is the
FLOPs the estimator counts for that job (recomputation included) times the tokens per second
per GPU, over the card's dense BF16 peak. log(efficiency) is fitted by weighted least squares
on the features of comparator.estimate.mfu, each source weighing the same in total (a run
weighs 1/runs-of-its-source); the 5th/95th residual percentiles give the hours range.
Each run names its training stack; stacks without published absolute runs take a prior from
a cited relative speed (``priors`` in runs.json). Features that can only slow a job down
(``NEVER_FASTER``) are pinned at 0 when the data would make them speed it up. Also writes
docs/reference_runs.md, the table of runs. ``--check`` exits 1 when the stored fit or the table
differs from a refit (CI guard).
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from comparator.domain.gpus import resolve_gpu  # noqa: E402
from comparator.estimate.compute import OFFLOAD_TIME_FACTOR, flops_per_token  # noqa: E402
from comparator.estimate.mfu import FEATURES, features  # noqa: E402
from comparator.estimate.shapes import resolve_model  # noqa: E402

RUNS = ROOT / "tests" / "data" / "throughput" / "runs.json"
OUT = ROOT / "comparator" / "estimate" / "mfu_fit.json"
TABLE = ROOT / "docs" / "reference_runs.md"
LORA_RANK = 16


def model_spec(run: dict[str, Any]) -> str:
    model = str(run["model"])
    return str(RUNS.parent.parent / model) if model.startswith("hf_configs/") else model


def measured_efficiency(run: dict[str, Any]) -> float:
    """Counted FLOPs per second per GPU over the dense BF16 peak."""
    gpu = resolve_gpu(run["gpu"])
    assert gpu.bf16_tflops is not None
    peak = gpu.bf16_tflops * 1e12
    if "tflops_per_gpu" in run:
        return float(run["tflops_per_gpu"]) * 1e12 / peak
    # a run with a paged/offloaded optimizer is what the estimator times with --offload: its
    # efficiency is that of the same run on the cards, the offload factor taken back out
    shape = resolve_model(model_spec(run))
    per_token = flops_per_token(shape, run["method"], run["recompute"], run["seq_len"], LORA_RANK)
    if "tokens_per_s_per_gpu" in run:
        rate = float(run["tokens_per_s_per_gpu"])
    else:
        rate = float(run["tokens"]) / (float(run["gpu_hours"]) * 3600)
    paged = OFFLOAD_TIME_FACTOR if run.get("offload_optimizer") else 1.0
    return per_token * rate * paged / peak


def feature_row(run: dict[str, Any]) -> list[float]:
    shape = resolve_model(model_spec(run))
    gpu = resolve_gpu(run["gpu"])
    values = features(
        gpu,
        shape.active_params,
        run["method"],
        run["precision"],
        run["cards"],
        stack=run["stack"],
        moe=shape.is_moe,
    )
    return [values[name] for name in FEATURES]


def max_flops_per_byte(runs: list[dict[str, Any]], efficiencies: list[float]) -> float:
    """The most counted FLOPs per byte of memory bandwidth any BF16/FP16 run reached: the
    roofline that bounds a card without cited runs (FP8 runs count against the BF16 peak)."""
    best = 0.0
    for run, value in zip(runs, efficiencies, strict=True):
        gpu = resolve_gpu(run["gpu"])
        if run["precision"] == "fp8" or not gpu.bandwidth_gbs or not gpu.bf16_tflops:
            continue
        best = max(best, value * gpu.bf16_tflops * 1e12 / (gpu.bandwidth_gbs * 1e9))
    return best


def _with_priors(coefficients: dict[str, float], priors: dict[str, Any]) -> dict[str, float]:
    """Stacks without published absolute runs: their coefficient from a cited relative speed
    against the Hugging Face Trainer (the baseline, coefficient 0)."""
    for name, prior in priors.items():
        coefficients[name] = round(math.log(float(prior["speed_vs_hf"])), 6)
    return coefficients


#: Features that can only slow a job down: a positive fitted value (large tuned clusters
#: outrunning small ones in the published data) is pinned at 0 and the rest refitted.
NEVER_FASTER = ("pcie_multi", "multi_node")


def _constrained_lstsq(x: Any, y: Any) -> Any:
    free = list(range(x.shape[1]))
    while True:
        solved, *_ = np.linalg.lstsq(x[:, free], y, rcond=None)
        coefficients = np.zeros(x.shape[1])
        coefficients[free] = solved
        positive = [i for i in free if FEATURES[i] in NEVER_FASTER and coefficients[i] > 0]
        if not positive:
            return coefficients
        free = [i for i in free if i not in positive]


def refit() -> dict[str, Any]:
    data = json.loads(RUNS.read_text(encoding="utf-8"))
    runs, priors = data["runs"], data.get("priors", {})
    x = np.array([feature_row(run) for run in runs])
    measured = [measured_efficiency(run) for run in runs]
    y = np.array([math.log(value) for value in measured])
    per_source = Counter(run["source"] for run in runs)
    # every source weighs the same in total, so one long table cannot dominate the fit
    root_w = np.array([per_source[run["source"]] ** -0.5 for run in runs])
    coefficients = _constrained_lstsq(x * root_w[:, None], y * root_w)
    residuals = y - x @ coefficients
    p05, p95 = (float(np.percentile(residuals, q)) for q in (5, 95))
    # hours scale with 1/efficiency: hours error = exp(-residual) - 1
    errors = [abs(math.exp(-r) - 1) for r in residuals]
    covered = sum(p05 <= r <= p95 for r in residuals)
    table = [
        {
            "id": run["id"],
            "measured_efficiency": round(math.exp(float(yi)), 4),
            "predicted_efficiency": round(math.exp(float(yi - ri)), 4),
            "hours_ratio": round(math.exp(-float(ri)), 3),
        }
        for run, yi, ri in zip(runs, y, residuals, strict=True)
    ]
    fitted = {n: round(float(c), 6) for n, c in zip(FEATURES, coefficients, strict=True)}
    cited = Counter(resolve_gpu(run["gpu"]).family for run in runs)
    return {
        "SOURCE": "scripts/fit_throughput.py on tests/data/throughput/runs.json",
        "features": list(FEATURES),
        "coefficients": _with_priors(fitted, priors),
        "priors": priors,
        "cited_gpus": dict(sorted(cited.items())),
        "stacks": dict(sorted(Counter(run["stack"] for run in runs).items())),
        "max_flops_per_byte": round(max_flops_per_byte(runs, measured), 3),
        "residual_log_quantiles": {"p05": round(p05, 6), "p95": round(p95, 6)},
        "runs": len(runs),
        "sources": len({run["source"] for run in runs}),
        "median_hours_error": round(statistics.median(errors), 4),
        "worst_hours_ratio": round(max(math.exp(-r) for r in residuals), 3),
        "best_hours_ratio": round(min(math.exp(-r) for r in residuals), 3),
        "range_coverage": round(covered / len(runs), 4),
        "per_run": table,
    }


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|")


def docs_table(result: dict[str, Any]) -> str:
    """docs/reference_runs.md: every run, its stack, card, measured and fitted efficiency and
    where its figure was read (generated; do not edit by hand)."""
    runs = json.loads(RUNS.read_text(encoding="utf-8"))["runs"]
    fitted = {row["id"]: row for row in result["per_run"]}
    lines = [
        "# Reference runs of the throughput fit",
        "",
        "Generated by `scripts/fit_throughput.py` from `tests/data/throughput/runs.json`; do not",
        "edit by hand. Efficiency: the FLOPs the estimator counts (recomputation included) per",
        "second per card over the card's dense BF16 peak. Ratio: fitted hours over measured.",
        f"{result['runs']} runs, {result['sources']} sources; median hours error "
        f"{result['median_hours_error']:.1%}, range coverage {result['range_coverage']:.1%}.",
        "",
        "| run | stack | GPU × cards | model | method | precision | measured | fitted | ratio "
        "| source |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        row = fitted[run["id"]]
        lines.append(
            f"| {run['id']} | {run['stack']} | {run['gpu']} × {run['cards']} | "
            f"{_cell(run['model'])} | {run['method']} | {run['precision']} | "
            f"{row['measured_efficiency']:.3f} | {row['predicted_efficiency']:.3f} | "
            f"{row['hours_ratio']:.2f} | {_cell(run['source'])} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    result = refit()
    text = json.dumps(result, indent=1) + "\n"
    table = docs_table(result)
    if "--check" in sys.argv:
        stored = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        stored_table = TABLE.read_text(encoding="utf-8") if TABLE.exists() else ""
        if stored != text or stored_table != table:
            print(
                "mfu_fit.json or docs/reference_runs.md is stale: run scripts/fit_throughput.py",
                file=sys.stderr,
            )
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    TABLE.write_text(table, encoding="utf-8")
    keys = ("runs", "sources", "median_hours_error", "worst_hours_ratio", "range_coverage")
    keys += ("max_flops_per_byte", "stacks", "cited_gpus")
    summary = {k: result[k] for k in (*keys, "best_hours_ratio")}
    print(json.dumps({"coefficients": result["coefficients"], **summary}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
