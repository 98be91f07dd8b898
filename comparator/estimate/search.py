"""Solve one estimate request: shape, memory per card, card count, ZeRO stage, FLOPs, hours.

Placement and the memory savers are chosen in :mod:`comparator.estimate.savings`. A job that
needs more than one node needs an RDMA network (InfiniBand or RoCE) between the nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from comparator.domain.gpus import GpuSpec, resolve_gpu
from comparator.domain.links import reference_network
from comparator.errors import InputError, Msg
from comparator.estimate.compute import OFFLOAD_TIME_FACTOR, flops_per_token, training_hours
from comparator.estimate.memory import MemoryBreakdown, TrainingSetup, per_card
from comparator.estimate.mfu import (
    FP8_FAMILIES,
    efficiency_detail,
    hours_range_factors,
    stack_spread,
)
from comparator.estimate.network import (
    Links,
    StepTraffic,
    has_nvlink,
    links_of,
    network_time_factor,
)
from comparator.estimate.request import EstimateRequest, check_request
from comparator.estimate.savings import (
    CARD_CANDIDATES,
    CARDS_PER_NODE,
    MAX_SEARCH_CARDS,
    Choice,
    Placement,
    choices,
    gradient_accumulation,
    micro_batch_time_factor,
    place,
    with_micro_batch,
)
from comparator.estimate.shapes import ModelShape, resolve_model
from comparator.estimate.stacks import Stack, stack_of

__all__ = ["CARDS_PER_NODE", "CARD_CANDIDATES", "MAX_SEARCH_CARDS", "Solution", "solve"]


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
    hours_low: float = 0.0
    hours_high: float = 0.0
    links: Links = field(default_factory=lambda: Links(None, reference_network()))
    network_time_factor: float = 1.0
    micro_batch_stop: str = "no_gain"  # why the chosen micro-batch is not larger
    efficiency_source: dict[str, object] = field(default_factory=dict)

    @property
    def stack(self) -> Stack:
        """The training stack the estimate assumed (the default one when unstated)."""
        return stack_of(self.request.stack)

    @property
    def stack_assumed(self) -> bool:
        return self.request.stack is None

    @cached_property
    def choices(self) -> tuple[Choice, ...]:
        """What was chosen for each memory saver, by whom, why, at what time factor."""
        return choices(
            self.request, self.shape, self.gpu, self.setup, self.cards, self.micro_batch_stop
        )

    @property
    def gradient_accumulation(self) -> int:
        """Micro-batches per optimizer step (keeping the user's global batch)."""
        return gradient_accumulation(self.request, self.setup.micro_batch, self.cards)

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
        """One line: parallelism, ZeRO stage, cards and nodes (English; ``strategy_msg``)."""
        return str(self.strategy_msg)

    @property
    def strategy_msg(self) -> Msg:
        """The strategy line as a message of the catalogue."""
        if self.cards == 1:
            text = Msg("single card")
        elif self.zero:
            text = Msg(
                "data parallel over {cards} cards, ZeRO-{zero}", cards=self.cards, zero=self.zero
            )
        else:
            text = Msg("data parallel over {cards} cards, DDP (no sharding)", cards=self.cards)
        if self.setup.offload_optimizer:
            text = Msg("{strategy}, optimizer states offloaded to CPU", strategy=text)
        if self.needs_rdma:
            text = Msg(
                "{strategy}, {nodes} nodes × {per_node} cards (needs RDMA: IB/RoCE)",
                strategy=text,
                nodes=self.nodes,
                per_node=CARDS_PER_NODE,
            )
        return text


@lru_cache(maxsize=256)
def estimable_gpu(name: str) -> GpuSpec:
    """The registry entry for ``name``; an :class:`InputError` if its throughput is unknown."""
    spec = resolve_gpu(name)
    if spec.bf16_tflops is None:
        raise InputError(
            "--gpu {name}: {card} has no known dense BF16/FP16 throughput, so it can be "
            "priced but not estimated; pick another GPU",
            name=name,
            card=spec.name,
            hint=Msg(
                "pick a GPU with a known dense BF16 throughput for the estimate, such as A100-80G, H800 or 4090"
            ),
        )
    return spec


def setup_of(request: EstimateRequest) -> TrainingSetup:
    """The setup with the request's fixed choices, and none of the memory savers otherwise."""
    return TrainingSetup(
        request,
        recompute=request.recompute or "none",
        chunked_loss=bool(request.chunked_loss),
        offload_optimizer=bool(request.offload_optimizer),
        micro_batch=request.micro_batch or 1,
    )


def _check_shape(request: EstimateRequest, shape: ModelShape) -> None:
    if request.method != "full" and request.lora_rank >= shape.hidden:
        raise InputError(
            "--lora-rank {lora_rank} must be smaller than the hidden size {hidden} of {name}",
            lora_rank=request.lora_rank,
            hidden=shape.hidden,
            name=shape.name,
            hint=Msg("write a whole number below the hidden size, such as 8, 16 or 64"),
        )


def _mfu(
    request: EstimateRequest, gpu: GpuSpec, shape: ModelShape, found: Placement, links: Links
) -> tuple[float, str]:
    """The user's MFU, or the fitted one for these cards, their link and the micro-batch."""
    if request.mfu is not None:
        return request.mfu, "user"
    rate, _ = _efficiency(request, gpu, shape, found, links)
    return rate / micro_batch_time_factor(gpu, shape, found.setup), "fit"


def _efficiency(
    request: EstimateRequest, gpu: GpuSpec, shape: ModelShape, found: Placement, links: Links
) -> tuple[float, dict[str, object]]:
    nvlink = has_nvlink(gpu, links.card)
    args = (request.method, request.precision, found.cards, nvlink, request.stack, shape.is_moe)
    return efficiency_detail(gpu, shape.active_params, *args)


def _hours_range(
    request: EstimateRequest, gpu: GpuSpec, shape: ModelShape, found: Placement, links: Links
) -> tuple[float, float]:
    """(low, high) factors of the hours: the fit's residuals, widened to the spread of the
    stacks when the request names none."""
    low, high = hours_range_factors()
    if request.stack is None:
        nvlink = has_nvlink(gpu, links.card)
        args = (request.method, request.precision, found.cards, nvlink)
        fastest, slowest = stack_spread(gpu, shape.active_params, *args, shape.is_moe)
        low, high = low * min(fastest, 1.0), high * max(slowest, 1.0)
    return low, high


def _network_factor(
    request: EstimateRequest, gpu: GpuSpec, found: Placement, links: Links, seconds_per_token: float
) -> float:
    """The time the offer's network adds over the reference network's (1 on one node)."""
    nodes = -(-found.cards // CARDS_PER_NODE)
    if nodes <= 1:
        return 1.0
    inputs, batch = found.inputs, found.setup.micro_batch
    steps = gradient_accumulation(request, batch, found.cards) if found.zero <= 1 else 1
    traffic = StepTraffic(
        nodes=nodes,
        zero=found.zero,
        gradient_bytes=inputs.trainable_params * inputs.grad_bytes,
        weight_bytes=inputs.total_weight_bytes,
        compute_seconds=request.seq_len * batch * steps * seconds_per_token,
    )
    return network_time_factor(traffic, links.network)


def _rates(
    request: EstimateRequest, gpu: GpuSpec, shape: ModelShape, found: Placement, links: Links
) -> tuple[float, float, float]:
    """(network time factor, MFU, hours per token up to a constant) of a placement."""
    mfu, _ = _mfu(request, gpu, shape, found, links)
    per_token = flops_per_token(
        shape, request.method, found.setup.recompute, request.seq_len, request.lora_rank
    )
    assert gpu.bf16_tflops is not None  # estimable_gpu guarantees it
    network = _network_factor(
        request, gpu, found, links, per_token / (gpu.bf16_tflops * 1e12 * mfu)
    )
    return network, mfu, network / mfu


def _check_precision(request: EstimateRequest, gpu: GpuSpec) -> None:
    if request.precision == "fp8" and gpu.family not in FP8_FAMILIES:
        raise InputError(
            "--precision fp8: {name} has no FP8 tensor cores (Ada, Hopper or Blackwell "
            "cards have them); use bf16",
            name=gpu.name,
            hint=Msg(
                "use precision bf16 on this card, or a GPU with FP8 tensor cores (Ada, Hopper or Blackwell)"
            ),
        )


def solve(request: EstimateRequest) -> Solution:
    """Everything about ``request`` except advice; raises :class:`InputError` on bad input."""
    check_request(request)
    gpu = estimable_gpu(request.gpu)
    _check_precision(request, gpu)
    shape = resolve_model(request.model)
    _check_shape(request, shape)
    usable_gib = gpu.memory_gib * (1 - request.headroom)
    links = links_of(request)
    placed = place(request, shape, gpu, usable_gib)
    found, stop = with_micro_batch(
        request,
        shape,
        placed,
        usable_gib,
        lambda p: _rates(request, gpu, shape, p, links)[2],
    )
    setup = found.setup
    memory = per_card(found.inputs, found.cards, found.zero)
    tokens = request.tokens_per_epoch
    total_tokens = round(tokens * request.epochs)
    per_token = flops_per_token(
        shape, request.method, setup.recompute, request.seq_len, request.lora_rank
    )
    mfu, mfu_source = _mfu(request, gpu, shape, found, links)
    network, _, _ = _rates(request, gpu, shape, found, links)
    assert gpu.bf16_tflops is not None  # estimable_gpu guarantees it
    hours = training_hours(
        per_token * total_tokens, found.cards, gpu.bf16_tflops, mfu, request.safety_factor
    )
    hours *= network * (OFFLOAD_TIME_FACTOR if setup.offload_optimizer else 1.0)
    fitted = mfu_source == "fit"  # a given --mfu is exact: no range
    low, high = _hours_range(request, gpu, shape, found, links) if fitted else (1.0, 1.0)
    _, source = _efficiency(request, gpu, shape, found, links)
    return Solution(
        request=request,
        shape=shape,
        gpu=gpu,
        setup=setup,
        cards=found.cards,
        zero=found.zero,
        min_cards=found.min_cards,
        fits=memory.total_gib <= usable_gib,
        memory=memory,
        usable_memory_gib=usable_gib,
        trainable_params=found.inputs.trainable_params,
        tokens=tokens,
        total_tokens=total_tokens,
        flops_per_token=per_token,
        train_flops=per_token * total_tokens,
        mfu=mfu,
        mfu_source=mfu_source,
        hours=hours,
        card_hours=hours * found.cards,
        hours_low=hours * low,
        hours_high=hours * high,
        links=links,
        network_time_factor=network,
        micro_batch_stop=stop,
        efficiency_source=source,
    )
