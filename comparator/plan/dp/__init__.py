"""The exact schedule DP of one candidate: rates per slot, the DP steps, the plan rebuilt."""

from comparator.plan.dp.dp_solver import ScheduleProfile, solve_schedule

__all__ = ["ScheduleProfile", "solve_schedule"]
