"""Stock shared by several jobs: what a schedule rents per clock hour, the free trials it takes
(a provider gives its trial once per account: to one job of a joint plan), and the per-job DP
on the stock and trials the others leave (:mod:`comparator.plan.joint.joint_plan`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping, Sequence

from comparator.plan.candidates import Candidate
from comparator.plan.dp.dp_solver import solve_schedule
from comparator.plan.dp.problem import ContractRate, HourlyRate, ScheduleResult

Usage = dict[tuple[str, int], int]  # (offer id, clock hour) → units rented


def _hour(candidate: Candidate, slot: int) -> int:
    return int(candidate.grid.at(slot).timestamp() // 3600)


def usage_of(candidate: Candidate, schedule: ScheduleResult) -> Usage:
    """Units rented per (offer, clock hour); a free trial uses its offer's stock."""
    used: Usage = {}
    for segment in schedule.segments:
        offer_id = candidate.trials.get(segment.key, segment.key)
        if candidate.offers[offer_id].stock is None:
            continue
        for slot in range(segment.start, segment.end):
            key = (offer_id, _hour(candidate, slot))
            used[key] = used.get(key, 0) + candidate.units[offer_id]
    return used


def trial_providers(schedules: Iterable[tuple[Candidate, ScheduleResult]]) -> list[str]:
    """The provider of every free trial the schedules use, once per schedule that uses one."""
    return [
        candidate.offers[candidate.trials.get(segment.key, segment.key)].provider
        for candidate, schedule in schedules
        for segment in schedule.segments
        if segment.key in candidate.trials
    ]


def trials_once(schedules: Iterable[tuple[Candidate, ScheduleResult]]) -> bool:
    """No provider's free trial used by two of the schedules (docs/billing.md)."""
    providers = trial_providers(schedules)
    return len(providers) == len(set(providers))


def without_trials(candidate: Candidate, providers: Collection[str]) -> Candidate:
    """``candidate`` without the free trial rates of ``providers`` (another job of the plan
    took their trial); the schedules it yields are valid for ``candidate`` (fewer rates)."""
    taken = {
        key
        for key, offer_id in candidate.trials.items()
        if candidate.offers[offer_id].provider in providers
    }
    if not taken:
        return candidate
    hourly = tuple(r for r in candidate.problem.hourly if r.key not in taken)
    return dataclasses.replace(
        candidate, problem=dataclasses.replace(candidate.problem, hourly=hourly)
    )


def by_machine(candidate: Candidate) -> list[Candidate]:
    """The candidate once per machine: the MILP does not model migrations, so it plans each
    machine alone (a change of machine is never seamless, docs/billing.md)."""
    problem = candidate.problem
    machines = sorted(set(problem.machines))
    if len(machines) == 1:
        return [candidate]
    parts = []
    for machine in machines:
        hourly = tuple(r for r in problem.hourly if r.machine == machine)
        contracts = tuple(c for c in problem.contracts if c.machine == machine)
        part = dataclasses.replace(problem, hourly=hourly, contracts=contracts)
        parts.append(dataclasses.replace(candidate, problem=part))
    return parts


def add_usage(total: Usage, more: Usage) -> None:
    for key, units in more.items():
        total[key] = total.get(key, 0) + units


def fits(stock: Mapping[str, int], used: Usage) -> bool:
    return all(units <= stock[offer_id] for (offer_id, _), units in used.items())


def restricted_to(candidate: Candidate, used: Usage) -> Candidate:
    """``candidate`` with each rate usable only in slots where enough stock is left."""

    def free(offer_id: str, slots: int) -> tuple[bool, ...] | None:
        offer = candidate.offers[offer_id]
        if offer.stock is None:
            return None
        need = candidate.units[offer_id]
        return tuple(
            used.get((offer_id, _hour(candidate, t)), 0) + need <= offer.stock for t in range(slots)
        )

    def both(rate: HourlyRate | ContractRate, slots: int) -> tuple[bool, ...] | None:
        """Stock left, and the rate's own availability (the upload, run windows)."""
        stock = free(candidate.trials.get(rate.key, rate.key), slots)
        if stock is None or rate.available is None:
            return stock if stock is not None else rate.available
        return tuple(ok and rate.usable(t) for t, ok in enumerate(stock))

    problem = candidate.problem
    hourly = tuple(
        dataclasses.replace(r, available=both(r, len(r.slot_costs))) for r in problem.hourly
    )
    contracts = tuple(
        dataclasses.replace(
            c, available=both(c, problem.deadline_slot + c.period_slots * c.min_periods)
        )
        for c in problem.contracts
    )
    return dataclasses.replace(
        candidate, problem=dataclasses.replace(problem, hourly=hourly, contracts=contracts)
    )


def cheapest_on(
    candidates: Sequence[Candidate],
    used: Usage,
    budget_cents: int | None,
    taken: Collection[str] = (),
) -> tuple[Candidate, ScheduleResult] | None:
    """The cheapest schedule of any candidate on the stock ``used`` leaves, without the free
    trials of the providers ``taken`` (original candidate returned: the schedule is valid for
    it)."""
    best: tuple[int, Candidate, Candidate, int] | None = None
    for candidate in candidates:
        restricted = without_trials(restricted_to(candidate, used), taken)
        profile = solve_schedule(restricted.problem, keep_trace=False)
        fixed = candidate.bill.fixed_cents  # the data bill's upload storage and egress
        diagonal = profile.cheapest(None if budget_cents is None else budget_cents - fixed)
        cents = None if diagonal is None else profile.cost_cents(diagonal) + fixed
        if cents is not None and diagonal is not None and (best is None or cents < best[0]):
            best = (cents, candidate, restricted, diagonal)
    if best is None:
        return None
    _, candidate, restricted, diagonal = best
    return candidate, solve_schedule(restricted.problem).schedule(diagonal)
