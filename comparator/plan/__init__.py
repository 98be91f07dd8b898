"""The planner (pure): the provably cheapest compliant placement and schedule of a job.

Flow: :func:`plan_job` (:mod:`.entry`) asks an offer source for the job's offers (group by
group as the walk reaches them, :mod:`.prune.streamed`, or all of them) → compliance and the
job's requirements filter the offers → the job's work on each GPU (:mod:`.work`, via the
estimator) → candidate placements (:mod:`.candidates`) → an exact DP per candidate (:mod:`.dp`)
with lower bounds to skip hopeless ones (:mod:`.selection`) → dated plans (:mod:`.result`).
Several jobs sharing stock: :func:`plan_jobs` (:mod:`.joint`, the DP per job, a repair and a
HiGHS MILP in :mod:`.joint.milp`). No database, no HTTP.
"""

from typing import TYPE_CHECKING

from comparator.domain.lazy import lazy_names
from comparator.plan.calibrate import CalibrationFit, measured_fit
from comparator.plan.context import DEFAULT_TOP, PlanContext
from comparator.plan.entry import OffersRead, plan_job, plan_job_read, plan_jobs
from comparator.plan.explain.mix import mix_text
from comparator.plan.explain.timeline import timeline_lines
from comparator.plan.figures import figure_texts
from comparator.plan.plan_notes import best_latency, plan_notes
from comparator.plan.prune.sql_prefilter import job_offer_filter
from comparator.plan.result import ExcludedOffer, Plan, PlanResult, PlanSegment, machines_msg
from comparator.plan.screening import requirement_reason
from comparator.plan.selection import OBJECTIVES

if TYPE_CHECKING:  # several jobs' shared plan (HiGHS, the job-order search): loaded when asked
    from comparator.plan.joint.joint_plan import SharedPlan

__getattr__ = lazy_names(__name__, {"joint.joint_plan": ("SharedPlan",)})

__all__ = [
    "DEFAULT_TOP",
    "OBJECTIVES",
    "CalibrationFit",
    "ExcludedOffer",
    "OffersRead",
    "Plan",
    "PlanContext",
    "PlanResult",
    "PlanSegment",
    "SharedPlan",
    "best_latency",
    "figure_texts",
    "job_offer_filter",
    "machines_msg",
    "measured_fit",
    "mix_text",
    "plan_job",
    "plan_job_read",
    "plan_jobs",
    "plan_notes",
    "requirement_reason",
    "timeline_lines",
]
