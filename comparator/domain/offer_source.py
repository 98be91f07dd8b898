"""The planner's one port to offers: what it may ask of them, and nothing else (pure).

:class:`OfferSource` is to the planner what httpx's ``BaseTransport`` is to its client: the
planner (:func:`comparator.plan.plan_job`) asks a source for a job's groups with their price
floors, the offers of the groups its walk reaches, every offer of the job when streaming cannot
decide, how many current offers there are (so that it can say how many were left out and why),
and the providers' profiles. Two implementations: the catalog in SQL, group by group
(:class:`comparator.catalog.queries_groups.CatalogGroups`), and a list in memory
(:class:`comparator.domain.offer_list.OfferList`, for tests and library callers, as httpx's
``MockTransport``). Every question names the job's :class:`OfferFilter`: what a source leaves
out is only what the planner would exclude anyway (docs/planner-pruning.md, rule 1).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple, Protocol

from comparator.domain.money import FxTable
from comparator.domain.offer_filter import GroupSummary, OfferFilter
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.domain.profile_plan import ProviderTerms


class GroupPricing(NamedTuple):
    """How to floor a group's prices (:class:`GroupSummary`): in ``currency`` through ``fx``,
    each hourly offer at its time-of-use rule's least factor (``factors``; 0 for a rule not
    given), each contract at ``max(1/M, min_units/runs)`` with ``M`` the run slots a period can
    hold per billing mode (``periods``; the period itself when absent). With ``own_runs`` (a
    job that may not pause) the summaries also carry what rule 7 of docs/planner-pruning.md
    reads (:class:`GroupSummary`'s ``hourly_rules`` and the least floors of its hourly
    offers and of its contracts' minimum periods)."""

    currency: str
    fx: FxTable
    factors: Mapping[str, float]
    runs: int
    periods: Mapping[str, int] | None = None
    own_runs: bool = False  # also the aggregates of the floors on each group's own run slots


class GroupSummaries(NamedTuple):
    groups: list[GroupSummary]
    in_places: int | None  # current offers in the filter's places (None: it names none)


class ProfileSource(Protocol):
    """Where providers' profiles come from (an :class:`OfferSource` is one)."""

    def profiles(self, providers: Collection[str] | None = None) -> dict[str, ProviderProfile]:
        """The profiles of ``providers`` (every provider's when None), by provider id."""
        ...

    def provider_terms(self, providers: Collection[str]) -> dict[str, ProviderTerms]:
        """What the planner's bounds read of the profiles of ``providers`` (their time zone,
        discount and storage terms), by provider id, without parsing the whole profiles."""
        ...


class OfferSource(ProfileSource, Protocol):
    """The current offers, as the planner may ask for them (see the module docstring)."""

    def rules(self, wanted: OfferFilter) -> list[str]:
        """The distinct time-of-use rules of the hourly offers ``wanted`` keeps, sorted."""
        ...

    def summaries(self, wanted: OfferFilter, pricing: GroupPricing) -> GroupSummaries:
        """One summary per group of the offers ``wanted`` keeps, and how many current offers
        (the job's or not) stand in ``wanted``'s places."""
        ...

    def read(self, wanted: OfferFilter, groups: Sequence[GroupSummary]) -> list[OfferView]:
        """The offers ``wanted`` keeps in ``groups``, by offer id."""
        ...

    def offers(self, wanted: OfferFilter) -> list[OfferView]:
        """Every offer ``wanted`` keeps, by offer id."""
        ...

    def count(self, wanted: OfferFilter | None = None) -> int:
        """How many current offers there are (in ``wanted``'s places only, when it has some)."""
        ...
