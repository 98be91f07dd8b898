"""Which offers can matter to a job, as plain values the catalog turns into SQL (pure).

An :class:`OfferFilter` names only conditions under which the planner would exclude an offer
anyway (docs/planner-pruning.md, rule 1): offers it drops never reach the planner, and are
counted instead of listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from comparator.errors import Msg


class CardFloor(NamedTuple):
    """The fewest cards any placement of a job takes on ``gpu`` (its fixed card count, else
    the fewest its memory allows), for the offers whose machines hold the job's model-parallel
    group (``node_cards ≥ node_group``): such an offer whose stock cannot give ``cards``
    cards, or whose node is smaller with no network (NULL or empty), fits no placement
    (docs/planner-pruning.md, rule 8)."""

    gpu: str
    cards: int
    node_group: int


@dataclass(frozen=True)
class OfferFilter:
    """Empty tuples mean "any"; ``exclude_spot`` drops spot offers; ``card_floors`` (read by
    the grouped reads only: summaries, group streams, group reads) leave out the offers that
    fit no placement, counted by why (:func:`unfit_kind`)."""

    gpus: tuple[str, ...] = ()
    provinces: tuple[str, ...] = ()  # mainland data centres in these provinces only
    cities: tuple[str, ...] = ()  # mainland data centres in these (canonical) cities only
    exclude_spot: bool = False
    card_floors: tuple[CardFloor, ...] = ()

    @property
    def by_place(self) -> bool:
        """Whether the filter restricts where the data centre is (a compliance rule)."""
        return bool(self.provinces or self.cities)

    @property
    def by_offer(self) -> bool:
        """Whether the filter restricts the offer itself (GPU model, spot): requirements."""
        return bool(self.gpus or self.exclude_spot)


UNFIT_KINDS = ("stock", "network")


def unfit_kind(
    floors: tuple[CardFloor, ...],
    gpu: str,
    node_cards: int,
    cards: int,
    stock: int | None,
    network: str | None,
) -> str | None:
    """Why an offer fits no placement by ``floors`` (``"stock"``, ``"network"``), or None:
    what the catalog's SQL computes (:func:`comparator.catalog.current_offers.unfit_columns`),
    in Python."""
    for floor in floors:
        if floor.gpu != gpu or node_cards < floor.node_group:
            continue
        if stock is not None and stock * cards < floor.cards:
            return "stock"
        if floor.cards > node_cards and (network is None or network == ""):
            return "network"
    return None


@dataclass(frozen=True)
class FilteredOffers:
    """Offers a filter kept out of the planner: how many, of which kind, and why."""

    kind: str  # "compliance" (where the data centre is), "requirements", or "memory" /
    # "throughput" (a GPU that cannot take the job, when the planner streams by group)
    reason: Msg
    count: int


class GroupSummary(NamedTuple):
    """What the catalog says of one (provider, data centre, GPU, node size, links) group of a
    job's offers without reading them (docs/planner-pruning.md, rule 5).

    ``least_per_card`` is the least, over the group's offers, of ``price × tax × FX × m /
    cards`` in the job's currency before any discount, where ``m`` is the least factor of the
    offer's time-of-use rule (hourly) or ``max(1/period, min_units/runs)`` (contracts), as the
    planner passed them; ``most_factor_per_card`` the greatest ``m / cards``. None: no offer
    has an FX rate into the job's currency. Of its hourly offers: ``hourly_rules``, the least
    and the greatest of their time-of-use rules in code-point order (None: no hourly offer)
    and ``least_hourly_per_card``, the least ``price × tax × FX × m / cards``; of its
    contracts, ``least_minimum_per_card``, the least ``price × tax × FX × min_units / cards``,
    and ``least_contract_per_card``, the least ``price × tax × FX × m / cards`` (None: none):
    a group's floor on its own run slots (docs/planner-pruning.md, rule 7, and "Seventh
    round"). A tuple: one is built per group of the job."""

    provider: str
    region: str
    gpu: str
    node_cards: int
    interconnect: str | None
    network: str | None
    offers: int
    first_offer_id: int
    least_per_card: float | None
    most_factor_per_card: float
    free_trial: bool
    hourly_rules: tuple[str, str] | None = None
    least_hourly_per_card: float | None = None
    least_minimum_per_card: float | None = None
    least_contract_per_card: float | None = None
