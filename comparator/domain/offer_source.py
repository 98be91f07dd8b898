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

from collections.abc import Collection, Iterator, Mapping, Sequence
from decimal import Decimal
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


class OfferCensus(NamedTuple):
    """What one scan of a filter's offers finds before their groups are summarised
    (docs/planner-pruning.md, "Fourth round"): the distinct time-of-use rules of the hourly
    offers it keeps (its card floors aside), sorted; how many current offers (the job's or
    not) stand in its places (0 when it names none); and the offers its card floors leave
    out, by why (empty where the group stream counts them itself)."""

    rules: list[str]
    in_places: int
    unfit: Mapping[str, int]


class GroupSummaries(NamedTuple):
    groups: list[GroupSummary]
    in_places: int | None  # current offers in the filter's places (None: it names none)


ShapeId = tuple[str, int, str | None, str | None]  # GPU, node size, interconnect, network


class GroupShape(NamedTuple):
    """The job's offers of one :data:`ShapeId`: how many, whether any has free trial hours,
    and how many raw groups (provider and data centre) hold them."""

    gpu: str
    node_cards: int
    interconnect: str | None
    network: str | None
    offers: int
    free_trial: bool
    groups: int = 0


class ShapeOrder(NamedTuple):
    """How the groups of one shape are ordered (docs/planner-pruning.md, rule 5): their link
    key (raw groups of one link key are one group), whether a group of it may be keyed FIRST
    (read before every other), and the card-hours its key multiplies the floor by."""

    link: str
    first: bool
    card_hours: float


class OrderedGroup(NamedTuple):
    """One group (its raw summaries, same link key) and the value ``order`` its place in the
    stream follows: ``(0, ·)`` for a shape that may be FIRST, else ``(1, card_hours · (d·A −
    h·M))`` at the least discount ``d``, least over the parts."""

    order: tuple[int, float]
    parts: list[GroupSummary]


class GroupStream(Protocol):
    """The groups of a job's offers, summarised once and read in the order the walk needs."""

    def shapes(self) -> list[GroupShape]:
        """The job's offers per shape."""
        ...

    def providers(self) -> list[str]:
        """The providers of the job's offers, sorted."""
        ...

    def ordered(
        self, order: Mapping[ShapeId, ShapeOrder], least_discount: float, half_place: float
    ) -> tuple[int, Iterator[OrderedGroup]]:
        """How many groups the shapes of ``order`` hold (one per provider, data centre, GPU,
        node size and link key), and those groups by their ``order`` (nondecreasing)."""
        ...

    def at(self, provider: str, region: str, gpu: str) -> list[GroupSummary]:
        """The raw summaries of one data centre's GPU (the quote reads its offers)."""
        ...

    def unfit(self) -> dict[str, int]:
        """How many offers the filter's card floors left out, by why (``"stock"``,
        ``"network"``; docs/planner-pruning.md, rule 8): in no summary."""
        ...

    def close(self) -> None: ...


class ProfileSource(Protocol):
    """Where providers' profiles come from (an :class:`OfferSource` is one)."""

    def profiles(self, providers: Collection[str] | None = None) -> dict[str, ProviderProfile]:
        """The profiles of ``providers`` (every provider's when None), by provider id."""
        ...

    def provider_terms(self, providers: Collection[str]) -> dict[str, ProviderTerms]:
        """What the planner's bounds read of the profiles of ``providers`` (their time zone,
        discount and storage terms), by provider id, without parsing the whole profiles."""
        ...

    def provider_discounts(self, providers: Collection[str]) -> dict[str, Decimal]:
        """The discount of each of ``providers`` whose profile states one (nothing else of
        the profiles is read)."""
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

    def census(self, wanted: OfferFilter) -> OfferCensus:
        """The rules, the places' count and the unfit offers of ``wanted`` (one scan)."""
        ...

    def group_stream(
        self, wanted: OfferFilter, pricing: GroupPricing, census: OfferCensus | None = None
    ) -> GroupStream:
        """The groups of the offers ``wanted`` keeps, as :meth:`summaries` floors them, to be
        read in order (:class:`GroupStream`; the caller closes it); ``census``: what
        :meth:`census` found of ``wanted`` (its counts of unfit offers are the stream's)."""
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
