"""Communication on the offer's links: NVLink or PCIe inside a node, the network between nodes.

The request carries the offer's strings (``interconnect``, ``network``), parsed by
:mod:`comparator.domain.links`; without them the GPU registry's link and the reference network
(8 × 200 Gb/s InfiniBand per node, the clusters of the fit's multi-node runs) are assumed, and
the estimate says so.

Inside a node: a card without NVLink/HCCS — by the registry, or because the offer says PCIe —
takes the fit's ``pcie_multi`` coefficient, and tensor parallelism runs at ``PCIE_GBS``.

Between nodes (data parallel, per step on each node's network; Rajbhandari et al. 2019):

* ZeRO 0–2: gradients all-reduced, ``2·(n−1)/n · G`` bytes per node (``G`` = gradient bytes);
* ZeRO-3: gradients reduce-scattered and the weights gathered for the forward and the
  backward pass, ``(n−1)/n · (G + 2·W)``.

That traffic overlaps the step's compute (bucketed, prefetched); what exceeds it is exposed.
The fit's ``multi_node`` coefficient already holds the reference network's cost, so the time
factor is ``(compute + exposed on the offer's network) / (compute + exposed on the
reference)``, never below 1: a network faster than the published clusters is not credited.
"""

from __future__ import annotations

from dataclasses import dataclass

from comparator.domain.gpus import GpuSpec
from comparator.domain.links import (
    PCIE_GBS,
    REFERENCE_NETWORK_GBPS,
    CardLink,
    NetworkLink,
    parse_interconnect,
    parse_network,
    reference_network,
)
from comparator.estimate.request import EstimateRequest


@dataclass(frozen=True)
class Links:
    """The links one estimate assumes, each from the offer or assumed."""

    card: CardLink | None  # None: the GPU registry's
    network: NetworkLink  # the offer's, or the reference network

    @property
    def from_offer(self) -> bool:
        return self.network.text != ""


def links_of(request: EstimateRequest) -> Links:
    network = parse_network(request.network)
    return Links(parse_interconnect(request.interconnect), network or reference_network())


def has_nvlink(gpu: GpuSpec, card: CardLink | None) -> bool:
    """NVLink/HCCS between the cards: the registry's, unless the offer says PCIe."""
    if card is None or card.kind == "unknown":
        return gpu.has_nvlink
    return gpu.has_nvlink and card.kind in ("nvlink", "hccs")


def card_bandwidth_gbs(gpu: GpuSpec, card: CardLink | None) -> float:
    """GB/s per direction between two cards of a node (half the stated NVLink figure)."""
    if has_nvlink(gpu, card) and gpu.nvlink_gbs:
        return gpu.nvlink_gbs / 2
    return PCIE_GBS


@dataclass(frozen=True)
class StepTraffic:
    """One data-parallel step: its compute seconds and the bytes it moves between nodes."""

    nodes: int
    zero: int
    gradient_bytes: float
    weight_bytes: float
    compute_seconds: float

    def node_bytes(self) -> float:
        share = (self.nodes - 1) / self.nodes
        if self.zero >= 3:
            return share * (self.gradient_bytes + 2 * self.weight_bytes)
        return 2 * share * self.gradient_bytes

    def exposed_seconds(self, gbps: float) -> float:
        return max(0.0, self.node_bytes() / (gbps * 1e9 / 8) - self.compute_seconds)


def network_time_factor(traffic: StepTraffic, network: NetworkLink) -> float:
    """Hours on ``network`` over hours on the reference network (≥ 1; 1 on one node)."""
    if traffic.nodes <= 1 or traffic.compute_seconds <= 0:
        return 1.0
    on_offer = traffic.compute_seconds + traffic.exposed_seconds(network.gbps)
    reference = traffic.compute_seconds + traffic.exposed_seconds(REFERENCE_NETWORK_GBPS)
    return max(1.0, on_offer / reference)


def links_json(links: Links, gpu: GpuSpec, factor: float) -> dict[str, object]:
    """What the estimate used for the links, each figure marked as stated or assumed."""
    card, network = links.card, links.network
    return {
        "interconnect": {
            "text": card.text if card else None,
            "nvlink": has_nvlink(gpu, card),
            "gbs": card_bandwidth_gbs(gpu, card),
            "assumed": card is None or card.assumed,
        },
        "network": {
            "text": network.text or None,
            "kind": network.kind,
            "gbps": network.gbps,
            "rdma": network.rdma,
            "assumed": network.assumed,
        },
        "reference_network_gbps": REFERENCE_NETWORK_GBPS,
        "network_time_factor": round(factor, 4),
    }
