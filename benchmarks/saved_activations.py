"""What autograd keeps for the backward pass of a Hugging Face model, per token and layer, beside
the estimator's figure (docs/estimation.md, "What autograd saves").

    python benchmarks/saved_activations.py CONFIG.json [--method full|lora] [--seq 256]
        [--micro-batch 1] [--lora-rank 16] [--attention sdpa|eager] [--weights fp32|bf16]

(``--seq`` defaults to 384: a saved activation of ``seq × width`` elements is told from an
autocast copy of a weight by its shape, so no weight should have ``seq`` rows.)

Needs ``torch``, ``transformers`` (and ``peft`` for ``--method lora``) beside the project, on
any machine: it runs on the CPU. The model is built from the config with random weights,
once with one layer and once with two; each runs one forward pass as
``benchmarks/train_step.py`` trains (``full``: fp32 weights under bf16 autocast; ``lora``: bf16
weights, adapters on every linear layer) inside ``torch.autograd.graph.saved_tensors_hooks``,
which sees every tensor autograd saves. Each storage counts once, the parameters themselves
not at all; bf16 copies of fp32 parameters that autocast made (and autograd keeps until the
backward pass) are counted apart. The two-layer run less the one-layer run is one layer.

It prints, per token: one layer's saved bytes (measured, and the estimator's
``_activation_bytes_per_token_layer`` plus the unfused GELU where it applies), the rest (the
embedding, the final norm, the logits and the loss: measured, and the estimator's final norm
plus ``logits_bytes``), and the autocast weight copies per layer.

CPU kernels are not CUDA's: the CPU's SDPA (flash attention for CPU) keeps the output and the
log-sum-exp, as CUDA's flash and memory-efficient kernels do; autocast's lists of bf16 ops on
the CPU cover the linear layers and matmuls, as on CUDA. What this counts is what autograd
holds, not the allocator's peak: transient buffers (a matmul's workspace, the loss's
temporaries between forward and backward) are not in it.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from comparator.estimate.hf_activations import (
    EAGER_ATTENTION_FAMILIES,
    FLASH_ATTENTION_2_ONLY_FAMILIES,
)


@dataclass
class Saved:
    """Bytes autograd saved in one forward pass, by kind."""

    activations: int = 0
    weight_copies: int = 0


def _model(torch: Any, config: Any, method: str, rank: int, weights: str) -> Any:
    from transformers import AutoModelForCausalLM

    dtype = torch.float32 if method == "full" and weights == "fp32" else torch.bfloat16
    model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    if method == "lora":
        from peft import LoraConfig, get_peft_model

        adapters = LoraConfig(
            r=rank, lora_alpha=2 * rank, target_modules="all-linear", task_type="CAUSAL_LM"
        )
        model = get_peft_model(model, adapters)
    model.config.use_cache = False
    model.train()
    return model


def _saved(torch: Any, model: Any, tokens: Any) -> Saved:
    """What one forward pass under bf16 autocast leaves for the backward pass."""
    parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
    shapes = {tuple(p.shape) for p in model.parameters() if p.dtype == torch.float32}
    shapes |= {s[::-1] for s in shapes}  # a linear layer saves its weight transposed
    seen: set[int] = set()
    saved = Saved()

    def pack(tensor: Any) -> Any:
        storage = tensor.untyped_storage()
        pointer = storage.data_ptr()
        if pointer in parameters or pointer in seen:
            return tensor
        seen.add(pointer)
        copy = tensor.dtype == torch.bfloat16 and tuple(tensor.shape) in shapes
        if copy:
            saved.weight_copies += storage.nbytes()
        else:
            saved.activations += storage.nbytes()
        return tensor

    hooks = torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor)
    with hooks, torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        loss = model(input_ids=tokens, labels=tokens).loss
    loss.backward()  # the graph was whole: every saved tensor was used
    return saved


def _estimated(config_path: Path, args: argparse.Namespace) -> tuple[float, float]:
    """(one layer's bytes per token, the rest's bytes per token) as the estimator counts them
    for ``--stack hf`` and no recomputation: with FlashAttention (no scores), or with the
    scores under ``--attention eager`` (and for models that have no other attention)."""
    from comparator.estimate.estimator import EstimateRequest
    from comparator.estimate.memory import (
        TrainingSetup,
        _activation_bytes_per_token_layer,
        _score_bytes_per_token_layer,
        logits_bytes,
    )
    from comparator.estimate.shapes import resolve_model

    request = EstimateRequest(
        model=str(config_path),
        method=args.method,
        lora_rank=args.lora_rank,
        seq_len=args.seq,
        micro_batch=args.micro_batch,
        stack="hf",
        cards=1,
        pure_bf16=args.method == "full" and args.weights == "bf16",
        flash_attn=args.attention != "eager",
    )
    shape = resolve_model(str(config_path))
    setup = TrainingSetup(request, micro_batch=args.micro_batch)
    layer = _activation_bytes_per_token_layer(shape, setup) + _score_bytes_per_token_layer(
        shape, setup
    )
    tokens = args.seq * args.micro_batch
    return layer, 6 * shape.hidden + logits_bytes(shape, setup) / tokens


def _layer_keys(kind: str, layers: int) -> dict[str, Any]:
    """The config keys that make a model of ``layers`` layers (GPT-Neo's global layers: a
    local one keeps the same tensors, masked beyond its window)."""
    if kind == "gpt_neo":  # attention_layers is derived from attention_types
        kinds = ["global"] * layers
        return {
            "num_layers": layers,
            "attention_types": [[["global"], layers]],
            "attention_layers": kinds,
        }
    return {"num_hidden_layers": layers}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--method", choices=("full", "lora"), default="full")
    parser.add_argument("--seq", type=int, default=384)  # no weight has 384 rows
    parser.add_argument("--micro-batch", type=int, default=1)
    parser.add_argument("--lora-rank", type=int, default=16)
    parser.add_argument("--attention", choices=("sdpa", "eager"), default="sdpa")
    parser.add_argument(
        "--weights",
        choices=("fp32", "bf16"),
        default="fp32",
        help="full: the weights' dtype (fp32 under bf16 autocast, as train_step.py trains; "
        "bf16: pure bf16)",
    )
    args = parser.parse_args()
    import torch
    from transformers import AutoConfig

    raw = json.loads(args.config.read_text(encoding="utf-8"))
    for key in ("architectures", "_name_or_path", "torch_dtype", "dtype", "transformers_version"):
        raw.pop(key, None)
    kind = raw.pop("model_type")
    if kind in EAGER_ATTENTION_FAMILIES | FLASH_ATTENTION_2_ONLY_FAMILIES:
        args.attention = "eager"  # no SDPA in Hugging Face's code, no FlashAttention on a CPU
    torch.manual_seed(0)
    runs: dict[int, Saved] = {}
    for layers in (1, 2):
        config = AutoConfig.for_model(kind, **{**raw, **_layer_keys(kind, layers)})
        config._attn_implementation = args.attention
        model = _model(torch, config, args.method, args.lora_rank, args.weights)
        tokens = torch.randint(0, config.vocab_size, (args.micro_batch, args.seq))
        runs[layers] = _saved(torch, model, tokens)
        del model
    count = args.seq * args.micro_batch
    layer = (runs[2].activations - runs[1].activations) / count
    rest = (runs[1].activations - layer * count) / count
    copies = runs[2].weight_copies - runs[1].weight_copies
    estimated_layer, estimated_rest = _estimated(args.config, args)
    weights = args.weights if args.method == "full" else "bf16, frozen"
    print(
        f"{args.config.name} {args.method} ({weights} weights) seq {args.seq} x "
        f"{args.micro_batch}, {args.attention}"
    )
    print(
        f"  one layer, bytes per token: measured {layer:,.0f}, estimated {estimated_layer:,.0f}"
        f" ({layer / estimated_layer:.3f})"
    )
    print(
        f"  the rest, bytes per token:  measured {rest:,.0f}, estimated {estimated_rest:,.0f}"
        f" ({rest / estimated_rest:.3f})"
    )
    print(f"  autocast weight copies per layer: {copies / 2**20:,.1f} MiB")


if __name__ == "__main__":
    main()
