"""A lower bound on a joint plan that counts each provider's free trial once
(:mod:`comparator.plan.joint.joint_plan`; docs/billing.md, "Free trial hours").

The jobs' own optima are a lower bound, but each may open on the same provider's trial, which a
joint plan gives to one job at most. Per job, its cheapest plan without any trial (the exact DP
on its trial candidates without their trial rates; the floors of the others) and, per provider
whose trial it may open on, a bound of its plans on that trial (the floor of that provider's
candidates). A joint plan picks one of these options per job and gives each provider's trial
to one job at most, so it costs at least the cheapest such assignment (a bipartite matching:
its polytope is integral), solved by HiGHS. The stock is relaxed, so this bounds every joint
plan; where the stock does not bind (and every candidate was solved) it is the optimum's cost.
"""

from __future__ import annotations

from collections.abc import Mapping

from comparator.plan.candidates import Candidate
from comparator.plan.joint.joint_search import JobState
from comparator.plan.joint.milp.lp import INF, Model, new_highs
from comparator.plan.joint.stock import cheapest_on

Options = dict[tuple[int, str | None], float]  # (job, provider or None: no trial) → cents at least


def _trial_providers(candidate: Candidate) -> set[str]:
    """The providers whose free trial ``candidate`` may open on."""
    trial_keys = {r.key for r in candidate.problem.hourly if r.trial_slots}
    return {
        candidate.offers[offer_id].provider
        for key, offer_id in candidate.trials.items()
        if key in trial_keys
    }


def _options(index: int, state: JobState) -> Options:
    """The job's cheapest cost without a trial and with each provider's trial it may open on
    (lower bounds in cents; an option it has no plan for is left out)."""
    floors = state.floors
    candidates = state.prepared.built.candidates
    trials = {id(c): names for c in candidates if (names := _trial_providers(c))}
    plain = min((floors.get(id(c), 0.0) for c in candidates if id(c) not in trials), default=INF)
    below = [c for c in candidates if id(c) in trials and floors.get(id(c), 0.0) < plain]
    providers = {p for names in trials.values() for p in names}
    found = cheapest_on(below, {}, state.budget_cents, providers) if below else None
    if found is not None:
        plain = min(plain, int(found[1].cost * 100) + found[0].bill.fixed_cents)
    options: Options = {(index, None): plain}
    for candidate in candidates:
        floor = min(plain, floors.get(id(candidate), 0.0))
        for provider in trials.get(id(candidate), ()):
            options[(index, provider)] = min(options.get((index, provider), INF), floor)
    return {key: cents for key, cents in options.items() if cents < INF}


def trial_bound(states: Mapping[int, JobState]) -> float:
    """Cents every joint plan of the jobs costs at least, each provider's trial counted once
    (never below the jobs' own optima)."""
    independent = float(sum(s.best_cents for s in states.values()))
    options: Options = {}
    for index, state in states.items():
        options.update(_options(index, state))
    if all(provider is None for _, provider in options):
        return independent
    log = any(s.prepared.context.solver_log for s in states.values())
    return max(independent, _cheapest_assignment(options, log))


def _cheapest_assignment(options: Options, log: bool = False) -> float:
    """The cheapest choice of one option per job with each provider's trial given to one job
    at most (a bipartite assignment); -inf when there is none (the search finds no plan)."""
    model = Model()
    column = {key: model.var(cents) for key, cents in options.items()}
    for side, equal in ((0, 1.0), (1, -INF)):
        groups: dict[object, list[int]] = {}
        for key, var in column.items():
            if key[side] is not None:
                groups.setdefault(key[side], []).append(var)
        for members in groups.values():
            model.row([(v, 1.0) for v in members], equal, 1)
    highs = new_highs(log=log)
    highs.passModel(model.lp())
    highs.run()
    if highs.modelStatusToString(highs.getModelStatus()) != "Optimal":
        return -INF
    chosen = highs.getSolution().col_value
    return sum(options[key] for key, var in column.items() if chosen[var] > 0.5)
