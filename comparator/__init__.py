"""Suanli (算力): estimate, compare, plan and verify rented GPU compute for training jobs.

The public API is what ``__all__`` lists; everything else may change between releases.
"""

from importlib.metadata import PackageNotFoundError, version

from comparator.errors import SuanliError
from comparator.gpus import GPUS, GpuSpec, resolve_gpu

try:
    __version__ = version("suanli")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

__all__ = ["GPUS", "GpuSpec", "SuanliError", "__version__", "resolve_gpu"]
