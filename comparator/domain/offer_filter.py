"""Which offers can matter to a job, as plain values the catalog turns into SQL (pure).

An :class:`OfferFilter` names only conditions under which the planner would exclude an offer
anyway (docs/planner-pruning.md, rule 1): offers it drops never reach the planner, and are
counted instead of listed.
"""

from __future__ import annotations

from dataclasses import dataclass

from comparator.errors import Msg


@dataclass(frozen=True)
class OfferFilter:
    """Empty tuples mean "any"; ``exclude_spot`` drops spot offers."""

    gpus: tuple[str, ...] = ()
    provinces: tuple[str, ...] = ()  # mainland data centres in these provinces only
    cities: tuple[str, ...] = ()  # mainland data centres in these (canonical) cities only
    exclude_spot: bool = False

    @property
    def by_place(self) -> bool:
        """Whether the filter restricts where the data centre is (a compliance rule)."""
        return bool(self.provinces or self.cities)

    @property
    def by_offer(self) -> bool:
        """Whether the filter restricts the offer itself (GPU model, spot): requirements."""
        return bool(self.gpus or self.exclude_spot)


@dataclass(frozen=True)
class FilteredOffers:
    """Offers a filter kept out of the planner: how many, of which kind, and why."""

    kind: str  # "compliance" (where the data centre is) or "requirements"
    reason: Msg
    count: int
