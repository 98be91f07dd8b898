"""What Hugging Face's modeling code, run as written (the ``hf`` and ``deepspeed`` stacks: no
compile, no fused kernels of the stack's own), keeps for the backward pass where it differs
from the textbook count of :mod:`comparator.estimate.memory`: the measured terms of the Llama
family's layers, the unfused tanh GELUs, and the attention scores of models that have no
attention but an eager one (docs/estimation.md, "What autograd saves").
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from comparator.estimate.architecture import ModelShape
from comparator.estimate.stacks import Stack


class SetupView(Protocol):
    """What these terms read of :class:`comparator.estimate.memory.TrainingSetup`."""

    @property
    def stack(self) -> Stack: ...
    @property
    def precision(self) -> str: ...
    @property
    def adapters(self) -> bool: ...
    @property
    def lora_rank(self) -> int: ...


#: Bytes per token and MLP width that Hugging Face's unfused tanh GELU keeps beyond a fused
#: GELU's 4. ``gelu_new`` (``NewGELUActivation``: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))))
#: makes autograd save three more 16-bit tensors (tanh's output, 1 + tanh, 0.5·x); on a lent
#: H200 phi-2's full fine-tuning peaked 24.7 GiB above the estimate without them, 15 GiB of it
#: this term (docs/estimation.md). ``gelu_fast`` (``FastGELUActivation``: 0.5·x·(1 +
#: tanh(x·0.7978845608·(1 + 0.044715·x·x)))) six: its products x·0.797…, 1 + 0.044715·x²,
#: their product, tanh's output, 0.5·x and 1 + tanh (GPT-NeoX-20B's layer, read from autograd's
#: saved tensors: 16 bytes per MLP element, ``benchmarks/saved_activations.py``).
UNFUSED_GELU_BYTES = {"gelu_new": 6, "gelu_fast": 12}


class EagerBytes(NamedTuple):
    """Bytes per token one Llama-family layer of Hugging Face's code keeps, per element of:
    each norm's width (``norm``: per h, and per q + kv for q/k norms), the linear layers'
    inputs (``inputs``: per h), q, kv, the MLP width and the heads."""

    norm: int
    inputs: int
    q: int
    kv: int
    mlp: int
    head: int


#: What one Llama-family layer of Hugging Face's modeling code (RMSNorm, q/k/v, SDPA, a gated
#: MLP) leaves for the backward pass, by how its weights are held. Read from autograd's saved
#: tensors (``benchmarks/saved_activations.py``: transformers 5.17, torch 2.13, peft 0.21) on
#: TinyLlama-1.1B, Llama-2-7B and Qwen2.5-7B (to the byte), Gemma 1, 2 and 3 (within 0.4 %:
#: four norms a layer, q/k norms). Each RMSNorm keeps its fp32 input (4 bytes an element),
#: its fp32 rsqrt (4 bytes a token) and, when its weight trains, its normalised input (4 more
#: under autocast, 2 in bf16); under autocast an fp32 model's activations are fp32 between
#: the matmuls and each linear layer keeps its own bf16 cast of its input (q, k and v three,
#: gate and up two: 10·h); SDPA keeps q, k, v, its output and a log-sum-exp (4 bytes a head);
#: the MLP its gate, activation and up outputs and the down projection's input; PEFT's LoRA
#: bf16 copies of its adapted layers' inputs. docs/estimation.md, "What autograd saves".
EAGER_LLAMA_BYTES: dict[str, EagerBytes] = {
    "autocast": EagerBytes(norm=8, inputs=10, q=4, kv=4, mlp=8, head=4),  # fp32 weights
    "bf16": EagerBytes(norm=6, inputs=4, q=4, kv=4, mlp=8, head=4),  # bf16 weights
    "adapters": EagerBytes(norm=4, inputs=8, q=8, kv=4, mlp=8, head=4),  # LoRA, frozen bf16
}
#: LoRA's rank-r activations per adapted linear layer (its B projection's input, bf16) and
#: the adapted layers of a Llama-family layer (q, k, v, o, gate, up, down).
LORA_BYTES_PER_RANK = 2
LLAMA_LINEAR_LAYERS = 7
RSQRT_BYTES = 4  # an RMSNorm's fp32 1/rms per token


def eager_llama(shape: ModelShape) -> bool:
    """Whether Hugging Face's code for ``shape`` is the Llama family's, as measured: RMSNorm
    (two a layer, or Gemma's four; q/k norms), a gated MLP, dense (no experts, no latent
    attention). Models that fuse q/k/v or gate/up
    into one matmul (Baichuan, InternLM2, ChatGLM, Phi-3) make fewer bf16 casts under autocast
    (4·h and 2·h fewer): counted as the Llama family, a little over."""
    return shape.gated_mlp and not (shape.layer_norm or shape.is_moe or shape.mla)


def eager_llama_bytes_per_token_layer(shape: ModelShape, setup: SetupView, autocast: bool) -> float:
    """:data:`EAGER_LLAMA_BYTES` for the setup: adapters, or full fine-tuning with fp32
    weights under autocast (``autocast``) or bf16 weights; in fp32 (no autocast) twice the
    bf16 figures, every saved tensor at 4 bytes (not measured)."""
    regime = "adapters" if setup.adapters else "autocast" if autocast else "bf16"
    kept = EAGER_LLAMA_BYTES[regime]
    norms = shape.norms_per_layer
    saved = float((norms * kept.norm + kept.inputs) * shape.hidden + kept.q * shape.q_dim)
    saved += kept.kv * shape.kv_dim + kept.mlp * shape.active_mlp_width + kept.head * shape.heads
    saved += RSQRT_BYTES * norms
    if shape.qk_norm:  # q and k normalised per head, in fp32 as the layer's norms
        saved += kept.norm * (shape.q_dim + shape.kv_dim)
    if setup.adapters:
        saved += LORA_BYTES_PER_RANK * LLAMA_LINEAR_LAYERS * setup.lora_rank
    return saved * (2 if setup.precision == "fp32" else 1)


#: Model families whose Hugging Face code has no attention but its own eager one: no SDPA, no
#: FlashAttention (transformers 5.17: ``BloomPreTrainedModel`` and ``MptPreTrainedModel``
#: keep ``PreTrainedModel``'s ``_supports_sdpa = False`` and ``_supports_flash_attn =
#: False``; asking for SDPA raises "does not support an attention implementation through
#: torch.nn.functional.scaled_dot_product_attention yet").
EAGER_ATTENTION_FAMILIES = frozenset({"bloom", "mpt"})
#: Bytes each attention score keeps there: both compute the softmax in fp32 and cast it back
#: (``F.softmax(…, dtype=torch.float32).to(…)``): its fp32 output, saved by the softmax, and
#: the 16-bit probabilities the product with v saves; in fp32 training 4 + 4.
EAGER_SCORE_BYTES = {"16-bit": 6, "fp32": 8}


#: Families whose Hugging Face code has FlashAttention 2 but no SDPA (transformers 5.17:
#: ``GPTJPreTrainedModel`` and ``GPTNeoPreTrainedModel`` set ``_supports_flash_attn`` only):
#: unless a run asks for ``attn_implementation="flash_attention_2"`` (the flash-attn package)
#: it trains with eager attention, and every layer keeps its scores.
FLASH_ATTENTION_2_ONLY_FAMILIES = frozenset({"gptj", "gpt_neo"})


def flash_only_by_request(shape: ModelShape, setup: SetupView) -> bool:
    """Whether the job runs Hugging Face's code of a model that has FlashAttention only when
    a run asks for it, and no SDPA."""
    return setup.stack.eager_activations and shape.family in FLASH_ATTENTION_2_ONLY_FAMILIES


def eager_attention_only(shape: ModelShape, setup: SetupView) -> bool:
    """Whether the job runs Hugging Face's code of a model that has only eager attention:
    its scores are kept whatever ``flash_attn`` says."""
    return setup.stack.eager_activations and shape.family in EAGER_ATTENTION_FAMILIES
