"""Several jobs sharing stock: a HiGHS MILP over each job's best candidates, and its answer."""

from comparator.plan.joint.milp.milp_model import MilpJob, MilpOutcome, solve_milp

__all__ = ["MilpJob", "MilpOutcome", "solve_milp"]
