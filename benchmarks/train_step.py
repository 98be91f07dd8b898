"""Measure real training steps on this machine's GPU and set them beside the estimator's figures.

Run from the repository root on a machine with PyTorch, a CUDA card and ``transformers``
(``peft`` for LoRA)::

    python benchmarks/train_step.py --config tests/data/hf_configs/tinyllama-1.1b.json \\
        --method full --micro-batch 8
    python benchmarks/train_step.py --config tests/data/hf_configs/qwen2.5-7b.json \\
        --method lora --micro-batch 4 --json

The model is built from its Hugging Face ``config.json`` with random weights (no download): a
step's time and memory do not depend on the weights' values. Each step is a forward and backward
pass over ``micro_batch × seq_len`` random tokens and an AdamW update, the way the Hugging Face
Trainer runs one card (``--stack hf``):

* full: fp32 master weights, bf16 autocast, fused AdamW (the estimator's mixed precision);
* lora: the base weights in bf16 and frozen, rank ``--lora-rank`` adapters on every linear layer.

PyTorch's scaled-dot-product attention is used (its FlashAttention kernels on Hopper and Ampere in
bf16). ``--grad-ckpt`` recomputes every layer's activations (the estimator's ``full``).

It prints, per job: the median step time over ``--steps`` timed steps after ``--warmup``, the
training tokens/s per card, the peak memory PyTorch allocated and reserved, and the estimator's
tokens/s and memory for the same job on the same card with their ratios. The tokens/s is what
``suanli verify --calibration-out FILE --trial-tokens-per-s N`` takes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from comparator.domain.gpus import find_gpu
from comparator.estimate.estimator import EstimateRequest, estimate

GIB = 1 << 30
ESTIMATE_TOKENS = 10**9  # the estimator's hours are linear in tokens; this only sets the scale


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True, type=Path, help="a Hugging Face config.json")
    parser.add_argument("--method", choices=("full", "lora"), default="full")
    parser.add_argument("--seq-len", type=int, default=2048)
    parser.add_argument("--micro-batch", type=int, default=1)
    parser.add_argument("--lora-rank", type=int, default=16)
    parser.add_argument("--grad-ckpt", action="store_true", help="recompute every layer")
    parser.add_argument("--steps", type=int, default=10, help="timed steps (default 10)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first (default 3)")
    parser.add_argument("--device", default="cuda", help="cuda (default) or cpu for a dry run")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    return parser.parse_args(argv)


def _model_config(path: Path) -> Any:
    from transformers import AutoConfig

    fields = json.loads(path.read_text(encoding="utf-8"))
    model_type = fields.pop("model_type")
    for key in ("architectures", "_name_or_path", "torch_dtype", "dtype", "transformers_version"):
        fields.pop(key, None)
    config = AutoConfig.for_model(model_type, **fields)
    config._attn_implementation = "sdpa"
    return config


def _build_model(torch: Any, args: argparse.Namespace) -> Any:
    from transformers import AutoModelForCausalLM

    config = _model_config(args.config)
    weights_dtype = torch.float32 if args.method == "full" else torch.bfloat16
    with torch.device(args.device):
        model = AutoModelForCausalLM.from_config(config, dtype=weights_dtype)
    if args.grad_ckpt:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if args.method == "lora":
        from peft import LoraConfig, get_peft_model

        adapters = LoraConfig(
            r=args.lora_rank,
            lora_alpha=2 * args.lora_rank,
            target_modules="all-linear",
            task_type="CAUSAL_LM",
        )
        model = get_peft_model(model, adapters)
    model.config.use_cache = False
    model.train()
    return model


def _optimizer(torch: Any, model: Any, device: str) -> Any:
    trainable = [parameter for parameter in model.parameters() if parameter.requires_grad]
    fused = device.startswith("cuda")
    return torch.optim.AdamW(trainable, lr=1e-5, fused=fused)


def _synchronize(torch: Any, device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _step_seconds(torch: Any, model: Any, optimizer: Any, args: argparse.Namespace) -> list[float]:
    vocab = model.config.vocab_size
    tokens = torch.randint(0, vocab, (args.micro_batch, args.seq_len), device=args.device)
    autocast = torch.autocast(device_type=args.device.split(":")[0], dtype=torch.bfloat16)
    seconds = []
    for step in range(args.warmup + args.steps):
        _synchronize(torch, args.device)
        started = time.perf_counter()
        with autocast:
            loss = model(input_ids=tokens, labels=tokens).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        _synchronize(torch, args.device)
        if step >= args.warmup:
            seconds.append(time.perf_counter() - started)
    return seconds


def _estimated(args: argparse.Namespace, gpu: str) -> dict[str, Any]:
    request = EstimateRequest(
        model=str(args.config),
        method=args.method,
        lora_rank=args.lora_rank,
        seq_len=args.seq_len,
        micro_batch=args.micro_batch,
        grad_ckpt=args.grad_ckpt,
        tokens=ESTIMATE_TOKENS,
        gpu=gpu,
        cards=1,
        stack="hf",
    )
    document = estimate(request).to_json()
    return {
        "gpu": document["gpu"]["name"],
        "tokens_per_s_per_card": document["total_tokens"] / (document["hours"] * 3600),
        "tokens_per_s_range": [
            document["total_tokens"] / (document["hours_range"][end] * 3600)
            for end in ("high", "low")
        ],
        "mfu": document["mfu"],
        "flops_per_token": document["flops_per_token"],
        "memory_gib": document["memory_gib"]["total"],
        "fits": document["fits"],
    }


def _device_name(torch: Any, device: str) -> str:
    if device.startswith("cuda"):
        return str(torch.cuda.get_device_name(0))
    return "cpu"


def measure(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    card = _device_name(torch, args.device)
    model = _build_model(torch, args)
    optimizer = _optimizer(torch, model, args.device)
    if args.device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    seconds = _step_seconds(torch, model, optimizer, args)
    step_s = statistics.median(seconds)
    tokens_per_s = args.micro_batch * args.seq_len / step_s
    result: dict[str, Any] = {
        "config": str(args.config),
        "method": args.method,
        "seq_len": args.seq_len,
        "micro_batch": args.micro_batch,
        "grad_ckpt": args.grad_ckpt,
        "lora_rank": args.lora_rank if args.method == "lora" else None,
        "card": card,
        "torch": torch.__version__,
        "step_s": {"median": step_s, "min": min(seconds), "max": max(seconds)},
        "tokens_per_s_per_card": tokens_per_s,
    }
    if args.device.startswith("cuda"):
        result["peak_allocated_gib"] = torch.cuda.max_memory_allocated() / GIB
        result["peak_reserved_gib"] = torch.cuda.max_memory_reserved() / GIB
    spec = find_gpu(card)
    if spec is not None:
        predicted = _estimated(args, spec.name)
        result["estimate"] = predicted
        result["measured_over_estimated"] = tokens_per_s / predicted["tokens_per_s_per_card"]
        result["measured_mfu"] = (
            tokens_per_s * predicted["flops_per_token"] / (spec.bf16_tflops * 1e12)
        )
        if "peak_reserved_gib" in result:
            result["estimated_over_reserved"] = (
                predicted["memory_gib"] / result["peak_reserved_gib"]
            )
    return result


def summary_line(result: dict[str, Any]) -> str:
    """One line: the job, tokens/s per card, peak memory, and the ratio to the estimate."""
    line = (
        f"{Path(result['config']).stem} {result['method']} micro-batch {result['micro_batch']}: "
        f"{result['tokens_per_s_per_card']:,.0f} tokens/s/card"
    )
    if "peak_reserved_gib" in result:
        line += f", {result['peak_reserved_gib']:.1f} GiB reserved"
    if "measured_over_estimated" in result:
        line += f", measured/estimated {result['measured_over_estimated']:.3f}"
    return line


def _print_table(result: dict[str, Any]) -> None:
    print(
        f"{result['config']}  {result['method']}  seq {result['seq_len']}  "
        f"micro-batch {result['micro_batch']}  recompute {'full' if result['grad_ckpt'] else 'none'}"
    )
    print(f"  card {result['card']}, torch {result['torch']}")
    step = result["step_s"]
    print(
        f"  step            {step['median']:.4f} s (min {step['min']:.4f}, max {step['max']:.4f})"
    )
    print(f"  tokens/s/card   {result['tokens_per_s_per_card']:,.0f}")
    if "peak_reserved_gib" in result:
        print(
            f"  peak memory     {result['peak_allocated_gib']:.2f} GiB allocated, "
            f"{result['peak_reserved_gib']:.2f} GiB reserved"
        )
    predicted = result.get("estimate")
    if predicted:
        low, high = predicted["tokens_per_s_range"]
        print(
            f"  estimated       {predicted['tokens_per_s_per_card']:,.0f} tokens/s "
            f"({low:,.0f}–{high:,.0f}), {predicted['memory_gib']:.2f} GiB, MFU {predicted['mfu']:.3f}"
        )
        print(
            f"  measured/est.   {result['measured_over_estimated']:.3f}  "
            f"(measured MFU {result['measured_mfu']:.3f})"
        )


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    result = measure(args)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        print(summary_line(result), file=sys.stderr)
    else:
        _print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
