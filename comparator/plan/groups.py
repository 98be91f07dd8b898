"""Offers grouped into machines of one kind: provider, data centre, GPU, node size and links.

The links are part of a group because they decide the job's hours there: the offer's
卡间互联 (a PCIe box of NVLink-capable cards is slower on several cards) and, for an RDMA
network, its bandwidth between nodes (:mod:`comparator.domain.links`). A non-RDMA network
cannot carry multi-node training at all, so its speed does not split a group. The group's
work is the estimator's on exactly those links (``GpuWork.on_link``), so every candidate of a
group — and the pruning bounds computed from it — uses one card-hours function
(docs/planner-pruning.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from comparator.domain.links import parse_interconnect, parse_network
from comparator.domain.offer_view import OfferView

#: (provider, region, GPU, cards per node, link key).
GroupKey = tuple[str, str, str, int, str]


def link_key(offer: OfferView) -> str:
    """``"<interconnect>|<RDMA network>"`` as the estimator reads them back (see ``links``)."""
    return _link_key(offer.interconnect, offer.network)


@lru_cache(maxsize=4096)
def _link_key(interconnect: str | None, network_text: str | None) -> str:
    card = parse_interconnect(interconnect)
    network = parse_network(network_text)
    card_kind = card.kind if card is not None and not card.assumed else ""
    return f"{card_kind}|{network.key if network is not None else ''}"


def links(key: str) -> tuple[str | None, str | None]:
    """The (interconnect, network) strings of a link key, ``None`` for what it leaves open."""
    card, _, network = key.partition("|")
    return card or None, network or None


def group_offers(offers: Iterable[OfferView]) -> dict[GroupKey, list[OfferView]]:
    groups: dict[GroupKey, list[OfferView]] = {}
    for offer in offers:
        key = (offer.provider, offer.region, offer.gpu, offer.node_cards, link_key(offer))
        groups.setdefault(key, []).append(offer)
    return groups
