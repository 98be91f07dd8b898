"""What an offer's 卡间互联 (interconnect) and 节点网络 (network) strings mean, in bandwidth.

Offers state them as free text: ``NVLink``, ``PCIe``, ``HCCS``; ``IB 200G``, ``4×200G IB``,
``ib-400g``, ``RoCE 100Gbps``, ``roce-200g``, ``25G 以太网``, ``eth-25g``, ``8x400G NDR``.
:func:`parse_network` reads the kind (InfiniBand, RoCE, Ethernet) and the node's total
bandwidth in Gb/s (``ports × speed``; HDR/NDR/EDR without a figure are 200/400/100 Gb/s);
:func:`parse_interconnect` reads the kind between the cards of one node. A string whose kind
or speed cannot be read takes the documented assumed figure and is marked ``assumed`` so the
caller can warn, naming the string.

Assumed figures: an RDMA network without a speed is one port (IB 200 Gb/s, RoCE 100 Gb/s);
Ethernet without one 25 Gb/s; an unreadable network is not RDMA (it cannot carry multi-node
training) at 25 Gb/s. With no offer at all (the bare ``estimate`` command) the network is
``REFERENCE_NETWORK_GBPS``: 8 × 200 Gb/s InfiniBand per node, the clusters of the published
multi-node runs the throughput fit learnt from (llm-foundry's "1600 Gbps node-node
interconnect", Megatron-LM's Selene). Inside a node, NVLink and HCCS run at the GPU registry's
figure and PCIe at ``PCIE_GBS`` GB/s (PCIe 4.0 x16 after protocol overhead); an unreadable
interconnect takes the registry's. Both parsers are cached: a national catalog repeats a few
dozen strings over a million offers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

#: Effective PCIe 4.0 x16 bandwidth between two cards, GB/s per direction.
PCIE_GBS = 25.0
#: The node network the published multi-node runs had: 8 × 200 Gb/s InfiniBand per node.
REFERENCE_NETWORK_GBPS = 1600.0
RDMA_KINDS = frozenset({"ib", "roce"})
_DEFAULT_GBPS = {"ib": 200.0, "roce": 100.0, "ethernet": 25.0, "unknown": 25.0}
_GENERATIONS = {"edr": 100.0, "hdr": 200.0, "ndr": 400.0, "xdr": 800.0}
_PORTS = re.compile(r"(\d+)\s*[x×*]\s*(\d+(?:\.\d+)?)\s*([gt])")
_SPEED = re.compile(r"(\d+(?:\.\d+)?)\s*([gt])(?:bit/s|bps|bit|b/s|be|b)?(?![a-z])")


@dataclass(frozen=True)
class NetworkLink:
    """A node network: its kind, the node's total bandwidth (Gb/s) and whether it is assumed."""

    text: str
    kind: str  # ib | roce | ethernet | unknown
    gbps: float
    assumed: bool

    @property
    def rdma(self) -> bool:
        """InfiniBand or RoCE: can carry multi-node training."""
        return self.kind in RDMA_KINDS

    @property
    def key(self) -> str:
        """The class that decides training time: ``"ib 200G"``; ``""`` when not RDMA."""
        return f"{self.kind} {self.gbps:g}G" if self.rdma else ""


@dataclass(frozen=True)
class CardLink:
    """The link between the cards of one node: nvlink | hccs | pcie | unknown."""

    text: str
    kind: str
    assumed: bool


def _network_kind(text: str) -> str | None:
    if "infiniband" in text or re.search(r"(?<![a-z])ib(?![a-z])", text):
        return "ib"
    if any(generation in text for generation in _GENERATIONS):
        return "ib"
    if "roce" in text:
        return "roce"
    if any(word in text for word in ("ethernet", "以太网", "eth", "gbe", "tcp", "万兆", "千兆")):
        return "ethernet"
    return None


def _speed_gbps(text: str) -> float | None:
    """The node's total Gb/s: ``ports × speed`` or one speed (T = 1000 G); None if absent."""
    scale = {"g": 1.0, "t": 1000.0}
    ports = _PORTS.search(text)
    if ports:
        return int(ports.group(1)) * float(ports.group(2)) * scale[ports.group(3)]
    speed = _SPEED.search(text)
    if speed:
        return float(speed.group(1)) * scale[speed.group(2)]
    for generation, gbps in _GENERATIONS.items():
        if generation in text:
            return gbps
    if "万兆" in text:
        return 10.0
    return None


def _normal(text: str) -> str:
    return text.strip().lower().replace("ｇ", "g").replace("×", "x")


@lru_cache(maxsize=4096)
def parse_network(text: str | None) -> NetworkLink | None:
    """The offer's node network; ``None`` when it states none."""
    if text is None or not text.strip():
        return None
    normal = _normal(text)
    kind = _network_kind(normal)
    speed = _speed_gbps(normal)
    if kind is None:
        return NetworkLink(text, "unknown", _DEFAULT_GBPS["unknown"], True)
    if speed is None or speed <= 0:
        return NetworkLink(text, kind, _DEFAULT_GBPS[kind], True)
    return NetworkLink(text, kind, speed, False)


def reference_network() -> NetworkLink:
    """The network assumed without an offer: the fit's multi-node clusters."""
    return NetworkLink("", "ib", REFERENCE_NETWORK_GBPS, True)


@lru_cache(maxsize=4096)
def parse_interconnect(text: str | None) -> CardLink | None:
    """The offer's link between cards; ``None`` when it states none."""
    if text is None or not text.strip():
        return None
    normal = _normal(text)
    for kind in ("nvlink", "hccs", "pcie"):
        if kind in normal or (kind == "pcie" and "pci-e" in normal):
            return CardLink(text, kind, False)
    if "nvswitch" in normal or "sxm" in normal:
        return CardLink(text, "nvlink", False)
    return CardLink(text, "unknown", True)
