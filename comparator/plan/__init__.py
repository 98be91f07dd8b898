"""The planner (pure): the provably cheapest compliant placement and schedule of a job.

Flow: :func:`plan_job` → compliance and the job's requirements filter the offers → the job's
work on each GPU (:mod:`.work`, via the estimator) → candidate placements (:mod:`.candidates`)
→ an exact DP per candidate (:mod:`.dp`) with lower bounds to skip hopeless ones (:mod:`.solve`)
→ dated plans (:mod:`.result`). Several jobs sharing stock: :func:`plan_jobs` (:mod:`.shared`,
the DP per job, a repair and a HiGHS MILP in :mod:`.milp`). No database, no HTTP.
"""

from comparator.plan.calibrate import CalibrationFit, measured_fit
from comparator.plan.context import DEFAULT_TOP, PlanContext
from comparator.plan.figures import figure_texts
from comparator.plan.mix import mix_text
from comparator.plan.offer_filter import requirement_reason
from comparator.plan.planning import plan_job
from comparator.plan.result import ExcludedOffer, Plan, PlanResult, PlanSegment, machines_msg
from comparator.plan.shared import SharedPlan, plan_jobs
from comparator.plan.solve import OBJECTIVES
from comparator.plan.timeline import timeline_lines

__all__ = [
    "DEFAULT_TOP",
    "OBJECTIVES",
    "CalibrationFit",
    "ExcludedOffer",
    "Plan",
    "PlanContext",
    "PlanResult",
    "PlanSegment",
    "SharedPlan",
    "figure_texts",
    "machines_msg",
    "measured_fit",
    "mix_text",
    "plan_job",
    "plan_jobs",
    "requirement_reason",
    "timeline_lines",
]
