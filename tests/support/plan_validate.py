"""An independent check of a plan against the billing rules and the job (docs/billing.md).

The tests run it on the plans they make; it lives beside them, not in the package.
:func:`validate_plan` recomputes every segment's cost hour by hour from the offer, the
time-of-use rules and the calendar (not from the optimiser's tables), and checks every
constraint: offers, units, stock, network, billing periods and minimums, segment overlap and
maximality, the run window, contiguity, restart overhead, work done, deadline, budget, spot and
compliance. It returns the list of problems (empty when the plan is valid).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from comparator.domain.billing import HOURLY_MODES, PERIOD_HOURS
from comparator.domain.calendar import factor_at, parse_time_of_use
from comparator.domain.gpus import GPUS, resolve_gpu
from comparator.domain.job import Job
from comparator.domain.money import round_money
from comparator.domain.offer_view import OfferView
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import PlanError
from comparator.estimate.throughput import is_rdma, run_hours, scale_card_hours
from comparator.plan.candidates import PriceBasis, machine_of
from comparator.plan.dp.problem import ScheduledSegment, ScheduleProblem, ScheduleResult
from comparator.plan.result import Plan, PlanSegment
from comparator.plan.work_hours import WORKLOAD_MULTI_NODE_EFFICIENCY

HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class ValidationContext:
    job: Job
    offers: Mapping[str, OfferView]
    prices: PriceBasis
    multi_node_efficiency: Decimal | None  # None: the estimator's network model
    eligible_ids: frozenset[str] | None = None
    timezones: Mapping[str, ZoneInfo] = field(default_factory=dict)
    no_conversion: frozenset[str] = frozenset()
    day_zone: ZoneInfo = DEFAULT_TIMEZONE  # the job's zone: its days for max_hours_per_day

    def zone(self, provider: str) -> ZoneInfo:
        return self.timezones.get(provider, DEFAULT_TIMEZONE)


def _hours(a: datetime, b: datetime) -> int:
    return round((b - a).total_seconds() / 3600)


def _whole_hour(moment: datetime, zone: ZoneInfo) -> bool:
    local = moment.astimezone(zone)
    return local.minute == 0 and local.second == 0 and local.microsecond == 0


def resume_problems(
    spans: Sequence[tuple[object, object, int]],
    overhead: int,
    interruptible: bool,
    unit: str,
    machines: Sequence[object] | None = None,
) -> tuple[int, list[str]]:
    """The run blocks of time-ordered (start, run_end, overhead) spans, and every span whose
    restart overhead is not what a resume costs (the first block pays none). A span on another
    machine than the one before (``machines``, one per span) starts a new block: a migration."""
    problems: list[str] = []
    blocks = 0
    previous_end: object = None
    previous_machine: object = None
    for index, (start, run_end, charged) in enumerate(spans):
        machine = machines[index] if machines is not None else None
        resumed = previous_end != start or machine != previous_machine
        previous_machine = machine
        blocks += resumed
        expected = overhead if resumed and blocks > 1 else 0
        if charged != expected:
            problems.append(f"segment at {start}: overhead {charged} {unit}, expected {expected}")
        previous_end = run_end
    if blocks > 1 and not interruptible:
        problems.append(f"{blocks} run blocks, but the job may not pause")
    return blocks, problems


def segment_cost(
    segment: PlanSegment, offer: OfferView, unit_price: Decimal, zone: ZoneInfo
) -> Decimal:
    """The line item of ``segment`` recomputed from the billing rules."""
    if offer.billing not in HOURLY_MODES:
        return round_money(unit_price * segment.units * segment.periods)
    rules = parse_time_of_use(offer.time_of_use)
    total = Decimal(0)
    moment = segment.start
    while moment < segment.end:
        total += unit_price * segment.units * factor_at(rules, moment.astimezone(zone))
        moment += HOUR
    return round_money(total)


class _Checker:
    def __init__(self, plan: Plan, context: ValidationContext) -> None:
        self.plan = plan
        self.context = context
        self.job = context.job
        self.zone = context.zone(plan.provider)
        self.problems: list[str] = []

    def fail(self, text: str) -> None:
        self.problems.append(text)

    def offer(self, segment: PlanSegment) -> OfferView | None:
        offer = self.context.offers.get(segment.offer_id)
        if offer is None:
            self.fail(f"segment {segment.offer_id}: unknown offer")
            return None
        plan = self.plan
        if (offer.provider, offer.region, offer.gpu) != (plan.provider, plan.region, plan.gpu):
            self.fail(
                f"offer {offer.offer_id} is {offer.provider}/{offer.region}/{offer.gpu}, "
                f"not the plan's {plan.provider}/{plan.region}/{plan.gpu}"
            )
        if offer.billing != segment.billing:
            self.fail(
                f"offer {offer.offer_id} bills {offer.billing}, segment says {segment.billing}"
            )
        return offer

    def placement(self, segment: PlanSegment, offer: OfferView) -> None:
        eligible = self.context.eligible_ids
        if eligible is not None and offer.offer_id not in eligible:
            self.fail(f"offer {offer.offer_id} is not compliant for this job")
        schedule, req = self.job.schedule, self.job.requirements
        if offer.billing == "spot" and not (req.spot and schedule.interruptible):
            self.fail(f"offer {offer.offer_id} is spot but the job does not allow spot")
        if req.gpus and offer.gpu not in req.gpus:
            self.fail(f"offer {offer.offer_id}: GPU {offer.gpu} not allowed by the job")
        units = -(-self.plan.cards // offer.cards)
        if segment.units != units:
            self.fail(
                f"segment {offer.offer_id}: {segment.units} units, {self.plan.cards} "
                f"cards need {units}"
            )
        if offer.stock is not None and segment.units > offer.stock:
            self.fail(f"segment {offer.offer_id}: {segment.units} units exceed stock {offer.stock}")
        if self.plan.cards > offer.node_cards and not is_rdma(offer.network):
            self.fail(
                f"offer {offer.offer_id}: {self.plan.cards} cards span nodes without "
                f"an IB/RoCE network"
            )

    def billing(self, segment: PlanSegment, offer: OfferView) -> None:
        if not (_whole_hour(segment.start, self.zone) and _whole_hour(segment.end, self.zone)):
            self.fail(f"segment {offer.offer_id}: not on whole hours of {self.zone.key}")
        length = _hours(segment.start, segment.end)
        if length != segment.periods * PERIOD_HOURS[offer.billing]:
            self.fail(
                f"segment {offer.offer_id}: {length} h is not {segment.periods} × "
                f"{PERIOD_HOURS[offer.billing]} h"
            )
        if segment.periods < offer.min_units:
            self.fail(
                f"segment {offer.offer_id}: {segment.periods} periods, minimum {offer.min_units}"
            )
        price = self.context.prices.unit_price(offer)
        if price is None:
            self.fail(f"offer {offer.offer_id}: no FX rate for {offer.currency}")
            return
        expected = segment_cost(segment, offer, price, self.zone)
        if segment.free_trial:
            expected = Decimal("0.00")
            first = self.plan.segments[0] is segment
            if not (self.job.use_free_trial and first and length <= offer.free_trial_hours):
                self.fail(f"segment {offer.offer_id}: not a free trial the job and offer allow")
        if expected != segment.cost:
            self.fail(
                f"segment {offer.offer_id} {segment.start.isoformat()}: costs "
                f"{expected}, plan says {segment.cost}"
            )

    def run(self, segment: PlanSegment) -> None:
        schedule = self.job.schedule
        if segment.start < schedule.earliest_start:
            self.fail(f"segment {segment.offer_id} starts before the earliest start")
        if not segment.start < segment.run_end <= segment.end:
            self.fail(f"segment {segment.offer_id}: run end outside the paid stretch")
        if segment.run_end > schedule.deadline:
            self.fail(f"segment {segment.offer_id}: runs past the deadline")
        zone = self.context.zone(self.plan.provider)
        blocks = segment.run_blocks
        if any(a.end > b.start for a, b in itertools.pairwise(blocks)) or not (
            segment.start <= blocks[0].start and blocks[-1].end == segment.run_end
        ):
            self.fail(f"segment {segment.offer_id}: run blocks out of order or outside it")
        for block in blocks:
            hour = block.start
            while schedule.run_windows and hour < block.end:
                if not schedule.in_window(hour.astimezone(zone)):
                    self.fail(f"segment {segment.offer_id}: runs at {hour.isoformat()}, outside")
                    break
                hour += HOUR

    def daily(self, segments: Sequence[PlanSegment]) -> None:
        """``max_hours_per_day``: run hours (restarts included) per day of the job's zone."""
        cap = self.job.schedule.max_hours_per_day
        if cap is None:
            return
        zone = self.context.day_zone
        ran = Counter(
            (block.start + HOUR * i).astimezone(zone).date()
            for s in segments
            for block in s.run_blocks
            for i in range(block.hours)
        )
        for day, hours in sorted(ran.items()):
            if hours > cap:
                self.fail(f"{day}: runs {hours} h, max_hours_per_day {cap}")

    def sequence(self, segments: Sequence[PlanSegment]) -> None:
        for before, after in itertools.pairwise(segments):
            if after.start < before.end:
                self.fail(f"segments {before.offer_id} and {after.offer_id} overlap")
            same = after.offer_id == before.offer_id and after.free_trial == before.free_trial
            if after.start == before.end and same:
                self.fail(
                    f"segments of {after.offer_id} at {after.start.isoformat()} should "
                    f"be one segment"
                )
            if after.start < before.run_end:
                self.fail(f"run time of {before.offer_id} overlaps {after.offer_id}")

    def work(self, segments: Sequence[PlanSegment]) -> None:
        schedule = self.job.schedule
        overhead = schedule.restart_overhead_hours if schedule.interruptible else 0
        spans = [(b.start, b.end, b.overhead_hours) for s in segments for b in s.run_blocks]
        converts = self.plan.provider not in self.context.no_conversion
        machines = [
            machine_of(offer, converts) if (offer := self.context.offers.get(s.offer_id)) else None
            for s in segments
            for _ in s.run_blocks
        ]
        blocks, problems = resume_problems(spans, overhead, schedule.interruptible, "h", machines)
        for problem in problems:
            self.fail(problem)
        ran = sum(s.run_hours for s in segments)
        if ran != self.plan.run_hours:
            self.fail(f"run hours {self.plan.run_hours} but segments run {ran}")
        needed = self._work_hours()
        if ran - overhead * max(blocks - 1, 0) < needed:
            self.fail(f"only {ran - overhead * max(blocks - 1, 0)} h of work, job needs {needed}")

    def _work_hours(self) -> int:
        workload = self.job.workload
        hours = self.plan.card_hours  # [model] jobs: the estimator's, multi-node loss included
        efficiency = Decimal(1)
        if workload.card_hours is not None and workload.gpu is not None:
            scaled = scale_card_hours(
                workload.card_hours, resolve_gpu(workload.gpu), GPUS[self.plan.gpu]
            )
            hours = scaled if scaled is not None else hours
            efficiency = self.context.multi_node_efficiency or WORKLOAD_MULTI_NODE_EFFICIENCY
        return run_hours(hours, self.plan.cards, self.plan.node_cards, efficiency)

    def totals(self, segments: Sequence[PlanSegment]) -> None:
        total = sum((s.cost for s in segments), Decimal(0))
        total += sum((line.cost for line in self.plan.bill), Decimal(0))
        if total != self.plan.total_cost:
            self.fail(f"total {self.plan.total_cost} but segments and bill lines sum to {total}")
        for line in self.plan.bill:
            hours = Decimal(_hours(line.start, line.end))
            if line.kind == "storage" and line.cost != round_money(line.unit_price * hours):
                self.fail(f"storage line {line.cost} is not {line.unit_price} × {hours} h")
            if line.kind == "upload" and segments and line.end != segments[0].start:
                self.fail("the upload does not end at the first run hour")
            if line.start < self.job.schedule.earliest_start:
                self.fail(f"{line.kind} starts before the job's earliest start")
        if segments and (
            self.plan.start != segments[0].start or self.plan.finish != segments[-1].run_end
        ):
            self.fail("plan start/finish do not match its first and last run hours")
        if self.plan.finish > self.job.schedule.deadline:
            self.fail(f"finishes {self.plan.finish.isoformat()}, after the deadline")
        if self.job.max_cost is not None and self.plan.total_cost > self.job.max_cost:
            self.fail(f"costs {self.plan.total_cost}, above the budget {self.job.max_cost}")

    def check(self) -> list[str]:
        segments = sorted(self.plan.segments, key=lambda s: s.start)
        if not segments:
            return ["the plan has no segments"]
        for segment in segments:
            offer = self.offer(segment)
            if offer is not None:
                self.placement(segment, offer)
                self.billing(segment, offer)
            self.run(segment)
        self.sequence(segments)
        self.work(segments)
        self.daily(segments)
        self.totals(segments)
        return self.problems


def validate_plan(plan: Plan, context: ValidationContext) -> list[str]:
    """Every way ``plan`` breaks the billing rules or the job's constraints (empty: valid)."""
    return _Checker(plan, context).check()


def validate_shared_stock(plans: Sequence[Plan], offers: Mapping[str, OfferView]) -> list[str]:
    """Problems where plans together rent more units of an offer than its stock, hour by hour."""
    used: dict[tuple[str, datetime], int] = {}
    for plan in plans:
        for segment in plan.segments:
            moment = segment.start
            while moment < segment.end:
                key = (segment.offer_id, moment)
                used[key] = used.get(key, 0) + segment.units
                moment += HOUR
    problems = []
    for (offer_id, moment), units in sorted(used.items()):
        stock = offers[offer_id].stock if offer_id in offers else None
        if stock is not None and units > stock:
            problems.append(
                f"offer {offer_id} at {moment.isoformat()}: {units} units rented, stock {stock}"
            )
    return problems


def validate_shared_trials(plans: Sequence[Plan], offers: Mapping[str, OfferView]) -> list[str]:
    """Problems where two plans of one joint plan use the same provider's free trial (a provider
    gives its trial once per account, docs/billing.md)."""
    users: dict[str, list[int]] = {}
    for index, plan in enumerate(plans):
        providers = {offers[s.offer_id].provider for s in plan.segments if s.free_trial}
        for provider in providers:
            users.setdefault(provider, []).append(index)
    return [
        f"provider {provider}: free trial used by plans {', '.join(map(str, jobs))}"
        for provider, jobs in sorted(users.items())
        if len(jobs) > 1
    ]


def check_plan(plan: Plan, context: ValidationContext) -> None:
    """Raise :class:`PlanError` listing every problem of ``plan``."""
    problems = validate_plan(plan, context)
    if problems:
        raise PlanError("invalid plan: " + "; ".join(problems))


# --- one candidate's schedule, slot by slot ----------------------------------------------------
def _schedule_segment(problem: ScheduleProblem, segment: ScheduledSegment) -> list[str]:
    hourly = {r.key: r for r in problem.hourly}
    contracts = {c.key: c for c in problem.contracts}
    where = f"segment {segment.key} [{segment.start}, {segment.end})"
    problems = []
    if segment.key in hourly:
        rate = hourly[segment.key]
        slots = range(segment.start, segment.end)
        if segment.end - segment.start < rate.min_slots or segment.periods != len(slots):
            problems.append(f"{where}: {len(slots)} slots, minimum {rate.min_slots}")
        if not all(rate.usable(t) for t in slots):
            problems.append(f"{where}: uses a slot the rate does not offer")
            return problems
        cost = round_money(sum((rate.slot_costs[t] for t in slots), Decimal(0)))
    elif segment.key in contracts:
        contract = contracts[segment.key]
        if segment.end - segment.start != segment.periods * contract.period_slots:
            problems.append(f"{where}: not {segment.periods} whole periods")
        if segment.periods < contract.min_periods:
            problems.append(f"{where}: {segment.periods} periods, minimum {contract.min_periods}")
        if not all(contract.usable(t) for t in range(segment.start, segment.end)):
            problems.append(f"{where}: uses a slot the rate does not offer")
        cost = round_money(contract.cost * segment.periods)
    else:
        return [f"{where}: unknown rate"]
    if cost != segment.cost:
        problems.append(f"{where}: costs {cost}, schedule says {segment.cost}")
    if not segment.start < segment.run_end <= min(segment.end, problem.deadline_slot):
        problems.append(
            f"{where}: runs until {segment.run_end}, outside its paid slots or "
            f"past the deadline {problem.deadline_slot}"
        )
    blocks = segment.run_blocks
    if blocks[0][0] < segment.start or blocks[-1][1] != segment.run_end:
        problems.append(f"{where}: run blocks outside the line item")
    if any(a[1] >= b[0] for a, b in itertools.pairwise(blocks)):
        problems.append(f"{where}: run blocks overlap or touch")
    if segment.kind == "hourly" and (len(blocks) > 1 or blocks[0][0] != segment.start):
        problems.append(f"{where}: an hourly line item runs every slot it pays before the finish")
    closed = [t for a, b, _ in blocks for t in range(a, b) if not problem.may_run(t)]
    if closed:
        problems.append(f"{where}: runs in slot {closed[0]}, outside the run windows")
    if all(b - a <= overhead for a, b, overhead in blocks):
        problems.append(f"{where}: does no work (a line item only to restart in)")
    return problems


def validate_schedule(problem: ScheduleProblem, result: ScheduleResult) -> list[str]:
    """Every way ``result`` breaks billing.md on ``problem`` (empty: valid)."""
    segments = sorted(result.segments, key=lambda s: s.start)
    problems = [p for s in segments for p in _schedule_segment(problem, s)]
    for before, after in itertools.pairwise(segments):
        if after.start < before.end:
            problems.append(f"segments at {before.start} and {after.start} overlap")
        if after.start == before.end and after.key == before.key:
            problems.append(f"segments of {after.key} at {after.start} should be one")
    overhead = problem.restart_overhead_slots if problem.interruptible else 0
    spans = [block for s in segments for block in s.run_blocks]
    machine = dict(zip(problem.rate_keys, problem.machines, strict=True))
    machines = [machine.get(s.key) for s in segments for _ in s.run_blocks]
    blocks, resume = resume_problems(spans, overhead, problem.interruptible, "slots", machines)
    problems += resume
    work = sum(s.run_slots for s in segments) - overhead * max(blocks - 1, 0)
    if work != problem.work_slots:
        problems.append(f"{work} slots of work done, {problem.work_slots} needed")
    if segments:
        storage = problem.storage_per_slot * (result.finish - segments[0].run_start)
        if storage != result.storage_cost:
            problems.append(f"storage {result.storage_cost}, expected {storage}")
    total = sum((s.cost for s in segments), Decimal(0)) + result.storage_cost
    if total != result.cost:
        problems.append(f"total {result.cost}, segments and storage sum to {total}")
    if segments and result.finish != segments[-1].run_end:
        problems.append(f"finish {result.finish}, last run slot ends {segments[-1].run_end}")
    cap = problem.max_run_slots_per_day  # run slots a day, overhead included
    days = problem.day_indices(max((s.run_end for s in segments), default=0))
    ran = Counter(days[t] for s in segments for a, b, _ in s.run_blocks for t in range(a, b))
    return problems + [f"day {d}: {n} run slots, cap {cap}" for d, n in ran.items() if 0 < cap < n]
