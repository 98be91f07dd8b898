"""Suanli (算力): estimate, compare, plan and verify rented GPU compute for training jobs.

The public API is what ``__all__`` lists; everything else may change between releases.
Entry points load on first use, so ``import comparator`` stays light.
"""

from importlib import import_module
from typing import Any

from comparator.domain.gpus import GPUS, GpuSpec, resolve_gpu
from comparator.errors import SuanliError

_LAZY: dict[str, str] = {
    "EstimateRequest": "comparator.estimate.estimator",
    "estimate": "comparator.estimate.estimator",
    "load_job": "comparator.domain.job",
    "load_profile": "comparator.domain.profile",
    "evaluate_offers": "comparator.compliance.engine",
    "check_providers": "comparator.compliance.engine",
    "plan_job": "comparator.plan.entry",
    "plan_jobs": "comparator.plan.entry",
    "OfferList": "comparator.domain.offer_list",
    "CatalogGroups": "comparator.catalog.queries_groups",
    "plan_job_file": "comparator.services.planning",
    "make_engine": "comparator.catalog.db",
    "upgrade_schema": "comparator.catalog.db",
    "current_offers": "comparator.catalog.current_offers",
    "import_files": "comparator.refresh.importer",
    "run_refresh": "comparator.refresh.run",
    "make_quote": "comparator.services.quoting",
}

__all__ = ["GPUS", "GpuSpec", "SuanliError", "__version__", "resolve_gpu", *_LAZY]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from comparator.config import software_version

        return software_version()
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'comparator' has no attribute {name!r}")
