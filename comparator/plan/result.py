"""What the planner returns: plans with dated segments, and the ``plan --json`` document."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from comparator.compliance import ProviderReport
from comparator.domain.money import money_str
from comparator.domain.policy import JobPolicy
from comparator.errors import Msg
from comparator.estimate import Estimate
from comparator.i18n import msg_to_json, render
from comparator.plan.bill import BillLine
from comparator.plan.figures import TENTH, Figures, rounded
from comparator.plan.plan_notes import best_latency, plan_notes

OVERSIZED_CONTRACT = 3  # a contract paying more than 3× the hours it runs is flagged


@dataclass(frozen=True)
class RunBlock:
    """Consecutive hours the job runs inside one line item, the first ``overhead_hours``
    redoing work after a pause."""

    start: datetime
    end: datetime
    overhead_hours: int = 0

    @property
    def hours(self) -> int:
        return int((self.end - self.start).total_seconds() // 3600)

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "hours": self.hours,
            "overhead_hours": self.overhead_hours,
        }


@dataclass(frozen=True)
class PlanSegment:
    """One line item: ``units`` of one offer from ``start`` to ``end``; the job runs in
    ``[start, run_end)``, its first ``overhead_hours`` hours redoing work after a pause, or in
    the ``runs`` given (a contract under run windows or a daily cap pauses inside)."""

    offer_id: str
    billing: str
    start: datetime
    end: datetime
    units: int
    periods: int
    unit_price: Decimal
    cost: Decimal
    run_end: datetime
    overhead_hours: int = 0
    free_trial: bool = False  # the offer's free trial hours: cost 0
    runs: tuple[RunBlock, ...] = ()

    @property
    def run_blocks(self) -> tuple[RunBlock, ...]:
        return self.runs or (RunBlock(self.start, self.run_end, self.overhead_hours),)

    @property
    def run_hours(self) -> int:
        return sum(block.hours for block in self.run_blocks)

    @property
    def restart_hours(self) -> int:
        """Overhead hours of every run block inside the line item."""
        return sum(block.overhead_hours for block in self.run_blocks)

    @property
    def paid_hours(self) -> int:
        """The hours paid for: a contract may outlast its run (the job finished inside it)."""
        return int((self.end - self.start).total_seconds() // 3600)

    @property
    def pays_idle(self) -> bool:
        return self.paid_hours > self.run_hours

    @property
    def average_unit_price(self) -> Decimal:
        """What one unit-period cost on average: below the list price when off-peak hours won."""
        paid_periods = self.units * self.periods
        average = self.cost / paid_periods if paid_periods else self.cost
        return average.quantize(Decimal("0.0001"))

    def to_json(self) -> dict[str, Any]:
        return {
            "offer_id": self.offer_id,
            "billing": self.billing,
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "units": self.units,
            "cost": money_str(self.cost),
            "periods": self.periods,
            "unit_price": str(self.unit_price),
            "average_unit_price": str(self.average_unit_price),
            "run_start": self.run_blocks[0].start.isoformat(),
            "run_end": self.run_end.isoformat(),
            "run_hours": self.run_hours,
            "paid_hours": self.paid_hours,
            "overhead_hours": self.restart_hours,
            "free_trial": self.free_trial,
            "free_trial_hours": self.paid_hours if self.free_trial else None,
            "run_blocks": [block.to_json() for block in self.run_blocks],
        }


NETWORK_NAMES = {"ib": "InfiniBand", "roce": "RoCE"}


def machines_msg(
    nodes: int, node_cards: int, network: str | None, gbps: float | None = None
) -> Msg:
    """What a multi-node line item rents and the network it needs, as one sentence."""
    name = NETWORK_NAMES.get(network or "", "RDMA (InfiniBand/RoCE)")
    if gbps:
        return Msg(
            "{nodes} × {node_cards}-card machines on one {network} network "
            "({gbps:g} Gb/s per machine)",
            nodes=nodes,
            node_cards=node_cards,
            network=name,
            gbps=gbps,
        )
    return Msg(
        "{nodes} × {node_cards}-card machines on one {network} network",
        nodes=nodes,
        node_cards=node_cards,
        network=name,
    )


def _range(low: Decimal, expected: Decimal, high: Decimal) -> dict[str, float | None]:
    """Low / expected / high, each rounded once like every shown figure (0.1, half up)."""
    return {
        "low": rounded(low, TENTH),
        "expected": rounded(expected, TENTH),
        "high": rounded(high, TENTH),
    }


@dataclass(frozen=True)
class Plan:
    """The cheapest (or fastest) schedule of one candidate placement."""

    provider: str
    provider_name: str
    region: str
    region_name: str
    province: str | None
    city: str | None
    gpu: str
    cards: int
    node_cards: int
    currency: str
    total_cost: Decimal
    start: datetime
    finish: datetime
    run_hours: int
    work_hours: int
    card_hours: Decimal
    segments: tuple[PlanSegment, ...]
    bill: tuple[BillLine, ...] = ()  # upload, storage and egress (docs/billing.md)
    # (low, high) multipliers of work_hours and card_hours: the throughput fit's range
    hours_range: tuple[Decimal, Decimal] | None = None
    # the node network of its offers (domain.links: kind ib | roce | …, Gb/s per machine)
    network_kind: str | None = None
    network_gbps: float | None = None
    figures: Figures | None = None  # what priced it (plan.figures), set when the plan is shown

    @property
    def nodes(self) -> int:
        return -(-self.cards // self.node_cards)

    def machines(self) -> dict[str, Any] | None:
        """A multi-node placement's machines and the network they need; None on one node."""
        if self.nodes <= 1:
            return None
        return {
            "nodes": self.nodes,
            "node_cards": self.node_cards,
            "network": self.network_kind,
            "network_gbps": self.network_gbps,
            "text_msg": msg_to_json(
                machines_msg(self.nodes, self.node_cards, self.network_kind, self.network_gbps)
            ),
        }

    def ranges(self) -> dict[str, dict[str, float | None]] | None:
        """Low / expected / high compute hours and card-hours; None for exact card-hours."""
        if self.hours_range is None:
            return None
        low, high = self.hours_range
        # compute hours as card-hours ÷ cards (the figures' 38.8 h), not the billed whole hours
        card_hours = self.card_hours
        hours = card_hours / self.cards
        return {
            "work_hours_range": _range(hours * low, hours, hours * high),
            "card_hours_range": _range(card_hours * low, card_hours, card_hours * high),
        }

    @property
    def run_blocks(self) -> list[tuple[datetime, datetime]]:
        """Maximal stretches of consecutive run hours."""
        blocks: list[tuple[datetime, datetime]] = []
        for segment in self.segments:
            for run in segment.run_blocks:
                if blocks and blocks[-1][1] == run.start:
                    blocks[-1] = (blocks[-1][0], run.end)
                else:
                    blocks.append((run.start, run.end))
        return blocks

    @property
    def overhead_hours(self) -> int:
        return sum(s.restart_hours for s in self.segments)

    @property
    def billing_counts(self) -> dict[str, int]:
        """Hours per hourly/spot mode, periods per contract mode, in order of first use."""
        counts: dict[str, int] = {}
        for segment in self.segments:
            counts[segment.billing] = counts.get(segment.billing, 0) + segment.periods
        return counts

    @property
    def oversized_contract(self) -> bool:
        """A contract pays for more than 3× the hours the job runs on it (docs/billing.md)."""
        return any(
            s.billing not in ("hourly", "spot") and s.paid_hours > OVERSIZED_CONTRACT * s.run_hours
            for s in self.segments
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "region": self.region,
            "gpu": self.gpu,
            "cards": self.cards,
            "total_cost": money_str(self.total_cost),
            "start": self.start.isoformat(),
            "finish": self.finish.isoformat(),
            "run_hours": self.run_hours,
            "segments": [s.to_json() for s in self.segments],
            "bill": [b.to_json() for b in self.bill],
            "billing_mix": [{"billing": b, "count": n} for b, n in self.billing_counts.items()],
            "oversized_contract": self.oversized_contract,
            "provider_name": self.provider_name,
            "region_name": self.region_name,
            "province": self.province,
            "city": self.city,
            "node_cards": self.node_cards,
            "nodes": self.nodes,
            "machines": self.machines(),
            "figures": self.figures.to_json() if self.figures else None,
            "currency": self.currency,
            "work_hours": self.work_hours,
            "overhead_hours": self.overhead_hours,
            "card_hours": float(self.card_hours),
            "run_blocks": [
                {"start": a.isoformat(), "end": b.isoformat()} for a, b in self.run_blocks
            ],
            **(self.ranges() or {}),
        }


@dataclass(frozen=True)
class ExcludedOffer:
    provider: str
    offer_id: str
    region: str
    gpu: str
    billing: str
    reasons: tuple[Msg, ...]  # rendered in the language of the JSON
    kind: str  # compliance | requirements | memory | throughput | stock | network | …

    def to_json(self, lang: str = "en", said: Said | None = None) -> dict[str, Any]:
        """The exclusion with its ``reasons`` in ``lang`` and, beside them, the messages
        (``reason_msgs``: id and parameters) a stored quote renders in either language."""
        said = said or Said(lang)
        reasons = [said.both(r) for r in self.reasons]
        return {
            "provider": self.provider,
            "offer_id": self.offer_id,
            "region": self.region,
            "gpu": self.gpu,
            "billing": self.billing,
            "reasons": [text for text, _ in reasons],
            "reason_msgs": [message for _, message in reasons],
            "kind": self.kind,
        }


class Said:
    """Messages rendered for one JSON document, each distinct message once (offers excluded
    for the same reason share it): its text in ``lang`` and its JSON form."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self._by_id: dict[int, tuple[str, dict[str, Any]]] = {}
        self._by_key: dict[object, tuple[str, dict[str, Any]]] = {}
        self._kept: list[Msg] = []  # the ids above stay valid while the document is built

    def both(self, message: Msg) -> tuple[str, dict[str, Any]]:
        found = self._by_id.get(id(message))
        if found is not None:
            return found
        key: object = (message.text, getattr(message, "zh", None), tuple(message.params.items()))
        try:
            found = self._by_key.get(key)
        except TypeError:  # a MsgList parameter is not hashable: rendered on its own
            key = id(message)
        if found is None:
            found = self._by_key[key] = (render(message, self.lang), msg_to_json(message))
        self._by_id[id(message)] = found
        self._kept.append(message)
        return found

    def optional(self, message: Msg | None) -> tuple[str | None, dict[str, Any] | None]:
        return (None, None) if message is None else self.both(message)


@dataclass
class PlanResult:
    """Everything ``suanli plan`` reports for one job."""

    job_name: str
    job_card_hours: Decimal | None
    job_gpu: str | None
    currency: str
    objective: str
    best: Plan | None
    alternatives: list[Plan] = field(default_factory=list)
    excluded: list[ExcludedOffer] = field(default_factory=list)
    optimal: bool = True
    message: Msg | None = None  # why nothing is feasible, or over budget
    binding: str | None = None
    assumptions: dict[str, Any] = field(default_factory=dict)
    warnings: dict[str, list[str]] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    # What the quote reuses instead of re-deriving (not part of the `plan --json` document):
    estimate: Estimate | None = None  # the estimator on the best placement ([model] jobs)
    compliance: tuple[ProviderReport, ...] = ()  # every provider the offers were judged on
    policy: JobPolicy | None = None  # the dates compliance judged on
    # Years of the window whose holiday calendar is computed, not official (and why it matters).
    provisional_years: tuple[int, ...] = ()
    calendar_warning: Msg | None = None
    # Over budget: the plan `plan` without the budget returns (named in the message).
    cheapest_without_budget: Plan | None = None
    lang: str = "en"  # the language of the texts of `to_json` (the command's --lang)
    # the seeds' memory band and compute rule on the best plan (plan.priced.fit_advice)
    utilisation: dict[str, Any] | None = None

    @property
    def feasible(self) -> bool:
        return self.best is not None

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        """The `plan --json` document (card-hours become JSON numbers here, once), its texts
        in ``lang`` (the planner's by default), each beside its message (``*_msg``)."""
        said = Said(lang or self.lang)
        message, message_msg = said.optional(self.message)
        warning, warning_msg = said.optional(self.calendar_warning)
        return {
            "job": {
                "name": self.job_name,
                "card_hours": _float_or_none(self.job_card_hours),
                "gpu": self.job_gpu,
            },
            "currency": self.currency,
            "best": self.best.to_json() if self.best else None,
            "alternatives": [p.to_json() for p in self.alternatives],
            "excluded": [e.to_json(said.lang, said) for e in self.excluded],
            "optimal": self.optimal,
            "objective": self.objective,
            "message": message,
            "message_msg": message_msg,
            "binding": self.binding,
            "cheapest_without_budget": (
                self.cheapest_without_budget.to_json() if self.cheapest_without_budget else None
            ),
            "warnings": self.warnings,
            "calendar": {
                "provisional_years": list(self.provisional_years),
                "warning": warning,
                "warning_msg": warning_msg,
            },
            "assumptions": self.assumptions,
            "utilisation": self.utilisation,
            "stats": self.stats,
            "notes": [said.both(note)[0] for note in plan_notes(self.assumptions)],
            "latency": best_latency(self.best, self.compliance, said.lang),
        }


def _float_or_none(value: Decimal | None) -> float | None:
    return None if value is None else float(value)
