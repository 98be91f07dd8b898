"""Where a job fits: card count and ZeRO stage, and the memory savers it needs to get there.

Card counts searched (``CARD_CANDIDATES``): 1, 2, 4, 8 within a node, then whole nodes of
``CARDS_PER_NODE`` up to ``MAX_SEARCH_CARDS``. With ZeRO-3 the memory per card never grows
with the card count, so the smallest count that fits is found by bisection; at that count
the lowest ZeRO stage that fits is used (less communication).

Memory savers are chosen like the ZeRO stage — only when needed, cheapest first, unless the
user fixed them (``LADDER``, time factors in brackets):

1. nothing (×1);
2. chunked cross-entropy: 1/8 of the logits live at once (≈ ×1, torchtune/Liger);
3. selective recomputation of the attention scores, only without FlashAttention
   (Korthikanti et al. 2022; the attention-score forward again, ≈ ×1.0–1.1);
4. full recomputation / gradient checkpointing (the forward again: 8·Ψ instead of 6·Ψ,
   ≈ ×1.33).

Among the steps that fit, the one with the fewest card-hours wins (cards × FLOPs / fitted
efficiency, which falls with PCIe-only cards and across nodes). With the card count free, a
step is only considered when it fits on no more cards than the fullest saving needs, rounded
up to one node (``CARDS_PER_NODE``): a node of 8 A100 without recomputation beats 4 with it,
4 PCIe cards without it lose to 1 card with it, and 128 cards without it are not weighed
against 16 with it.

5. CPU offload of the optimizer states (ZeRO-Offload, ×``OFFLOAD_TIME_FACTOR``), only when
   even full recomputation does not fit the cards at hand (a fixed card count, or none of the
   searched counts): it needs host RAM (12 bytes per parameter for AdamW, spread over the
   nodes) that an offer does not state, so the reason names the RAM it needs.

The micro-batch comes last, once the placement is settled: unless the user fixed it, the
smallest power of two past which doubling saves less than 1 % of the time
(``COMPUTE_BOUND_FACTOR``: the roofline of the matmuls and, across nodes, the gradient traffic
a longer step hides) and still fits the same cards and ZeRO stage, up to ``MAX_MICRO_BATCH_TOKENS`` tokens per
micro-batch (and ``global_batch / cards`` sequences when the user gave a global batch, which
gradient accumulation then keeps). Its time cost is
:func:`~comparator.estimate.mfu.micro_batch_factor` (a roofline of the layer matmuls): 1 once
a micro-batch is compute-bound, so a small one only costs time when it is short, and a larger
one than that would only hold memory.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

from comparator.domain.gpus import GpuSpec
from comparator.errors import Msg
from comparator.estimate.architecture import ModelShape
from comparator.estimate.compute import OFFLOAD_TIME_FACTOR, flops_per_token
from comparator.estimate.memory import MemoryInputs, TrainingSetup, fits_gib, memory_inputs
from comparator.estimate.mfu import efficiency, micro_batch_factor
from comparator.estimate.network import has_nvlink, links_of
from comparator.estimate.request import EstimateRequest
from comparator.estimate.stacks import stack_of
from comparator.i18n.stored import msg_to_json

CARDS_PER_NODE = 8
MAX_SEARCH_CARDS = 512
CARD_CANDIDATES: tuple[int, ...] = (1, 2, 4, 8, *range(16, MAX_SEARCH_CARDS + 1, 8))
#: The chosen micro-batch grows (in powers of two) up to this many tokens: compute-bound long
#: before it on every card in the registry, so a larger one only costs memory.
MAX_MICRO_BATCH_TOKENS = 16384
#: Doubling a micro-batch that saves less than 1 % of the time is not worth its memory.
COMPUTE_BOUND_FACTOR = 1.01
#: Host memory per trainable parameter under ZeRO-Offload: fp32 master weights, Adam m and v.
OFFLOADED_BYTES_PER_PARAM = 12

#: (recompute, chunked_loss), cheapest first.
LADDER: tuple[tuple[str, bool], ...] = (
    ("none", False),
    ("none", True),
    ("selective", True),
    ("full", True),
)


@dataclass(frozen=True)
class Choice:
    """One memory-saving setting: its value, who set it, why, and what it costs in time."""

    setting: str  # recompute | chunked_loss | offload_optimizer | micro_batch
    value: str | bool | int
    chosen_by: str  # user | estimator
    reason: Msg
    time_factor: float

    def to_json(self) -> dict[str, object]:
        return {
            "setting": self.setting,
            "value": self.value,
            "chosen_by": self.chosen_by,
            "reason": str(self.reason),
            "reason_msg": msg_to_json(self.reason),
            "time_factor": self.time_factor,
        }


@dataclass(frozen=True)
class Placement:
    """The setup used, its memory inputs, cards, ZeRO stage and the fewest cards that fit."""

    setup: TrainingSetup
    inputs: MemoryInputs
    cards: int
    zero: int
    min_cards: int | None
    fits: bool


def zero_stages(setup: TrainingSetup) -> tuple[int, ...]:
    """The ZeRO stages the setup's stack offers on more than one card; with the optimizer
    offloaded only those from the stack's offload floor up (no "DDP with offloaded states")."""
    stack = setup.stack
    stages = stack.zero_stages
    floor = stack.offload_min_zero
    if setup.offload_optimizer and floor is not None:
        stages = tuple(z for z in stages if z >= floor) or (max(stack.zero_stages),)
    return stages


def lowest_fitting_stage(
    inputs: MemoryInputs, cards: int, usable_gib: float, stages: tuple[int, ...] = (0, 1, 2, 3)
) -> int | None:
    """The lowest of ``stages`` that fits on ``cards`` cards; ``None`` if none does."""
    for stage in stages if cards > 1 else (0,):
        if fits_gib(inputs, cards, stage, usable_gib):
            return stage
    return None


def minimal_cards(
    inputs: MemoryInputs, usable_gib: float, zero: int | None, widest: int = 3
) -> int | None:
    """The fewest candidate cards that fit (with ``zero``, or with the ``widest`` stage)."""
    stage = widest if zero is None else zero
    if fits_gib(inputs, 1, stage, usable_gib):
        return 1
    multi = CARD_CANDIDATES[1:]
    if not fits_gib(inputs, multi[-1], stage, usable_gib):
        return None
    index = bisect.bisect_left(
        range(len(multi)), True, key=lambda i: fits_gib(inputs, multi[i], stage, usable_gib)
    )
    return multi[index]


def _place(
    request: EstimateRequest, shape: ModelShape, setup: TrainingSetup, usable_gib: float
) -> Placement:
    """Cards, ZeRO stage and min cards for ``setup`` and the request's fixed or free cards."""
    inputs = memory_inputs(shape, setup)
    stages = zero_stages(setup)
    least = minimal_cards(inputs, usable_gib, request.zero, max(stages))
    cards = request.cards or least
    if cards is None:
        cards = 1 if request.zero == 0 or stages == (0,) else MAX_SEARCH_CARDS
    zero = request.zero
    if zero is None:
        found = lowest_fitting_stage(inputs, cards, usable_gib, stages)
        zero = found if found is not None else (max(stages) if cards > 1 else 0)
    fits = fits_gib(inputs, cards, zero, usable_gib)
    return Placement(setup, inputs, cards, zero, least, fits)


def ladder(request: EstimateRequest) -> tuple[tuple[str, bool], ...]:
    """``LADDER`` as the request's stack offers it: its recomputation modes (op-level selective
    for torchtitan), and the chunked-loss step only where the stack's own loss is plain."""
    if request.stack is None:
        return LADDER  # unstated: every mode, each read as the stack that offers it
    stack = stack_of(request.stack)
    chunk = stack.chunkable
    steps: list[tuple[str, bool]] = [("none", False)]
    if chunk:
        steps.append(("none", True))
    steps += [(mode, chunk) for mode in ("selective", "op", "full") if mode in stack.recompute]
    return tuple(steps)


def _steps(request: EstimateRequest, offload: bool) -> list[TrainingSetup]:
    """The ladder with the user's fixed settings imposed, duplicates removed, in order."""
    steps: list[TrainingSetup] = []
    for recompute, chunked in ladder(request):
        if recompute == "selective" and request.flash_attn:
            continue  # FlashAttention keeps no scores: nothing to recompute selectively
        setup = TrainingSetup(
            request,
            recompute=request.recompute or recompute,
            chunked_loss=chunked if request.chunked_loss is None else request.chunked_loss,
            offload_optimizer=offload,
            micro_batch=request.micro_batch or 1,
        )
        if setup not in steps:
            steps.append(setup)
    return steps


def _cost(shape: ModelShape, gpu: GpuSpec, found: Placement) -> float:
    """Card-hours of a placement, up to a common factor: cards × FLOPs / efficiency."""
    request = found.setup.request
    nvlink = has_nvlink(gpu, links_of(request).card)
    rate = efficiency(
        gpu,
        shape.active_params,
        request.method,
        request.precision,
        found.cards,
        nvlink,
        request.stack,
        shape.is_moe,
    )
    return found.cards * recompute_time_factor(shape, found.setup) / rate


def place(
    request: EstimateRequest, shape: ModelShape, gpu: GpuSpec, usable_gib: float
) -> Placement:
    """The ladder on the cards, and only when nothing fits there (and the user left offload
    free) the ladder again with the optimizer states offloaded to CPU memory."""
    found = _ladder(request, shape, gpu, usable_gib, bool(request.offload_optimizer))
    if found.fits or request.offload_optimizer is not None:
        return found
    if stack_of(request.stack).offload_min_zero is None:
        return found  # the stack cannot offload (Unsloth)
    offloaded = _ladder(request, shape, gpu, usable_gib, True)
    return offloaded if offloaded.fits else found


def _ladder(
    request: EstimateRequest, shape: ModelShape, gpu: GpuSpec, usable_gib: float, offload: bool
) -> Placement:
    """The step of the ladder that fits at the least card-hours (the fullest saving if none).

    Steps that need more cards than the fullest saving (rounded up to a node) are not
    considered; among the others the cheapest in card-hours wins, the earlier step on a tie.
    """
    steps = _steps(request, offload)
    first = _place(request, shape, steps[0], usable_gib)
    if len(steps) == 1 or (first.fits and (request.cards is not None or first.cards == 1)):
        return first  # the least work on the fewest cards possible: nothing can beat it
    fullest = _place(request, shape, steps[-1], usable_gib)
    if not fullest.fits:
        return fullest
    bound = max(CARDS_PER_NODE, fullest.cards) if request.cards is None else fullest.cards
    fitting: list[Placement] = []
    for setup in steps[:-1]:
        found = first if setup is steps[0] else _place(request, shape, setup, usable_gib)
        if found.fits and found.cards <= bound:
            fitting.append(found)
            if found.cards == fullest.cards:
                break  # later steps do more work on no fewer cards
    best = min([*fitting, fullest], key=lambda found: _cost(shape, gpu, found))
    return _without_unneeded_chunking(request, shape, best, usable_gib)


def with_micro_batch(
    request: EstimateRequest,
    shape: ModelShape,
    found: Placement,
    usable_gib: float,
    relative_time: Callable[[Placement], float],
) -> tuple[Placement, str]:
    """The smallest power-of-two micro-batch past which a larger one saves no time, and why
    it stopped there (``no_gain``, ``memory`` or ``cap``).

    ``relative_time`` is a placement's hours up to a constant (its roofline and network
    factors over the fitted rate): a longer micro-batch keeps short ones compute-bound and
    hides gradient traffic on a slow network, and beyond that only holds memory.
    """
    if request.micro_batch is not None or not found.fits:
        return found, "user" if request.micro_batch is not None else "memory"
    cap = micro_batch_cap(request, found.cards)
    best, best_time = found, relative_time(found)
    while best.setup.micro_batch * 2 <= cap:
        setup = dataclasses.replace(best.setup, micro_batch=best.setup.micro_batch * 2)
        inputs = memory_inputs(shape, setup)
        if not fits_gib(inputs, found.cards, found.zero, usable_gib):
            return best, "memory"
        longer = dataclasses.replace(found, setup=setup, inputs=inputs)
        longer_time = relative_time(longer)
        if longer_time * COMPUTE_BOUND_FACTOR > best_time:
            return best, "no_gain"
        best, best_time = longer, longer_time
    return best, "cap"


def micro_batch_cap(request: EstimateRequest, cards: int) -> int:
    """The largest micro-batch considered: ``MAX_MICRO_BATCH_TOKENS``, and the global batch."""
    cap = max(1, MAX_MICRO_BATCH_TOKENS // request.seq_len)
    if request.global_batch is not None:
        cap = min(cap, math.ceil(request.global_batch / cards))
    return cap


def gradient_accumulation(request: EstimateRequest, micro_batch: int, cards: int) -> int:
    """Micro-batches per optimizer step that keep the user's global batch (1 without one)."""
    if request.global_batch is None:
        return 1
    return max(1, math.ceil(request.global_batch / (micro_batch * cards)))


def micro_batch_time_factor(gpu: GpuSpec, shape: ModelShape, setup: TrainingSetup) -> float:
    """Hours with this micro-batch over hours with a compute-bound one."""
    return 1 / micro_batch_factor(gpu, shape.hidden, setup.seq_len * setup.micro_batch)


def _without_unneeded_chunking(
    request: EstimateRequest, shape: ModelShape, found: Placement, usable_gib: float
) -> Placement:
    """Drop a chosen chunked loss when a later step's saving is enough on its own."""
    setup = found.setup
    if request.chunked_loss is not None or not setup.chunked_loss or setup.recompute == "none":
        return found
    plain = _place(request, shape, dataclasses.replace(setup, chunked_loss=False), usable_gib)
    return plain if plain.fits and plain.cards <= found.cards else found


def recompute_time_factor(shape: ModelShape, setup: TrainingSetup) -> float:
    """FLOPs with the setup's recomputation over FLOPs without it."""
    request = setup.request
    args = (request.method, request.seq_len, request.lora_rank)
    plain = flops_per_token(shape, args[0], "none", args[1], args[2])
    return flops_per_token(shape, args[0], setup.recompute, args[1], args[2]) / plain


_REASONS = {
    ("recompute", "none"): Msg("fits without recomputation: no extra compute"),
    ("recompute", "selective"): Msg(
        "attention scores do not fit without FlashAttention: recompute them "
        "(selective recomputation, Korthikanti et al. 2022)"
    ),
    ("recompute", "op"): Msg(
        "activations do not fit: keep the attention output and every other matmul output, "
        "recompute the rest (op-level selective checkpointing, torchtitan)"
    ),
    ("recompute", "full"): Msg(
        "activations do not fit: keep only each layer's input and recompute the rest "
        "(full recomputation / gradient checkpointing)"
    ),
    ("chunked_loss", False): Msg("the full logits fit: plain cross-entropy"),
    ("chunked_loss", True): Msg("the logits do not fit at once: chunked cross-entropy (8 chunks)"),
    ("offload_optimizer", False): Msg("the optimizer states fit on the cards"),
}


def _offload_reason(trainable_params: int, cards: int) -> Msg:
    nodes = -(-cards // CARDS_PER_NODE)
    host_gib = trainable_params * OFFLOADED_BYTES_PER_PARAM / (1 << 30) / nodes
    return Msg(
        "nothing else fits the cards: optimizer states offloaded to CPU memory "
        "(ZeRO-Offload; needs about {host_gib:.0f} GiB host RAM per node)",
        host_gib=host_gib,
    )


def _micro_batch_stop(stop: str, tokens: int, cap: int) -> Msg:
    if stop == "memory":
        return Msg(
            "the largest power-of-two micro-batch that fits the placement ({tokens} tokens "
            "per card per step)",
            tokens=tokens,
        )
    if stop == "cap":
        return Msg(
            "the largest power-of-two micro-batch considered, up to {cap} ({tokens} tokens "
            "per card per step)",
            cap=cap,
            tokens=tokens,
        )
    return Msg(
        "the smallest power-of-two micro-batch past which a larger one saves no time "
        "(roofline of the matmuls, gradient traffic between nodes): {tokens} tokens per card "
        "per step; a larger one would only hold memory",
        tokens=tokens,
    )


def _micro_batch_reason(
    request: EstimateRequest, setup: TrainingSetup, cards: int, stop: str
) -> Msg:
    tokens = setup.micro_batch * setup.seq_len
    reason = _micro_batch_stop(stop, tokens, micro_batch_cap(request, cards))
    if request.global_batch is None:
        return reason
    return Msg(
        "{reason}; {steps}× gradient accumulation keeps the global batch {global_batch}",
        reason=reason,
        steps=gradient_accumulation(request, setup.micro_batch, cards),
        global_batch=request.global_batch,
    )


def choices(
    request: EstimateRequest,
    shape: ModelShape,
    gpu: GpuSpec,
    setup: TrainingSetup,
    cards: int,
    micro_batch_stop: str = "no_gain",
) -> tuple[Choice, ...]:
    """What was chosen for each memory saver, by whom, why, and its time factor."""
    fixed = {
        "recompute": request.recompute is not None,
        "chunked_loss": request.chunked_loss is not None,
        "offload_optimizer": request.offload_optimizer is not None,
        "micro_batch": request.micro_batch is not None,
    }
    values: dict[str, str | bool | int] = {
        "recompute": setup.recompute,
        "chunked_loss": setup.chunked_loss,
        "offload_optimizer": setup.offload_optimizer,
        "micro_batch": setup.micro_batch,
    }
    factors = {
        "recompute": recompute_time_factor(shape, setup),
        "chunked_loss": 1.0,
        "offload_optimizer": OFFLOAD_TIME_FACTOR if setup.offload_optimizer else 1.0,
        "micro_batch": micro_batch_time_factor(gpu, shape, setup),
    }
    reasons = {
        name: _REASONS.get((name, value), Msg("{reason}", reason=""))
        for name, value in values.items()
    }
    reasons["micro_batch"] = _micro_batch_reason(request, setup, cards, micro_batch_stop)
    if setup.offload_optimizer:
        trainable = shape.lora_dims * setup.lora_rank if setup.adapters else shape.params
        reasons["offload_optimizer"] = _offload_reason(trainable, cards)
    return tuple(
        Choice(
            setting=name,
            value=value,
            chosen_by="user" if fixed[name] else "estimator",
            reason=Msg("set by the user") if fixed[name] else reasons[name],
            time_factor=round(factors[name], 4),
        )
        for name, value in values.items()
    )
