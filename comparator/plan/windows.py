"""Which slots a plan may rent: not before the upload is done, and only inside the job's run
windows (``[schedule] run_windows``, the time-of-use grammar without a factor)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from comparator.domain.job import window_rules

Mask = tuple[bool, ...] | None


def rentable(
    at: Callable[[int], datetime], slots: int, blocked: int, windows: tuple[str, ...]
) -> Mask:
    """Per slot ``t < slots`` (local start ``at(t)``): after ``blocked`` upload slots and inside
    a run window; None when every slot may be rented."""
    if not blocked and not windows:
        return None
    rules = window_rules(windows) if windows else ()
    return tuple(
        t >= blocked and (not rules or any(r.matches(at(t)) for r in rules)) for t in range(slots)
    )
