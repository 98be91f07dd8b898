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

CPU offload of the optimizer states (ZeRO-Offload, ×``OFFLOAD_TIME_FACTOR``) is never
chosen on its own: it needs host RAM (12 bytes per parameter for AdamW) that an offer does
not state. It is used when the user asks for it (``--offload``) and advised, with its cost,
when nothing else fits.
"""

from __future__ import annotations

import bisect
import dataclasses
from dataclasses import dataclass

from comparator.domain.gpus import GpuSpec
from comparator.estimate.architecture import ModelShape
from comparator.estimate.compute import OFFLOAD_TIME_FACTOR, flops_per_token
from comparator.estimate.memory import MemoryInputs, TrainingSetup, fits_gib, memory_inputs
from comparator.estimate.mfu import efficiency
from comparator.estimate.request import EstimateRequest

CARDS_PER_NODE = 8
MAX_SEARCH_CARDS = 512
CARD_CANDIDATES: tuple[int, ...] = (1, 2, 4, 8, *range(16, MAX_SEARCH_CARDS + 1, 8))

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

    setting: str  # recompute | chunked_loss | offload_optimizer
    value: str | bool
    chosen_by: str  # user | estimator
    reason: str
    time_factor: float

    def to_json(self) -> dict[str, object]:
        return {
            "setting": self.setting,
            "value": self.value,
            "chosen_by": self.chosen_by,
            "reason": self.reason,
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


def lowest_fitting_stage(inputs: MemoryInputs, cards: int, usable_gib: float) -> int | None:
    """The lowest ZeRO stage that fits on ``cards`` cards; ``None`` if none does."""
    for stage in (0, 1, 2, 3) if cards > 1 else (0,):
        if fits_gib(inputs, cards, stage, usable_gib):
            return stage
    return None


def minimal_cards(inputs: MemoryInputs, usable_gib: float, zero: int | None) -> int | None:
    """The fewest candidate cards that fit (with ``zero``, or with any stage); ``None``."""
    stage = 3 if zero is None else zero
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
    least = minimal_cards(inputs, usable_gib, request.zero)
    cards = request.cards or least
    if cards is None:
        cards = 1 if request.zero == 0 else MAX_SEARCH_CARDS
    zero = request.zero
    if zero is None:
        found = lowest_fitting_stage(inputs, cards, usable_gib)
        zero = found if found is not None else (3 if cards > 1 else 0)
    fits = fits_gib(inputs, cards, zero, usable_gib)
    return Placement(setup, inputs, cards, zero, least, fits)


def _steps(request: EstimateRequest) -> list[TrainingSetup]:
    """The ladder with the user's fixed settings imposed, duplicates removed, in order."""
    steps: list[TrainingSetup] = []
    for recompute, chunked in LADDER:
        if recompute == "selective" and request.flash_attn:
            continue  # FlashAttention keeps no scores: nothing to recompute selectively
        setup = TrainingSetup(
            request,
            recompute=request.recompute or recompute,
            chunked_loss=chunked if request.chunked_loss is None else request.chunked_loss,
            offload_optimizer=bool(request.offload_optimizer),
        )
        if setup not in steps:
            steps.append(setup)
    return steps


def _cost(shape: ModelShape, gpu: GpuSpec, found: Placement) -> float:
    """Card-hours of a placement, up to a common factor: cards × FLOPs / efficiency."""
    request = found.setup.request
    rate = efficiency(gpu, shape.active_params, request.method, request.precision, found.cards)
    return found.cards * recompute_time_factor(shape, found.setup) / rate


def place(
    request: EstimateRequest, shape: ModelShape, gpu: GpuSpec, usable_gib: float
) -> Placement:
    """The step of the ladder that fits at the least card-hours (the fullest saving if none).

    Steps that need more cards than the fullest saving (rounded up to a node) are not
    considered; among the others the cheapest in card-hours wins, the earlier step on a tie.
    """
    steps = _steps(request)
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
    ("recompute", "none"): "fits without recomputation: no extra compute",
    ("recompute", "selective"): (
        "attention scores do not fit without FlashAttention: recompute them "
        "(selective recomputation, Korthikanti et al. 2022)"
    ),
    ("recompute", "full"): (
        "activations do not fit: keep only each layer's input and recompute the rest "
        "(full recomputation / gradient checkpointing)"
    ),
    ("chunked_loss", False): "the full logits fit: plain cross-entropy",
    ("chunked_loss", True): "the logits do not fit at once: chunked cross-entropy (8 chunks)",
    ("offload_optimizer", False): (
        "optimizer states stay on the cards (offload is only used when asked for: "
        "it needs host RAM an offer does not state)"
    ),
}


def choices(
    request: EstimateRequest, shape: ModelShape, setup: TrainingSetup
) -> tuple[Choice, ...]:
    """What was chosen for each memory saver, by whom, why, and its time factor."""
    fixed = {
        "recompute": request.recompute is not None,
        "chunked_loss": request.chunked_loss is not None,
        "offload_optimizer": request.offload_optimizer is not None,
    }
    values: dict[str, str | bool] = {
        "recompute": setup.recompute,
        "chunked_loss": setup.chunked_loss,
        "offload_optimizer": setup.offload_optimizer,
    }
    factors = {
        "recompute": recompute_time_factor(shape, setup),
        "chunked_loss": 1.0,
        "offload_optimizer": OFFLOAD_TIME_FACTOR if setup.offload_optimizer else 1.0,
    }
    return tuple(
        Choice(
            setting=name,
            value=value,
            chosen_by="user" if fixed[name] else "estimator",
            reason="set by the user" if fixed[name] else _REASONS[(name, value)],
            time_factor=round(factors[name], 4),
        )
        for name, value in values.items()
    )
