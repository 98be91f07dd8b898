"""Model parallelism for what data parallelism cannot hold: a TP × PP × CP × DP layout.

ZeRO shards model states over data-parallel cards but never the activations of a card's own
micro-batch, so long sequences and very wide layers stop fitting at any card count. This
module searches the layouts Megatron-LM uses (Korthikanti et al. 2022, Narayanan et al. 2021):

* tensor parallel ``tp`` (1, 2, 4, 8; inside one node, dividing the heads) with sequence
  parallelism: weights, gradients, optimizer states and *all* activations divided by ``tp``;
* context parallel ``cp`` (2–8, for sequences of 8K tokens or more; ring attention): the
  activations of a micro-batch divided by ``cp``; ``tp × cp`` stays inside one node;
* pipeline parallel ``pp`` (across nodes): model states divided by ``pp``; with 1F1B the first
  stage keeps ``pp`` micro-batches of its ``L/pp`` layers, i.e. one full micro-batch of all
  layers — the activations are not divided (Korthikanti eq. 5);
* data parallel ``dp`` over the rest, with the optimizer states sharded over it (distributed
  optimizer / ZeRO-1).

Per card: ``(W + G)/(tp·pp) + O/(tp·pp·dp) + activations/(tp·cp) + logits/(tp·cp)`` plus the
CUDA context and buckets, with W, G, O and the activations as :mod:`~comparator.estimate.memory`
counts them for the job (recomputation and FlashAttention included).

Time: the fitted efficiency on ``tp·pp·cp·dp`` cards times a communication factor —
tensor parallel all-reduces of ``b·s·h`` 16-bit values, 4 per layer (6 with recomputation), at
the card's NVLink bandwidth (half the stated bidirectional figure) or PCIe's when the GPU or
the offer has none (:func:`~comparator.estimate.network.card_bandwidth_gbs`), not
overlapped; context parallel K/V exchange, half hidden behind the attention; and the pipeline
bubble ``(pp − 1)/m`` with ``m = MICRO_BATCHES_PER_STAGE × pp`` micro-batches per step.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from comparator.errors import Msg
from comparator.estimate.memory import (
    COMM_BUCKET_GIB,
    CUDA_CONTEXT_GIB,
    GIB,
    MemoryInputs,
    memory_inputs,
)
from comparator.estimate.mfu import efficiency
from comparator.estimate.network import card_bandwidth_gbs, has_nvlink
from comparator.estimate.savings import (
    CARD_CANDIDATES,
    CARDS_PER_NODE,
    MAX_SEARCH_CARDS,
    micro_batch_time_factor,
)
from comparator.estimate.search import Solution
from comparator.i18n.stored import msg_to_json

MICRO_BATCHES_PER_STAGE = 4
CP_MIN_SEQ = 8192
TP_SIZES = (1, 2, 4, 8)
CP_SIZES = (1, 2, 4, 8)
PP_SIZES = (1, 2, 4, 8, 16, 32, 64)
MAX_DP = MAX_SEARCH_CARDS
_NEEDED = Msg("data parallelism alone cannot hold the activations or model states per card")


@dataclass(frozen=True)
class Layout:
    """One parallel layout with its memory per card and time."""

    tp: int
    pp: int
    cp: int
    dp: int
    memory_gib: float
    fits: bool
    time_factor: float
    hours: float
    card_hours: float
    reason: Msg

    @property
    def cards(self) -> int:
        return self.tp * self.pp * self.cp * self.dp

    def to_json(self) -> dict[str, Any]:
        doc = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        doc["reason"] = str(self.reason)
        doc["reason_msg"] = msg_to_json(self.reason)
        doc["cards"] = self.cards
        doc["sequence_parallel"] = self.tp > 1
        return doc


def _memory_gib(inputs: MemoryInputs, tp: int, pp: int, cp: int, dp: int) -> float:
    weights = inputs.total_weight_bytes
    grads = inputs.trainable_params * inputs.grad_bytes
    optimizer = inputs.trainable_params * inputs.optimizer_bytes
    states = (weights + grads) / (tp * pp) + optimizer / (tp * pp * dp)
    activations = (inputs.layer_activation_bytes + inputs.logits_bytes) / (tp * cp)
    overhead = (CUDA_CONTEXT_GIB + COMM_BUCKET_GIB) * GIB + inputs.dequant_bytes
    return (states + activations + overhead) / GIB


def _bandwidth_gbs(s: Solution) -> float:
    return card_bandwidth_gbs(s.gpu, s.links.card)


def _time_factor(s: Solution, tp: int, pp: int, cp: int, mfu: float) -> float:
    shape, request = s.shape, s.request
    tokens = request.seq_len * s.setup.micro_batch / cp
    assert s.gpu.bf16_tflops is not None
    layer_seconds = (
        s.flops_per_token / shape.layers * tokens / tp / (s.gpu.bf16_tflops * 1e12 * mfu)
    )
    bandwidth = _bandwidth_gbs(s) * 1e9
    factor = 1.0
    if tp > 1:
        reduces = 6 if s.setup.recompute == "full" else 4
        volume = reduces * 2 * (tp - 1) / tp * tokens * shape.hidden * 2
        factor += volume / bandwidth / layer_seconds
    if cp > 1:
        volume = 2 * (cp - 1) * tokens * shape.kv_dim * 2
        factor += 0.5 * volume / bandwidth / layer_seconds
    return factor * (1 + (pp - 1) / (MICRO_BATCHES_PER_STAGE * pp))


def _splits(s: Solution) -> list[tuple[int, int, int]]:
    """(tp, pp, cp) allowed for this model: tp divides the heads, tp × cp inside one node."""
    heads, layers = s.shape.heads, s.shape.layers
    long = s.request.seq_len >= CP_MIN_SEQ
    return [
        (tp, pp, cp)
        for tp in TP_SIZES
        for cp in (CP_SIZES if long else (1,))
        for pp in PP_SIZES
        if not heads % tp and tp * cp <= CARDS_PER_NODE and pp <= layers
    ]


def _fewest_cards(s: Solution, inputs: MemoryInputs, split: tuple[int, int, int]) -> int | None:
    """The fewest cards (a searched count, or the user's) on which ``split`` fits; ``None``."""
    tp, pp, cp = split
    group = tp * pp * cp
    if s.request.cards is not None:
        fixed = s.request.cards
        ok = (
            not fixed % group
            and _memory_gib(inputs, tp, pp, cp, fixed // group) <= s.usable_memory_gib
        )
        return fixed if ok else None
    if _memory_gib(inputs, tp, pp, cp, MAX_DP) > s.usable_memory_gib:
        return None
    return next(
        (
            cards
            for cards in CARD_CANDIDATES
            if cards >= group
            and not cards % group
            and _memory_gib(inputs, tp, pp, cp, cards // group) <= s.usable_memory_gib
        ),
        None,
    )


def _layout(s: Solution, inputs: MemoryInputs, split: tuple[int, int, int, int]) -> Layout:
    tp, pp, cp, dp = split
    cards = tp * pp * cp * dp
    request = s.request
    mfu = (
        s.mfu
        if s.mfu_source == "user"
        else efficiency(
            s.gpu,
            s.shape.active_params,
            request.method,
            request.precision,
            cards,
            has_nvlink(s.gpu, s.links.card),
        )
        / micro_batch_time_factor(s.gpu, s.shape, s.setup)
    )
    factor = _time_factor(s, tp, pp, cp, mfu)
    assert s.gpu.bf16_tflops is not None
    seconds = s.train_flops * request.safety_factor / (cards * s.gpu.bf16_tflops * 1e12 * mfu)
    hours = seconds / 3600 * factor
    memory = _memory_gib(inputs, tp, pp, cp, dp)
    return Layout(
        tp,
        pp,
        cp,
        dp,
        round(memory, 3),
        memory <= s.usable_memory_gib,
        round(factor, 4),
        hours,
        hours * cards,
        _NEEDED,
    )


def recommend(s: Solution) -> Layout | None:
    """The layout of the estimate: plain data parallelism when it fits, else the fewest cards
    (then the least time) of the TP × PP × CP × DP layouts that fit; ``None`` when none does."""
    if s.fits:
        return Layout(
            1,
            1,
            1,
            s.cards,
            round(s.memory_gib["total"], 3),
            True,
            1.0,
            s.hours,
            s.card_hours,
            Msg("fits with data parallelism ({strategy})", strategy=s.strategy_msg),
        )
    inputs = memory_inputs(s.shape, s.setup)
    fitting = []
    for split in _splits(s):
        cards = _fewest_cards(s, inputs, split)
        if cards is not None:
            tp, pp, cp = split
            fitting.append(_layout(s, inputs, (tp, pp, cp, cards // (tp * pp * cp))))
    if not fitting:
        return None
    return min(fitting, key=lambda layout: (layout.cards, layout.hours, layout.tp * layout.cp))
