"""Suanli (算力): estimate, compare, plan and verify rented GPU compute for training jobs.

The public API is what ``__all__`` lists; everything else may change between releases.
Entry points load on first use, so ``import comparator`` stays light.
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from comparator.errors import SuanliError
from comparator.gpus import GPUS, GpuSpec, resolve_gpu

try:
    __version__ = version("suanli")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

_LAZY: dict[str, str] = {
    "EstimateRequest": "comparator.estimate",
    "estimate": "comparator.estimate",
    "load_job": "comparator.job",
    "load_profile": "comparator.profile",
    "evaluate_offers": "comparator.compliance",
    "check_providers": "comparator.compliance",
    "plan_job": "comparator.planning",
    "plan_job_file": "comparator.planning",
    "make_engine": "comparator.db",
    "upgrade_schema": "comparator.db",
    "current_offers": "comparator.catalog",
    "import_files": "comparator.importer",
    "run_refresh": "comparator.refresh",
    "make_quote": "comparator.quote",
}

__all__ = ["GPUS", "GpuSpec", "SuanliError", "__version__", "resolve_gpu", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'comparator' has no attribute {name!r}")
