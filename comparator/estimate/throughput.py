"""How card-hours on one GPU translate to another, and how long a job runs on ``n`` cards.

Relative throughput of a GPU = dense BF16 peak (the GPU registry) × default MFU of its class
(the estimator's ``MFU_TABLE``, full training). Card-hours given on a reference GPU scale by the
ratio of the two: ``card_hours_on(B) = card_hours_on(A) × throughput(A) / throughput(B)``.
The table is printed with every plan so the conversion can be checked by hand.

Run time on ``n`` cards (billing.md): ``ceil(card_hours / (n × efficiency))`` whole hours, with
efficiency 1 within one node and ``multi_node_efficiency`` (a setting, 0.90 by default) across
nodes. Several nodes need an RDMA network between them (IB or RoCE).
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Decimal
from functools import lru_cache
from typing import Any

from comparator.domain.gpus import GPUS, GpuSpec
from comparator.domain.links import parse_network
from comparator.estimate.compute import default_mfu, gpu_class

_PLACES = Decimal("0.000001")


def relative_throughput(gpu: GpuSpec) -> Decimal | None:
    """Effective dense BF16 TFLOP/s for training (peak × MFU), or None when unknown."""
    if gpu.bf16_tflops is None:
        return None
    mfu = default_mfu(gpu, "full")
    return (Decimal(str(gpu.bf16_tflops)) * Decimal(str(mfu))).quantize(_PLACES)


def scale_card_hours(card_hours: Decimal, reference: GpuSpec, target: GpuSpec) -> Decimal | None:
    """``card_hours`` measured on ``reference`` expressed on ``target`` (None when unknown)."""
    if reference.name == target.name:
        return card_hours
    source, dest = relative_throughput(reference), relative_throughput(target)
    if source is None or dest is None:
        return None
    return (card_hours * source / dest).quantize(_PLACES, rounding=ROUND_CEILING)


@lru_cache(maxsize=1024)
def is_rdma(network: str | None) -> bool:
    """Whether a node network can carry multi-node training (InfiniBand or RoCE, in any of
    the spellings :func:`~comparator.domain.links.parse_network` reads: ``ib-200g``,
    ``4×200G IB``, ``RoCE 100Gbps``, ``HDR InfiniBand`` …)."""
    link = parse_network(network)
    return link is not None and link.rdma


@lru_cache(maxsize=1 << 16)
def run_hours(
    card_hours: Decimal, cards: int, node_cards: int, multi_node_efficiency: Decimal
) -> int:
    """Whole hours the job runs on ``cards`` cards (rounded up; once per distinct argument: the
    planner's bounds ask for the same few counts of every group)."""
    efficiency = Decimal(1) if cards <= node_cards else multi_node_efficiency
    hours = card_hours / (cards * efficiency)
    return max(1, math.ceil(hours))


def throughput_table(gpus: list[str]) -> list[dict[str, Any]]:
    """Rows of the conversion table for the GPUs a plan considered."""
    rows = []
    for name in sorted(set(gpus)):
        spec = GPUS[name]
        rows.append(
            {
                "gpu": name,
                "bf16_tflops": spec.bf16_tflops,
                "gpu_class": gpu_class(spec),
                "mfu": default_mfu(spec, "full") if spec.bf16_tflops is not None else None,
                "relative_throughput": (
                    str(relative_throughput(spec)) if spec.bf16_tflops is not None else None
                ),
            }
        )
    return rows
