"""A fixed card count beyond any offer: an error in the job file, not a stock shortage.

Where the line is (README, "Sane values"): an offer can rent at most its stock of units ×
the cards of a unit, and no more than one node unless its network is IB/RoCE
(:func:`offer_supply`, as the planner's bounds count it). A job whose ``[workload] cards`` (or
``[training] cards``) is more than every offer it may use can rent (the offers of its places
and GPUs, whatever their compliance, price or timing) asks for something the catalog does not
have: that is an ``error:`` naming the key and the largest count. An offer with stock 0 is *out of stock*: it
counts with its machines (one node, or any count over IB/RoCE), so a count such offers carry
stays the planner's stock diagnosis (exit 4), as does any count some offer can rent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from comparator.domain.job import Job
from comparator.domain.offer_view import OfferView
from comparator.errors import JobFileError, Msg
from comparator.estimate.throughput import is_rdma


def offer_supply(offer: OfferView) -> float:
    """The most cards ``offer`` can rent: its stock of units (none stated: unlimited; 0: out
    of stock, its machines count), within one node unless its network is IB/RoCE."""
    stocked = offer.stock is not None and offer.stock > 0
    most = offer.stock * offer.cards if stocked and offer.stock is not None else math.inf
    return most if is_rdma(offer.network) else min(most, max(offer.node_cards, offer.cards))


def fixed_cards(job: Job) -> tuple[str, int] | None:
    """The key and the card count a job fixes (``[workload]`` or ``[training] cards``)."""
    if job.workload.cards is not None:
        return "[workload] cards", job.workload.cards
    cards = (job.training or {}).get("cards")
    if isinstance(cards, int) and not isinstance(cards, bool):
        return "[training] cards", cards
    return None


def check_card_supply(job: Job, offers: Sequence[OfferView]) -> None:
    """A :class:`JobFileError` when the job fixes more cards than any of ``offers`` can rent."""
    fixed = fixed_cards(job)
    if fixed is None or not offers:
        return
    key, cards = fixed
    largest = max(offers, key=offer_supply)
    most = offer_supply(largest)
    if most >= cards:
        return
    raise JobFileError(
        "{path}: {key} = {cards}: more than any offer the job may use can rent; "
        "the most is {most} ({provider}/{region}, {gpu}, offer {offer_id})",
        path=job.source or job.name,
        key=key,
        cards=cards,
        most=int(most),
        provider=largest.provider,
        region=largest.region,
        gpu=largest.gpu,
        offer_id=largest.offer_id,
        hint=Msg(
            "set {key} to {most} or fewer, or leave it out so that the planner "
            "chooses the count; `suanli offers --gpu {gpu}` lists each offer's stock",
            key=key,
            most=int(most),
            gpu=largest.gpu,
        ),
    )
