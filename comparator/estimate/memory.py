"""GPU memory of a training job, per card, part by part (pure arithmetic, bytes).

Model states (bytes per *trainable* parameter; ZeRO paper, Rajbhandari et al. 2019):

============================  =======  =====  ==========================================
regime                        weights  grads  optimizer (AdamW / 8-bit AdamW / SGD-momentum)
============================  =======  =====  ==========================================
fp32                          4        4      8 / 2 / 4
mixed bf16/fp16 (fp32 master) 2        2      12 / 6 / 8   (4 master + states)
pure bf16/fp16                2        2      4 / 2 / 2    (16-bit states, no master)
============================  =======  =====  ==========================================

LoRA / QLoRA: the frozen base costs 2 bytes per parameter (4 in fp32); QLoRA stores the
blocks' linear weights as NF4 with double quantisation (4 + 0.127 bits = 0.516 bytes) and
keeps embeddings, output head and norms in 16 bit. The adapters (rank r on every linear layer
of the blocks, r·(d_in + d_out) each) are trained like any parameters, in the regime above.

ZeRO over N data-parallel cards: stage ≥ 1 shards optimizer states, ≥ 2 gradients, 3 the
weights (frozen ones included), each divided by N.

Activations (per layer and token, 16-bit; Korthikanti et al. 2022 adapted to the real shape,
dropout off as in LLM fine-tuning):

* two norms, each keeping an fp32 copy of its input and its 16-bit output: 12·h bytes;
* Q and the attention output 2·q_dim each, K and V 2·kv_dim each: 4·q_dim + 4·kv_dim;
* MLP: SwiGLU keeps gate, up, SiLU(gate) and their product, 8·I per active expert;
  a GELU MLP keeps fc1's output and the GELU output, 4·I, and 6·I (``gelu_new``) or 12·I
  (``gelu_fast``) more when a stack runs Hugging Face's unfused tanh GELU as written;
* without FlashAttention the attention scores add 5·a·s (softmax, mask, dropout output);
  Hugging Face's BLOOM and MPT have no attention but their own eager one, which keeps 6·a·s
  under the stacks that run that code, whatever ``flash_attn`` says.

fp32 training doubles these. Full recomputation (gradient checkpointing) keeps only each
layer's input (2·h per token) plus one layer's full activations during its backward pass;
selective recomputation (Korthikanti et al.) drops the attention scores only, which
FlashAttention never keeps. The logits cost b·s·V·16 bytes with a plain loss (bf16 logits,
their fp32 copy, log-softmax and gradient: ``LOGITS_BYTES_PER_VALUE``); a chunked
cross-entropy keeps the bf16 logits and 1/``LOSS_CHUNKS`` of the fp32 work.

Overhead: CUDA context and framework, ``CUDA_CONTEXT_GIB`` (published measurements range
0.3–2 GiB); gradient communication buckets with more than one card (``COMM_BUCKET_GIB``,
capped at the gradient size); under ZeRO-3 the parameters gathered in flight — the larger of
two layers and the embedding, times (N−1)/N; under QLoRA one dequantised 16-bit copy of the
largest weight matrix for the forward and one for the backward pass. Allocator slack is what
the headroom is for.
"""

from __future__ import annotations

from dataclasses import dataclass

from comparator.estimate.architecture import ModelShape
from comparator.estimate.hf_activations import (
    EAGER_SCORE_BYTES,
    UNFUSED_GELU_BYTES,
    eager_attention_only,
    eager_llama,
    eager_llama_bytes_per_token_layer,
)
from comparator.estimate.request import EstimateRequest
from comparator.estimate.stacks import Stack, stack_of

GIB = float(1 << 30)
MIB_PER_GIB = 1024
CUDA_CONTEXT_GIB = 1.0
COMM_BUCKET_GIB = 0.25
NF4_BYTES_PER_PARAM = (4 + 0.127) / 8
#: Bytes per logit value with a plain loss: bf16 logits kept for the caller, their fp32 copy,
#: fp32 log-softmax saved for backward and its fp32 gradient. Unsloth's published maximum
#: contexts for Hugging Face + FlashAttention-2 (Llama 3.1 8B QLoRA, 12–80 GB cards) grow by
#: ≈2.47 MB per token, which leaves ≈16 bytes per logit value beside the activations.
LOGITS_BYTES_PER_VALUE = 16
#: The bf16 logits a chunked loss still materialises (torchtune's chunked output).
CHUNKED_LOGITS_BYTES_PER_VALUE = 2

#: The fused/chunked cross-entropy (torchtune, Liger) holds 1/CHUNKS of the logits at once.
LOSS_CHUNKS = 8

#: (weights, gradients, optimizer) bytes per trainable parameter, by regime and optimizer.
_STATE_BYTES: dict[str, dict[str, tuple[float, float, float]]] = {
    "fp32": {"adamw": (4, 4, 8), "adamw-8bit": (4, 4, 2), "sgd": (4, 4, 4)},
    "mixed": {"adamw": (2, 2, 12), "adamw-8bit": (2, 2, 6), "sgd": (2, 2, 8)},
    "pure": {"adamw": (2, 2, 4), "adamw-8bit": (2, 2, 2), "sgd": (2, 2, 2)},
}


@dataclass(frozen=True)
class TrainingSetup:
    """The settings that decide memory: the request, plus what the estimator chose for it.

    One definition per concept: everything the user asked for stays on ``request``; only the
    memory-saving choices the estimator makes (recomputation, chunked loss, CPU offload,
    micro-batch) are fields here, already resolved to concrete values.
    """

    request: EstimateRequest
    recompute: str = "none"  # none | selective | full
    chunked_loss: bool = False
    offload_optimizer: bool = False
    micro_batch: int = 1

    @property
    def method(self) -> str:
        return self.request.method

    @property
    def stack(self) -> Stack:
        """The request's training stack (the default one when unstated)."""
        return stack_of(self.request.stack)

    @property
    def precision(self) -> str:
        return self.request.precision

    @property
    def optimizer(self) -> str:
        return self.request.optimizer

    @property
    def lora_rank(self) -> int:
        return self.request.lora_rank

    @property
    def seq_len(self) -> int:
        return self.request.seq_len

    @property
    def flash_attn(self) -> bool:
        return self.request.flash_attn

    @property
    def grad_ckpt(self) -> bool:
        return self.recompute == "full"

    @property
    def regime(self) -> str:
        if self.request.precision == "fp32":
            return "fp32"
        return "pure" if self.request.pure_bf16 else "mixed"

    @property
    def adapters(self) -> bool:
        return self.request.method != "full"


@dataclass(frozen=True)
class MemoryInputs:
    """Unsharded totals of one job (bytes), computed once and reused for every card count."""

    frozen_weight_bytes: float
    trainable_params: int
    weight_bytes: float  # per trainable parameter
    grad_bytes: float
    optimizer_bytes: float
    layer_activation_bytes: float
    sharded_activation_bytes: float  # under a ZeRO stage (Hugging Face's: DeepSpeed's bf16)
    logits_bytes: float
    gather_bytes: float  # ZeRO-3 parameters in flight, before the (N-1)/N factor
    dequant_bytes: float
    adapters: bool

    @property
    def total_weight_bytes(self) -> float:
        return self.frozen_weight_bytes + self.trainable_params * self.weight_bytes


@dataclass(frozen=True)
class MemoryBreakdown:
    """Per-card memory in bytes, part by part; ``*_gib`` helpers give the contract's view."""

    base_weights: float
    adapter_weights: float
    gradients: float
    optimizer: float
    layer_activations: float
    logits: float
    cuda_context: float
    zero3_gathered: float
    comm_buckets: float
    dequant_workspace: float

    def parts_gib(self) -> dict[str, float]:
        """weights, gradients, optimizer, activations, overhead and their sum (GiB, MiB steps).

        Parts are rounded to whole MiB (binary fractions), so ``total`` is exactly their sum.
        """
        names = ("weights", "gradients", "optimizer", "activations", "overhead")
        parts = dict(zip(names, _rounded_parts(astuple_fast(self)), strict=True))
        parts["total"] = sum(parts.values())
        return parts

    def detail_gib(self) -> dict[str, float]:
        return {name: _gib(getattr(self, name)) for name in self.__dataclass_fields__}

    @property
    def total_gib(self) -> float:
        return self.parts_gib()["total"]

    @property
    def total_bytes(self) -> float:
        """The unrounded sum of every part."""
        return sum(astuple_fast(self))


def _gib(value: float) -> float:
    return round(value / GIB * MIB_PER_GIB) / MIB_PER_GIB


def astuple_fast(memory: MemoryBreakdown) -> tuple[float, ...]:
    return (
        memory.base_weights,
        memory.adapter_weights,
        memory.gradients,
        memory.optimizer,
        memory.layer_activations,
        memory.logits,
        memory.cuda_context,
        memory.zero3_gathered,
        memory.comm_buckets,
        memory.dequant_workspace,
    )


def _rounded_parts(detail: tuple[float, ...]) -> tuple[float, float, float, float, float]:
    """The contract's five parts from the ten detailed ones, each rounded to whole MiB."""
    base, adapter, grads, optimizer, layers, logits, context, gathered, buckets, dequant = detail
    return (
        _gib(base + adapter),
        _gib(grads),
        _gib(optimizer),
        _gib(layers + logits),
        _gib(context + gathered + buckets + dequant),
    )


def _autocast(setup: TrainingSetup, sharded: bool) -> bool:
    """Whether full fine-tuning holds fp32 weights under bf16 autocast: Hugging Face's mixed
    precision on one card or plain DDP; under a ZeRO stage its runs go through DeepSpeed,
    whose bf16 engine holds bf16 weights (fp32 masters in the optimizer)."""
    mixed = setup.regime == "mixed" and setup.stack.autocast_fp32_weights
    return mixed and not setup.adapters and not sharded


def _activation_bytes_per_token_layer(
    shape: ModelShape, setup: TrainingSetup, sharded: bool = False
) -> float:
    """One layer's saved activations per token, without the attention scores (``sharded``:
    under a ZeRO stage)."""
    if setup.stack.eager_activations and eager_llama(shape):
        return eager_llama_bytes_per_token_layer(shape, setup, _autocast(setup, sharded))
    norms = 12 * shape.hidden
    attention = 4 * shape.q_dim + 4 * shape.kv_dim
    mlp = (8 if shape.gated_mlp else 4) * shape.active_mlp_width
    if shape.unfused_gelu and setup.stack.eager_activations:
        mlp += UNFUSED_GELU_BYTES[shape.unfused_gelu] * shape.active_mlp_width
    scale = 2 if setup.precision == "fp32" else 1
    return scale * (norms + attention + mlp)


def _score_bytes_per_token_layer(shape: ModelShape, setup: TrainingSetup) -> float:
    """Softmax input and output and the mask per token and layer (none with FlashAttention);
    a model that has only eager attention keeps :data:`EAGER_SCORE_BYTES` a score."""
    if eager_attention_only(shape, setup):
        per_score = EAGER_SCORE_BYTES["fp32" if setup.precision == "fp32" else "16-bit"]
        return float(per_score * shape.heads * setup.seq_len)
    scale = 2 if setup.precision == "fp32" else 1
    return 0.0 if setup.flash_attn else float(scale * 5 * shape.heads * setup.seq_len)


def _op_level_bytes_per_token_layer(shape: ModelShape, setup: TrainingSetup) -> float:
    """What op-level selective checkpointing keeps per token and layer (torchtitan's policy in
    ``_apply_ac_to_transformer_block``: "Saves output of all compute ops, except every second
    mm", the compute ops being ``aten.mm`` and the attention kernels; norms, activations and the
    other matmuls are recomputed).

    The layer input (2·h), the attention output (2·q), and half of the matmul outputs —
    q (2·q), k and v (2·kv each), o and down (2·h each), gate and up (2·I each, or fc1 2·I).
    """
    h, q, kv = shape.hidden, shape.q_dim, shape.kv_dim
    mlp = (4 if shape.gated_mlp else 2) * shape.active_mlp_width
    matmul_outputs = 2 * q + 4 * kv + 4 * h + mlp
    scale = 2 if setup.precision == "fp32" else 1
    return scale * (2 * h + 2 * q + matmul_outputs / 2)


def layer_activation_bytes(shape: ModelShape, setup: TrainingSetup, sharded: bool = False) -> float:
    """Activations kept for the backward pass by all layers of one card's micro-batch.

    Without recomputation every layer keeps everything; selective recomputation keeps all but
    the attention scores, which only the layer in its backward pass holds; full recomputation
    keeps each layer's input and one layer's full activations (Unsloth keeps the inputs in
    CPU memory); op-level selective recomputation keeps what
    :func:`_op_level_bytes_per_token_layer` counts.
    """
    tokens = setup.seq_len * setup.micro_batch
    body = tokens * _activation_bytes_per_token_layer(shape, setup, sharded)
    scores = tokens * _score_bytes_per_token_layer(shape, setup)
    scale = 2 if setup.precision == "fp32" else 1
    final_norm = tokens * 6 * shape.hidden * scale
    if setup.recompute == "full":
        kept = 0.0 if setup.stack.offloaded_checkpoints else 1.0  # Unsloth: inputs in CPU RAM
        inputs = kept * shape.layers * tokens * 2 * shape.hidden * scale
        return inputs + body + scores + final_norm
    if setup.recompute == "op":
        op_body = tokens * _op_level_bytes_per_token_layer(shape, setup)
        return shape.layers * op_body + body + scores + final_norm
    if setup.recompute == "selective":
        return shape.layers * body + scores + final_norm
    return shape.layers * (body + scores) + final_norm


def logits_bytes(shape: ModelShape, setup: TrainingSetup) -> float:
    """The loss's logits, as the stack computes its loss (:data:`.stacks.LOSS_BYTES_PER_VALUE`);
    a chunked loss chosen as a saver keeps the bf16 logits and one fp32 chunk at a time."""
    values = setup.seq_len * setup.micro_batch * shape.vocab
    per_value = setup.stack.loss_bytes_per_value
    if setup.chunked_loss:
        fp32_part = (LOGITS_BYTES_PER_VALUE - CHUNKED_LOGITS_BYTES_PER_VALUE) / LOSS_CHUNKS
        per_value = min(per_value, CHUNKED_LOGITS_BYTES_PER_VALUE + fp32_part)
    return float(values * per_value)


def _frozen_weight_bytes(shape: ModelShape, setup: TrainingSetup) -> float:
    base = 4 if setup.precision == "fp32" else 2
    if setup.method == "full":
        return 0.0
    if setup.method == "lora":
        return float(shape.params * base)
    quantized = shape.quantizable_params
    return quantized * NF4_BYTES_PER_PARAM + (shape.params - quantized) * base


def trainable_params(shape: ModelShape, setup: TrainingSetup) -> int:
    return shape.lora_dims * setup.lora_rank if setup.adapters else shape.params


def _gather_bytes(
    shape: ModelShape, setup: TrainingSetup, weights_total: float, weight_bytes: float
) -> float:
    """ZeRO-3 working set: two layers (current + prefetched) or the embedding, if larger; under
    DeepSpeed up to ``stage3_max_live_parameters`` stay gathered (:mod:`.stacks`)."""
    embed_bytes_per_param = (
        weight_bytes if setup.method == "full" else (4 if setup.precision == "fp32" else 2)
    )
    embedding = shape.embedding_params * embed_bytes_per_param
    layer = max(weights_total - embedding, 0.0) / shape.layers
    biggest = max(2 * layer, shape.vocab * shape.hidden * embed_bytes_per_param)
    # DeepSpeed's live-parameter cap, at the bytes a stored parameter takes (NF4 under QLoRA)
    live_params = setup.stack.live_params
    live = (
        weights_total if live_params >= shape.params else live_params * weights_total / shape.params
    )
    return min(max(biggest, live), weights_total)


def memory_inputs(shape: ModelShape, setup: TrainingSetup) -> MemoryInputs:
    """Everything about the job's memory that does not depend on cards or ZeRO stage."""
    weight, grad, optimizer = _STATE_BYTES[setup.regime][setup.optimizer]
    trainable = trainable_params(shape, setup)
    frozen = _frozen_weight_bytes(shape, setup)
    weights_total = frozen + trainable * weight
    dequant = 2 * 2 * shape.largest_linear_params if setup.method == "qlora" else 0.0
    return MemoryInputs(
        frozen_weight_bytes=frozen,
        trainable_params=trainable,
        weight_bytes=weight,
        grad_bytes=grad,
        optimizer_bytes=0.0 if setup.offload_optimizer else optimizer,
        layer_activation_bytes=layer_activation_bytes(shape, setup),
        sharded_activation_bytes=layer_activation_bytes(shape, setup, sharded=True),
        logits_bytes=logits_bytes(shape, setup),
        gather_bytes=_gather_bytes(shape, setup, weights_total, weight),
        dequant_bytes=dequant,
        adapters=setup.adapters,
    )


def _detail_bytes(inputs: MemoryInputs, cards: int, zero: int) -> tuple[float, ...]:
    """The ten parts of :class:`MemoryBreakdown`, in field order (bytes)."""
    shards = float(cards)
    # ZeRO-3 shards the weights unless the working set keeps them all gathered anyway
    sharded = zero >= 3 and inputs.gather_bytes < inputs.total_weight_bytes
    weight_share = 1 / shards if sharded else 1.0
    grad_total = inputs.trainable_params * inputs.grad_bytes
    trainable_weights = inputs.trainable_params * inputs.weight_bytes * weight_share
    frozen_weights = inputs.frozen_weight_bytes * weight_share
    return (
        frozen_weights if inputs.adapters else trainable_weights,
        trainable_weights if inputs.adapters else 0.0,
        grad_total / shards if zero >= 2 else grad_total,
        inputs.trainable_params * inputs.optimizer_bytes / (shards if zero >= 1 else 1.0),
        inputs.sharded_activation_bytes if zero >= 1 else inputs.layer_activation_bytes,
        inputs.logits_bytes,
        CUDA_CONTEXT_GIB * GIB,
        inputs.gather_bytes * (shards - 1) / shards if sharded else 0.0,
        min(grad_total, COMM_BUCKET_GIB * GIB) if cards > 1 else 0.0,
        inputs.dequant_bytes,
    )


def per_card(inputs: MemoryInputs, cards: int, zero: int) -> MemoryBreakdown:
    """Memory of one card for ``cards`` data-parallel cards under ZeRO ``zero``."""
    return MemoryBreakdown(*_detail_bytes(inputs, cards, zero))


def total_gib(inputs: MemoryInputs, cards: int, zero: int) -> float:
    """``per_card(...).parts_gib()["total"]``, computed without building the breakdown."""
    return sum(_rounded_parts(_detail_bytes(inputs, cards, zero)))


#: The rounded total is within 5 × ½ MiB of the exact one; a margin a little above that.
_ROUNDING_MARGIN_GIB = 3 / MIB_PER_GIB


def fits_gib(inputs: MemoryInputs, cards: int, zero: int, usable_gib: float) -> bool:
    """``total_gib(...) <= usable_gib``, deciding on the exact sum when it is far from the line."""
    detail = _detail_bytes(inputs, cards, zero)
    exact = sum(detail) / GIB
    if exact < usable_gib - _ROUNDING_MARGIN_GIB:
        return True
    if exact > usable_gib + _ROUNDING_MARGIN_GIB:
        return False
    return sum(_rounded_parts(detail)) <= usable_gib
