"""Daemon threads kept between parses: a refresh's parse starts without starting a thread.

A parse runs in a daemon thread, so that one stuck in a long library call never keeps the
process from exiting (:meth:`providers.base.Adapter.parse_within`). A new thread per parse cost
the event loop more than the parse of a small sheet: ``Thread.start`` waits until the new
thread runs, and on a busy machine that is a wait for the GIL (a profile of 2,000 sources
of 100 offers showed the loop blocked 3.6 ms per source in ``Thread.start``, four times the
parse itself). :class:`DaemonPool` hands each job to an idle thread of its own through a
queue, and starts a thread only when none is idle; a thread idle for :data:`IDLE_S` ends.
A job stuck past its limit keeps its thread: the next jobs get others.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

IDLE_S = 60.0  # a thread with no job for this long ends


class DaemonPool:
    """Daemon threads running submitted jobs, one at a time each, as many as are busy."""

    def __init__(self, name: str, idle_s: float = IDLE_S) -> None:
        self.name, self.idle_s = name, idle_s
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # threads waiting for a job that no submitted job has counted on yet
        self.threads = 0  # running now (for tests)

    def submit(self, job: Callable[[], None]) -> None:
        """Run ``job()`` in one of the threads (it must not raise: nobody would see it)."""
        with self._lock:
            start = self._idle == 0
            if start:
                self.threads += 1
            else:
                self._idle -= 1  # that thread is this job's
        self._jobs.put(job)
        if start:
            threading.Thread(target=self._serve, name=self.name, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=self.idle_s)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # an idle thread no job counts on: this one may end
                        self._idle -= 1
                        self.threads -= 1
                        return
                continue  # every idle thread is counted on: a job is on its way
            job()
            with self._lock:
                self._idle += 1
