"""Where a refresh's time goes: wall and CPU seconds per phase, summed over the sources.

A :class:`PhaseClock` is made per refresh and set for its sources (:func:`clock_in_use`); the
code of each phase says ``with phase("parse"):``, which adds the block's wall seconds and its
thread's CPU seconds (``time.thread_time``: that thread's alone, whatever else runs) to the
clock. Outside a refresh no clock is set and a phase costs one context-variable read. The
event loop's own phases (fetching, scheduling) overlap each other, so the refresh adds the
loop thread's CPU once, as a whole, and the fetch's wall per source.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class PhaseClock:
    """Seconds of wall and of CPU per phase, added from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.wall_s: dict[str, float] = {}
        self.cpu_s: dict[str, float] = {}

    def add(self, name: str, wall_s: float, cpu_s: float | None = None) -> None:
        """Add to ``name``: wall seconds, and CPU seconds when known."""
        with self._lock:
            self.wall_s[name] = self.wall_s.get(name, 0.0) + wall_s
            if cpu_s is not None:
                self.cpu_s[name] = self.cpu_s.get(name, 0.0) + cpu_s

    @contextmanager
    def measure(self, name: str, *, cpu: bool = True) -> Iterator[None]:
        """The block's wall and (``cpu``) this thread's CPU, added to ``name``; the event
        loop's blocks give ``cpu=False``: their thread runs other sources' work meanwhile."""
        wall, used = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            spent = time.thread_time() - used if cpu else None
            self.add(name, time.perf_counter() - wall, spent)

    def laps(self) -> Laps:
        """A stopwatch of this thread adding each lap to its own phase."""
        return Laps(self)

    def timings(self) -> dict[str, float]:
        """``{phase: wall_s}`` and ``{phase + "_cpu": cpu_s}``, one mapping."""
        with self._lock:
            return dict(self.wall_s) | {f"{k}_cpu": v for k, v in self.cpu_s.items()}


class Laps:
    """Consecutive phases of one thread: :meth:`lap` adds the time since the last lap."""

    def __init__(self, clock: PhaseClock) -> None:
        self.clock = clock
        self.wall, self.cpu = time.perf_counter(), time.thread_time()

    def lap(self, name: str) -> None:
        wall, cpu = time.perf_counter(), time.thread_time()
        self.clock.add(name, wall - self.wall, cpu - self.cpu)
        self.wall, self.cpu = wall, cpu


_CLOCK: ContextVar[PhaseClock | None] = ContextVar("phase_clock", default=None)


@contextmanager
def clock_in_use(clock: PhaseClock) -> Iterator[PhaseClock]:
    """Within the block (and the tasks and threads started from it with its context),
    :func:`phase` adds to ``clock``."""
    token = _CLOCK.set(clock)
    try:
        yield clock
    finally:
        _CLOCK.reset(token)


@contextmanager
def phase(name: str, *, cpu: bool = True) -> Iterator[None]:
    """Add the block's wall and CPU to the clock in use, if any (see
    :meth:`PhaseClock.measure`)."""
    clock = _CLOCK.get()
    if clock is None:
        yield
        return
    with clock.measure(name, cpu=cpu):
        yield
