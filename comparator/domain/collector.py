"""Python's cyclic garbage collector paused for a block, or kept off the objects already alive
(a light module: the CLI uses it)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused(*, examine: bool = True) -> Iterator[None]:
    """The collector paused while the block runs, resumed after it (if it ran before).

    After a quote is planned at 1M offers the heap holds some millions of objects, and each
    full collection walks them all: the seeds' 13B quote spent 0.33 of its 0.39 CPU s of
    assembling the document in the collector, and more rendering it and writing its JSON
    (SQLite, other shape, 2026-12-03). Building 10,000 stored profiles allocates some 300,000
    lists, tuples and objects: they load in 0.51 CPU s with the collector paused, 0.61–0.66 s
    with it. What either allocates holds almost no cycles, and reference counting still frees
    what is dropped. Loading and planning a job at 1M offers: a collection afterwards finds
    ~300 unreachable objects, yet the collector's passes took a third of the planner's time.

    The objects the block allocated and left alive are all in the youngest generation when it
    ends, so the first collection after it walks them all: 0.08–0.15 s after a quote at 1M
    offers (the README's LoRA job and the seeds' 13B job, SQLite, 2026-12-03), as the command
    was about to end. ``examine=False`` (a command that ends soon after the block) hands them
    to the oldest generation unexamined (``gc.freeze`` then ``gc.unfreeze``): a cycle among
    them is freed by the next full collection instead."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            if not examine:
                gc.freeze()  # every tracked object to the permanent generation, count reset
                gc.unfreeze()  # and back, into the oldest generation
            gc.enable()


@contextmanager
def older_objects_frozen() -> Iterator[None]:
    """The objects the process holds already (modules, the sources, the catalog's profiles)
    left out of the collector's full passes while a block runs (a refresh:
    :func:`comparator.refresh.run.run_refresh`) (``gc.freeze``, put back
    by ``gc.unfreeze`` at its end: https://docs.python.org/3/library/gc.html). A refresh
    allocates a lot (fetches, parses, results), so the collector runs full passes during
    it, each walking every object of the process: 3,000 sources, one process, 0.28 ms of
    CPU per source in full passes with them, 0.05 without."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
