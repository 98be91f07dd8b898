"""Solve one estimate request: shape, memory per card, card count, ZeRO stage, FLOPs, hours.

Card counts searched (``CARD_CANDIDATES``): 1, 2, 4, 8 within a node, then whole nodes of
``CARDS_PER_NODE`` up to ``MAX_SEARCH_CARDS``. With ZeRO-3 the memory per card never grows
with the card count, so the smallest count that fits is found by bisection; at that count
the lowest ZeRO stage that fits is used (less communication). A job that needs more than one
node needs an RDMA network (InfiniBand or RoCE) between the nodes.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import lru_cache

from comparator.domain.gpus import GpuSpec, resolve_gpu
from comparator.errors import InputError
from comparator.estimate.compute import default_mfu, flops_per_token, training_hours
from comparator.estimate.memory import (
    MemoryBreakdown,
    MemoryInputs,
    TrainingSetup,
    fits_gib,
    memory_inputs,
    per_card,
)
from comparator.estimate.request import EstimateRequest, check_request
from comparator.estimate.shapes import ModelShape, resolve_model

CARDS_PER_NODE = 8
MAX_SEARCH_CARDS = 512
CARD_CANDIDATES: tuple[int, ...] = (1, 2, 4, 8, *range(16, MAX_SEARCH_CARDS + 1, 8))


@dataclass(frozen=True)
class Solution:
    """An estimate without advice: what :func:`solve` computes."""

    request: EstimateRequest
    shape: ModelShape
    gpu: GpuSpec
    setup: TrainingSetup
    cards: int
    zero: int
    min_cards: int | None
    fits: bool
    memory: MemoryBreakdown
    usable_memory_gib: float
    trainable_params: int
    tokens: int
    total_tokens: int
    flops_per_token: float
    train_flops: float
    mfu: float
    mfu_source: str
    hours: float
    card_hours: float

    @property
    def nodes(self) -> int:
        return -(-self.cards // CARDS_PER_NODE)

    @property
    def needs_rdma(self) -> bool:
        return self.nodes > 1

    @property
    def memory_gib(self) -> dict[str, float]:
        return self.memory.parts_gib()

    @property
    def strategy(self) -> str:
        """One line: parallelism, ZeRO stage, cards and nodes."""
        if self.cards == 1:
            text = "single card"
        else:
            sharding = f"ZeRO-{self.zero}" if self.zero else "DDP (no sharding)"
            text = f"data parallel over {self.cards} cards, {sharding}"
        if self.setup.offload_optimizer:
            text += ", optimizer states offloaded to CPU"
        if self.needs_rdma:
            text += f", {self.nodes} nodes × {CARDS_PER_NODE} cards (needs RDMA: IB/RoCE)"
        return text


@lru_cache(maxsize=256)
def estimable_gpu(name: str) -> GpuSpec:
    """The registry entry for ``name``; an :class:`InputError` if its throughput is unknown."""
    spec = resolve_gpu(name)
    if spec.bf16_tflops is None:
        raise InputError(
            f"--gpu {name}: {spec.name} has no known dense BF16/FP16 throughput, so it can be "
            f"priced but not estimated; pick another GPU"
        )
    return spec


def setup_of(request: EstimateRequest, *, offload_optimizer: bool = False) -> TrainingSetup:
    return TrainingSetup(
        method=request.method,
        precision=request.precision,
        pure_bf16=request.pure_bf16,
        optimizer=request.optimizer,
        lora_rank=request.lora_rank,
        seq_len=request.seq_len,
        micro_batch=request.micro_batch,
        grad_ckpt=request.grad_ckpt,
        flash_attn=request.flash_attn,
        offload_optimizer=offload_optimizer,
    )


_fits = fits_gib


def lowest_fitting_stage(inputs: MemoryInputs, cards: int, usable_gib: float) -> int | None:
    """The lowest ZeRO stage that fits on ``cards`` cards; ``None`` if none does."""
    for stage in (0, 1, 2, 3) if cards > 1 else (0,):
        if _fits(inputs, cards, stage, usable_gib):
            return stage
    return None


def minimal_cards(inputs: MemoryInputs, usable_gib: float, zero: int | None) -> int | None:
    """The fewest candidate cards that fit (with ``zero``, or with any stage); ``None``."""
    stage = 3 if zero is None else zero
    if _fits(inputs, 1, stage, usable_gib):
        return 1
    multi = CARD_CANDIDATES[1:]
    if not _fits(inputs, multi[-1], stage, usable_gib):
        return None
    index = bisect.bisect_left(
        range(len(multi)), True, key=lambda i: _fits(inputs, multi[i], stage, usable_gib)
    )
    return multi[index]


def _choose(
    request: EstimateRequest, inputs: MemoryInputs, usable_gib: float
) -> tuple[int, int, int | None]:
    """(cards, zero, min_cards) for the request's fixed or free cards and stage."""
    least = minimal_cards(inputs, usable_gib, request.zero)
    cards = request.cards or least
    if cards is None:
        cards = 1 if request.zero == 0 else MAX_SEARCH_CARDS
    if request.zero is not None:
        return cards, request.zero, least
    found = lowest_fitting_stage(inputs, cards, usable_gib)
    if found is not None:
        return cards, found, least
    return cards, 3 if cards > 1 else 0, least


def _check_shape(request: EstimateRequest, shape: ModelShape) -> None:
    if request.method != "full" and request.lora_rank >= shape.hidden:
        raise InputError(
            f"--lora-rank {request.lora_rank} must be smaller than the hidden size "
            f"{shape.hidden} of {shape.name}"
        )


def _mfu(request: EstimateRequest, gpu: GpuSpec) -> tuple[float, str]:
    if request.mfu is not None:
        return request.mfu, "user"
    return default_mfu(gpu, request.method), "table"


def solve(request: EstimateRequest, *, offload_optimizer: bool = False) -> Solution:
    """Everything about ``request`` except advice; raises :class:`InputError` on bad input."""
    check_request(request)
    gpu = estimable_gpu(request.gpu)
    shape = resolve_model(request.model)
    _check_shape(request, shape)
    setup = setup_of(request, offload_optimizer=offload_optimizer)
    inputs = memory_inputs(shape, setup)
    usable_gib = gpu.memory_gib * (1 - request.headroom)
    cards, zero, least = _choose(request, inputs, usable_gib)
    memory = per_card(inputs, cards, zero)
    tokens = request.tokens_per_epoch
    total_tokens = round(tokens * request.epochs)
    per_token = flops_per_token(
        shape, request.method, request.grad_ckpt, request.seq_len, request.lora_rank
    )
    mfu, mfu_source = _mfu(request, gpu)
    assert gpu.bf16_tflops is not None  # estimable_gpu guarantees it
    hours = training_hours(
        per_token * total_tokens, cards, gpu.bf16_tflops, mfu, request.safety_factor
    )
    return Solution(
        request=request,
        shape=shape,
        gpu=gpu,
        setup=setup,
        cards=cards,
        zero=zero,
        min_cards=least,
        fits=memory.total_gib <= usable_gib,
        memory=memory,
        usable_memory_gib=usable_gib,
        trainable_params=inputs.trainable_params,
        tokens=tokens,
        total_tokens=total_tokens,
        flops_per_token=per_token,
        train_flops=per_token * total_tokens,
        mfu=mfu,
        mfu_source=mfu_source,
        hours=hours,
        card_hours=hours * cards,
    )
