"""The options of ``suanli estimate`` (one definition each; names are the flags')."""

from __future__ import annotations

import typer

from comparator.estimate import DEFAULT_GPU

MODEL = typer.Option(
    None,
    "--model",
    help="Built-in name (Llama-2-7b, Qwen2.5-7B …), a Hugging Face "
    "config.json path, or a size such as 7B / 350M.",
)
METHOD = typer.Option("lora", "--method", help="full | lora | qlora.")
PRECISION = typer.Option(
    "bf16",
    "--precision",
    help="bf16 | fp16 | fp32 (full + bf16/fp16 = mixed precision, fp32 master).",
)
PURE_BF16 = typer.Option(
    False,
    "--pure-bf16",
    help="Full FT with bf16 weights, grads and optimizer states (no fp32 master).",
)
OPTIMIZER = typer.Option("adamw", "--optimizer", help="adamw | adamw-8bit | sgd.")
LORA_RANK = typer.Option(16, "--lora-rank", help="LoRA rank, on every linear layer.")
SEQ_LEN = typer.Option(2048, "--seq-len", help="Sequence length (tokens).")
MICRO_BATCH = typer.Option(
    None,
    "--micro-batch",
    help="Micro-batch per card (default: the smallest that runs compute-bound and fits).",
)
GLOBAL_BATCH = typer.Option(
    None,
    "--global-batch",
    help="Sequences per optimizer step, kept by gradient accumulation (default: not fixed).",
)
GRAD_CKPT = typer.Option(
    None,
    "--grad-ckpt/--no-grad-ckpt",
    help="Full activation recomputation on/off (default: only when needed to fit).",
)
RECOMPUTE = typer.Option(
    None,
    "--recompute",
    help="none | selective | op | full (default: the cheapest the stack offers that fits).",
)
STACK = typer.Option(
    None,
    "--stack",
    help="Training stack: megatron (NeMo), torchtitan (FSDP2), deepspeed, hf (HF Trainer / "
    "LLaMA-Factory / Axolotl), unsloth, torchtune, other (default: hf, range over all).",
)
FLASH_ATTN = typer.Option(
    True, "--flash-attn/--no-flash-attn", help="FlashAttention (no s² attention scores kept)."
)
CHUNKED_LOSS = typer.Option(
    None,
    "--chunked-loss/--no-chunked-loss",
    help="Chunked cross-entropy, 1/8 of the logits at once (default: only when needed).",
)
OFFLOAD = typer.Option(
    None,
    "--offload/--no-offload",
    help="Optimizer states in CPU memory, ≈1.3× time (default: only if nothing else fits).",
)
ZERO = typer.Option(None, "--zero", help="ZeRO stage 0-3 (default: the smallest that fits).")
TOKENS = typer.Option(None, "--tokens", help="Training tokens per epoch: 2T, 300M, 1.5e9 …")
SAMPLES = typer.Option(
    None, "--samples", help="Samples per epoch (with --avg-tokens), instead of --tokens."
)
AVG_TOKENS = typer.Option(None, "--avg-tokens", help="Average tokens per sample.")
EPOCHS = typer.Option(1.0, "--epochs", help="Epochs.")
GPU = typer.Option(DEFAULT_GPU, "--gpu", help="Any GPU alias: A100-80G, 4090, H800 …")
CARDS = typer.Option(None, "--cards", help="Card count (default: the fewest that fit).")
MFU = typer.Option(
    None,
    "--mfu",
    help="Model FLOPs utilisation (default: fitted to published runs by GPU, size, method).",
)
HEADROOM = typer.Option(
    None, "--headroom", help="Memory kept free, 0-0.95 (default 0.10 or SUANLI_HEADROOM)."
)
SAFETY_FACTOR = typer.Option(
    1.0, "--safety-factor", help="Multiply hours by this buffer (the seeds use 1.5)."
)
MEASURED_TOKENS_PER_S = typer.Option(
    None,
    "--measured-tokens-per-s",
    min=0.001,
    help="Training tokens/s per card measured on this GPU and card count: the estimate moves "
    "to it.",
)
INTERCONNECT = typer.Option(
    None,
    "--interconnect",
    help="Link between the cards as an offer states it: NVLink, PCIe (default: the GPU's).",
)
NETWORK = typer.Option(
    None,
    "--network",
    help="Node network as an offer states it: 'IB 200G', '4×200G IB', 'RoCE 100Gbps' "
    "(default: 8×200G InfiniBand, assumed).",
)
