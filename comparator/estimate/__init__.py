"""The resource estimator (pure): memory per card, cards, FLOPs, hours and card-hours of a job.

Entry: :func:`estimate` on an :class:`EstimateRequest` (or :func:`request_from_job` for a job
file's ``[model]``/``[training]``, ``[training] stack`` included); the training stack is
``EstimateRequest.stack`` (:data:`STACK_IDS`, :func:`normalize_stack` for aliases, ``None``:
:data:`DEFAULT_STACK` with the range widened over all stacks). Model architectures: :mod:`.shapes`, :mod:`.hf_config`;
memory: :mod:`.memory`; FLOPs and MFU: :mod:`.compute`, :mod:`.throughput`; the card search:
:mod:`.search`; advice: :mod:`.advice`. See :mod:`.estimator` for the pieces in detail.

Each name loads its module on first use (:mod:`comparator.domain.lazy`).
"""

from typing import TYPE_CHECKING

from comparator.domain.lazy import lazy_names

if TYPE_CHECKING:
    from comparator.estimate.advice import Advice
    from comparator.estimate.compute import default_mfu
    from comparator.estimate.estimator import (
        Estimate,
        EstimateRequest,
        Note,
        estimate,
        parse_token_count,
        request_from_job,
    )
    from comparator.estimate.request import DEFAULT_GPU, normalize_optimizer
    from comparator.estimate.shapes import BUILTIN_SHAPES
    from comparator.estimate.stacks import DEFAULT_STACK, STACK_IDS, normalize_stack, stack_of
    from comparator.estimate.throughput import (
        relative_throughput,
        run_hours,
        scale_card_hours,
        throughput_table,
    )

_HOME: dict[str, tuple[str, ...]] = {
    "advice": ("Advice",),
    "compute": ("default_mfu",),
    "estimator": (
        "Estimate",
        "EstimateRequest",
        "Note",
        "estimate",
        "parse_token_count",
        "request_from_job",
    ),
    "request": (
        "DEFAULT_GPU",
        "normalize_optimizer",
    ),
    "shapes": ("BUILTIN_SHAPES",),
    "stacks": ("DEFAULT_STACK", "STACK_IDS", "normalize_stack", "stack_of"),
    "throughput": (
        "relative_throughput",
        "run_hours",
        "scale_card_hours",
        "throughput_table",
    ),
}
__getattr__ = lazy_names(__name__, _HOME)

__all__ = [
    "BUILTIN_SHAPES",
    "DEFAULT_GPU",
    "DEFAULT_STACK",
    "STACK_IDS",
    "Advice",
    "Estimate",
    "EstimateRequest",
    "Note",
    "default_mfu",
    "estimate",
    "normalize_optimizer",
    "normalize_stack",
    "parse_token_count",
    "relative_throughput",
    "request_from_job",
    "run_hours",
    "scale_card_hours",
    "stack_of",
    "throughput_table",
]
