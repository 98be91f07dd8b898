"""The service layer: where the catalog database meets the pure core. The CLI calls these.

Each function reads what it needs (job files, current offers, provider profiles), calls the
pure core (:mod:`comparator.compliance`, :mod:`comparator.plan`, :mod:`comparator.verify`) and,
where the command keeps a record, stores it (quotes, verifications).
"""

from comparator.services.eligibility import CatalogCheck, check_catalog, eligible_for_job
from comparator.services.planning import context_from_settings, plan_job_file, plan_jobs_files
from comparator.services.quoting import make_quote
from comparator.services.verification import store_verification

__all__ = [
    "CatalogCheck",
    "check_catalog",
    "context_from_settings",
    "eligible_for_job",
    "make_quote",
    "plan_job_file",
    "plan_jobs_files",
    "store_verification",
]
