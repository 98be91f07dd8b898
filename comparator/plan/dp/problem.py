"""The scheduling problem of one candidate placement, in whole-hour slots (pure data).

A candidate is one (provider, data centre, GPU, card count). Its offers become *rates*: an
:class:`HourlyRate` (hourly or spot: a cost for every slot, time-of-use factor and units
applied) or a :class:`ContractRate` (daily … yearly: a cost per period of ``period_slots``).
Slot 0 is the first whole hour at or after the job's earliest start; the job may run in slots
``[0, deadline_slot)`` and needs ``work_slots`` slots of work.

Semantics (billing.md), which the optimiser, the brute-force oracle of the tests and the
validator share:

* A *segment* is a maximal run of consecutive slots on one hourly rate, or a maximal chain of
  back-to-back contracts of one contract rate. Its cost is the exact sum of its slot costs (or
  ``periods × cost``) rounded once to 0.01, half up; a plan costs the sum of its segments.
* An hourly segment lasts at least ``min_slots`` slots, a chain at least ``min_periods``
  periods. Segments never overlap; a contract may run past the deadline and is paid in full.
* The job runs only in paid slots. An interruptible job may run in any of them; each run block
  after the first loses ``restart_overhead_slots`` slots (they count as run slots, not as work).
  A job that may not pause runs in one block.
* Every rate belongs to a *machine* (``machine``: one provider, data centre, GPU and rental unit
  size; docs/billing.md). Switching from one rate to another of the same machine between two
  consecutive slots is seamless (not a pause). Switching to a rate of another machine is a
  *migration*: the job stops and restarts there, so the new block pays
  ``restart_overhead_slots`` like any resume, and a job that may not pause cannot migrate.
* A rate with ``trial_slots > 0`` is a free trial: it may only be the plan's first segment
  (from its first slot, never after a pause) and lasts at most ``trial_slots`` slots.
* ``storage_per_slot`` (whole cents) is the data disk's charge for every slot from the first run
  slot to ``finish``, paused and overhead slots included; it is part of the schedule's cost.
* ``max_run_slots_per_day > 0`` caps the run slots (overhead included) of each local day;
  ``day_of_slot[t]`` is the day of slot ``t`` (slots past its end continue in 24-slot days).
* ``run_allowed`` (None: every slot) is where the job may run: its run windows. Hourly rates
  are rentable only there (an hourly slot paid before the finish is run); a contract is paid
  for its whole period and may lie over closed hours, the job running in the slots the windows
  and the cap allow and pausing (interruptible jobs only) in the others
  (:mod:`comparator.plan.dp.pausing.flex`). Without windows and cap it runs in every paid slot.
* A restart's overhead lies in the line item where its block starts, and every line item does
  at least one slot of work (a line item rented only to restart in is never planned).
* Among plans of equal cost the optimiser prefers the fewest *migrations* (changes of machine
  between two run blocks, after a pause or not), then the fewest segments (line items), then
  the earliest finish.
* ``finish`` is the end of the slot in which the work completes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from comparator.errors import PlanError


@dataclass(frozen=True)
class HourlyRate:
    """An hourly or spot offer for one candidate: ``slot_costs[t]`` is slot t's cost, all units.

    ``slot_costs`` should reach ``deadline_slot + min_slots - 1`` slots so that a last segment
    can be padded to its minimum length; slots without a cost (or marked unavailable) cannot be
    rented.
    """

    key: str
    slot_costs: tuple[Decimal, ...]
    min_slots: int = 1
    available: tuple[bool, ...] | None = None
    machine: str = ""
    trial_slots: int = 0  # > 0: a free trial, only the plan's first segment, at most this long

    def usable(self, slot: int) -> bool:
        if slot < 0 or slot >= len(self.slot_costs):
            return False
        return self.available is None or slot >= len(self.available) or self.available[slot]


@dataclass(frozen=True)
class ContractRate:
    """A contract offer for one candidate: ``cost`` per period of ``period_slots``, all units."""

    key: str
    period_slots: int
    cost: Decimal
    min_periods: int = 1
    available: tuple[bool, ...] | None = None
    machine: str = ""

    def usable(self, slot: int) -> bool:
        return self.available is None or slot >= len(self.available) or self.available[slot]


@dataclass(frozen=True)
class ScheduleProblem:
    deadline_slot: int
    work_slots: int
    interruptible: bool
    restart_overhead_slots: int
    hourly: tuple[HourlyRate, ...] = ()
    contracts: tuple[ContractRate, ...] = ()
    storage_per_slot: Decimal = Decimal(0)
    max_run_slots_per_day: int = 0  # 0: no daily cap
    day_of_slot: tuple[int, ...] = ()  # the local day of each slot (non-decreasing)
    run_allowed: tuple[bool, ...] | None = None  # the run windows (None: every slot)

    def __post_init__(self) -> None:
        if self.work_slots < 1 or self.deadline_slot < 0 or self.restart_overhead_slots < 0:
            raise PlanError("a schedule needs work_slots ≥ 1, deadline ≥ 0 and overhead ≥ 0")
        if self.max_run_slots_per_day < 0:
            raise PlanError("max_run_slots_per_day must be ≥ 0")
        for rate in self.hourly:
            if rate.min_slots < 1:
                raise PlanError("rate {key}: min_slots must be ≥ 1", key=rate.key)
        for contract in self.contracts:
            if contract.period_slots < 1 or contract.min_periods < 1 or contract.cost <= 0:
                raise PlanError(
                    "rate {key}: needs a period ≥ 1, min ≥ 1, cost > 0", key=contract.key
                )
        storage = self.storage_per_slot
        if storage < 0 or storage != storage.quantize(Decimal("0.01")):
            raise PlanError("storage per slot must be whole cents ≥ 0")

    @property
    def flexible(self) -> bool:
        """Whether a contract may leave paid slots unrun (run windows or a daily cap)."""
        return bool(self.contracts) and (
            self.run_allowed is not None or self.max_run_slots_per_day > 0
        )

    def may_run(self, slot: int) -> bool:
        allowed = self.run_allowed
        return allowed is None or (slot < len(allowed) and allowed[slot])

    @property
    def storage_cents(self) -> int:
        return int(self.storage_per_slot * 100)

    def day_indices(self, count: int) -> list[int]:
        """The local day of slots ``0 … count − 1``: ``day_of_slot``, then 24-slot days."""
        days = list(self.day_of_slot[:count])
        if len(days) < count:
            known = self.day_of_slot
            base, start = (known[-1], known.index(known[-1])) if known else (0, 0)
            days += [base + (t - start) // 24 for t in range(len(days), count)]
        return days

    @property
    def rate_keys(self) -> tuple[str, ...]:
        return tuple(r.key for r in self.hourly) + tuple(c.key for c in self.contracts)

    @property
    def machines(self) -> tuple[str, ...]:
        """The machine of every rate, hourly rates first (as :attr:`rate_keys`)."""
        return tuple(r.machine for r in self.hourly) + tuple(c.machine for c in self.contracts)


Block = tuple[int, int, int]  # run slots [start, end) and the overhead slots they begin with


@dataclass(frozen=True)
class ScheduledSegment:
    """One line item: ``[start, end)`` paid on one rate; the job runs in ``[start, run_end)``,
    or in the ``blocks`` given (a contract under run windows or a daily cap may pause inside)."""

    key: str
    kind: str  # "hourly" | "contract"
    start: int
    end: int
    periods: int
    run_end: int
    overhead_slots: int
    cost: Decimal
    blocks: tuple[Block, ...] = ()

    @property
    def run_blocks(self) -> tuple[Block, ...]:
        """The run blocks inside the line item, in order (the first may continue a block)."""
        return self.blocks or ((self.start, self.run_end, self.overhead_slots),)

    @property
    def run_start(self) -> int:
        return self.run_blocks[0][0]

    @property
    def run_slots(self) -> int:
        return sum(end - start for start, end, _ in self.run_blocks)


@dataclass(frozen=True)
class ScheduleResult:
    """The optimal schedule for one finish slot of one candidate."""

    cost: Decimal
    finish: int
    segments: tuple[ScheduledSegment, ...]
    storage_cost: Decimal = Decimal(0)  # storage from the first run slot to finish

    @property
    def start(self) -> int:
        """The first run slot (storage is billed from there)."""
        return self.segments[0].run_start

    @property
    def run_slots(self) -> int:
        return sum(s.run_slots for s in self.segments)


# --- exact money in integer ticks ------------------------------------------------------------
def decimal_places(values: Sequence[Decimal]) -> int:
    """The most digits after the point among ``values`` (at least 2: whole cents)."""
    places = 2
    for value in values:
        exponent = value.normalize().as_tuple().exponent
        if isinstance(exponent, int) and -exponent > places:
            places = -exponent
    return places


def to_ticks(value: Decimal, places: int) -> int:
    """``value`` as an exact integer number of ``10**-places`` units."""
    scaled = value.scaleb(places)
    if scaled != scaled.to_integral_value():
        raise PlanError(
            "amount {value} has more than {places} decimal places", value=value, places=places
        )
    return int(scaled)


def round_ticks_to_cents(ticks: int, ticks_per_cent: int) -> int:
    """Cents of an exact amount in ticks, rounded half up (amounts are never negative)."""
    return (ticks + ticks_per_cent // 2) // ticks_per_cent
