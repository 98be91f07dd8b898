"""Training stacks: the software a team trains with, and what it decides about memory and speed.

The same job needs different memory and runs at a different speed under Megatron-LM than under
a plain Hugging Face Trainer. Each :class:`Stack` states, from that stack's own code and docs:

* its **loss** — ``full``: the logits, their fp32 copy, the fp32 log-softmax and its gradient
  live at once (16 bytes a value, :data:`~comparator.estimate.memory.LOGITS_BYTES_PER_VALUE`);
  ``fused``: a fused cross-entropy keeps the bf16 logits and one fp32 working buffer
  (Megatron's vocab-parallel fused cross-entropy: 6 bytes a value — read from the kernel's
  design, not fitted to a published peak); ``chunked``: the bf16
  logits and one fp32 chunk in eight (torchtune's chunked output, 3.75 bytes); ``cce``: the
  logits are never materialised (Unsloth's Cut Cross-Entropy keeps a log-sum-exp per token:
  0 bytes a value). ``chunkable`` stacks can switch a plain loss to a chunked or fused one as
  a memory saver (Hugging Face and DeepSpeed through the Liger kernel). torchtitan's loss is
  plain: its published peaks (Llama 3.1 8B on 8 and 128 H100: 82.4 and 67.0 GiB, 77.0 and
  62.0 GiB with ``torch.compile``) hold the full fp32 logits, compile or not;
* its **recomputation** modes — ``selective`` is Megatron's (the attention scores only: with
  FlashAttention on it saves nothing), ``op`` is torchtitan's op-level selective checkpointing
  (every other matmul output and the attention output kept, the cheap element-wise ops and the
  other matmuls recomputed), ``full`` keeps each layer's input; Unsloth's gradient
  checkpointing keeps those inputs in CPU memory (``offloaded_checkpoints``);
* its **sharding** stages (ZeRO 0–3 or their FSDP equivalents) and the parameters a fully
  sharded stack really keeps gathered: FSDP2 the current and the prefetched layer, DeepSpeed
  ZeRO-3 up to ``stage3_max_live_parameters`` (1e9 in the configs trainers ship) —
  :attr:`live_params`;
* whether it can **offload** the optimizer states to CPU memory, and from which ZeRO stage:
  DeepSpeed's ``offload_optimizer`` needs ZeRO ≥ 1 (so "DDP with offloaded optimizer states"
  is never a layout), Megatron's ``--optimizer-cpu-offload`` needs the distributed optimizer
  (ZeRO-1), FSDP2's ``CPUOffloadPolicy`` full sharding; Unsloth has none;
* the training **methods** it offers (torchtitan trains full models only; Megatron has no
  QLoRA).

Its speed is not stated here: the fit in :mod:`comparator.estimate.mfu` has one coefficient
per stack, fitted to published runs of that stack. A job that names no stack is estimated
under :data:`DEFAULT_STACK` (Hugging Face Trainer / LLaMA-Factory, what most fine-tuning teams
run) and its hours range widens to the spread of every stack that can run it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from comparator.errors import InputError, Msg
from comparator.i18n.stored import msg_to_json

#: Bytes per logit value by loss kind (see the module docstring).
LOSS_BYTES_PER_VALUE: dict[str, float] = {
    "full": 16.0,
    "fused": 6.0,
    "chunked": 2.0 + 14.0 / 8,
    "cce": 0.0,
}
#: ``stage3_max_live_parameters``: parameters a ZeRO-3 rank may keep gathered before it releases
#: them, as the ZeRO-3 configs Hugging Face-based trainers ship set it ("stage3_max_live_
#: parameters": 1e9 in e.g. https://github.com/shibing624/MedicalGPT/blob/main/
#: deepspeed_zero_stage3_config.json).
DEEPSPEED_MAX_LIVE_PARAMS = 1_000_000_000


@dataclass(frozen=True)
class Stack:
    """One training stack and the memory-relevant choices its code makes."""

    id: str
    name: str
    aliases: tuple[str, ...]
    loss: str  # full | fused | chunked | cce
    chunkable: bool  # a plain loss can be switched to a chunked one (Liger) as a saver
    recompute: tuple[str, ...]  # modes offered, "none" first
    zero_stages: tuple[int, ...]  # sharding stages offered with more than one card
    offload_min_zero: int | None  # None: no optimizer offload; else the lowest ZeRO stage
    methods: tuple[str, ...]
    live_params: int = 0  # ZeRO-3: parameters kept gathered beyond two layers (DeepSpeed)
    offloaded_checkpoints: bool = False  # full recomputation keeps layer inputs in CPU memory
    eager_activations: bool = False  # runs Hugging Face's modeling code as written (no compile)
    autocast_fp32_weights: bool = False  # mixed precision: fp32 weights under bf16 autocast

    @property
    def loss_bytes_per_value(self) -> float:
        return LOSS_BYTES_PER_VALUE[self.loss]

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "name_msg": msg_to_json(Msg(self.name)),  # proper names but `other`'s
            "loss": self.loss,
            "recompute": list(self.recompute),
            "zero_stages": list(self.zero_stages),
            "offload_min_zero": self.offload_min_zero,
            "methods": list(self.methods),
        }


STACKS: tuple[Stack, ...] = (
    Stack(
        id="megatron",
        name="Megatron-LM / NeMo",
        aliases=("megatron-lm", "nemo", "megatron-core", "megatron-bridge", "mindspeed"),
        loss="fused",
        chunkable=False,
        recompute=("none", "selective", "full"),
        zero_stages=(0, 1, 3),
        offload_min_zero=1,
        methods=("full", "lora"),
    ),
    Stack(
        id="torchtitan",
        name="torchtitan / FSDP2",
        aliases=("fsdp", "fsdp2", "llm-foundry", "composer"),
        loss="full",
        chunkable=False,
        recompute=("none", "op", "full"),
        zero_stages=(0, 2, 3),
        offload_min_zero=3,
        methods=("full",),
    ),
    Stack(
        id="deepspeed",
        name="DeepSpeed (ZeRO 0-3)",
        aliases=("zero", "megatron-deepspeed"),
        loss="full",
        chunkable=True,
        recompute=("none", "full"),
        zero_stages=(0, 1, 2, 3),
        offload_min_zero=1,
        methods=("full", "lora", "qlora"),
        live_params=DEEPSPEED_MAX_LIVE_PARAMS,
        eager_activations=True,
    ),
    Stack(
        id="hf",
        name="Hugging Face Trainer / LLaMA-Factory / Axolotl",
        aliases=(
            "huggingface",
            "hugging-face",
            "transformers",
            "trainer",
            "llama-factory",
            "llamafactory",
            "axolotl",
            "trl",
            "ms-swift",
        ),
        loss="full",
        chunkable=True,
        recompute=("none", "full"),
        zero_stages=(0, 1, 2, 3),
        offload_min_zero=1,
        methods=("full", "lora", "qlora"),
        live_params=DEEPSPEED_MAX_LIVE_PARAMS,  # multi-card runs go through DeepSpeed
        eager_activations=True,
        autocast_fp32_weights=True,  # Trainer's bf16=True autocasts the model as loaded
    ),
    Stack(
        id="unsloth",
        name="Unsloth",
        aliases=(),
        loss="cce",
        chunkable=False,
        recompute=("none", "full"),
        zero_stages=(0,),
        offload_min_zero=None,
        methods=("full", "lora", "qlora"),
        offloaded_checkpoints=True,
    ),
    Stack(
        id="torchtune",
        name="torchtune",
        aliases=(),
        loss="chunked",
        chunkable=False,
        recompute=("none", "full"),
        zero_stages=(3,),
        offload_min_zero=3,
        methods=("full", "lora", "qlora"),
    ),
    Stack(
        id="other",
        name="in-house 3D-parallel code (published pre-training runs: Meta, DeepSeek, OPT, "
        "nanoGPT, llm.c, nanotron)",
        aliases=("custom", "in-house"),
        loss="fused",
        chunkable=False,
        recompute=("none", "selective", "full"),
        zero_stages=(0, 1, 2, 3),
        offload_min_zero=1,
        methods=("full", "lora", "qlora"),
    ),
)
STACK_IDS: tuple[str, ...] = tuple(stack.id for stack in STACKS)
#: The stack a job that names none is estimated under (documented in docs/estimation.md).
DEFAULT_STACK = "hf"
_BY_NAME: dict[str, Stack] = {
    name: stack for stack in STACKS for name in (stack.id, *stack.aliases)
}


def normalize_stack(name: str) -> str | None:
    """The stack id for ``name`` or one of its aliases (case and ``_`` insensitive)."""
    found = _BY_NAME.get(name.strip().lower().replace("_", "-").replace(" ", "-"))
    return None if found is None else found.id


@lru_cache(maxsize=16)
def stack_of(stack_id: str | None) -> Stack:
    """The :class:`Stack` of an id (``None``: the default stack)."""
    found = _BY_NAME.get(stack_id or DEFAULT_STACK)
    if found is None:
        raise InputError(
            "--stack {value!r}: unknown training stack; expected one of {names}",
            value=stack_id,
            names=", ".join(STACK_IDS),
            hint=Msg(
                "write megatron, torchtitan, deepspeed, hf, unsloth, torchtune or other "
                "(aliases: nemo, fsdp2, llama-factory, axolotl)"
            ),
        )
    return found


def stacks_for(method: str) -> tuple[Stack, ...]:
    """The named stacks that can train with ``method`` (the spread of an unstated stack; the
    in-house ``other`` is not one a team picks)."""
    return tuple(stack for stack in STACKS if method in stack.methods and stack.id != "other")
