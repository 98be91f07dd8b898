"""The per-phase split of one ``suanli import`` (printed by ``import_offers.py --catalog``).

Each step of the import's code path is wrapped for the length of one import (the product code
is not changed): its wall seconds, the CPU seconds of the thread that runs it, and on
PostgreSQL the CPU seconds of the writer's backend during it (read from /proc). The parsing
steps overlap the writer's, so the walls of the two sides do not add up; where the sheets are
parsed in a child process (:mod:`comparator.refresh.parse_process`), its steps are listed as
``parse (child process)`` (the child leaves them in a file when it ends).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from import_breakdown import _process_cpu_s

# (module, attribute, phase): what each wrapped function is, in the order of an import
PHASES = [
    ("comparator.refresh.importer", "_parse", "parse: read + check (parsing thread)"),
    ("comparator.refresh.importer", "group_sheet", "parse: group + content hash"),
    ("comparator.refresh.importer", "with_copy_lines", "parse: COPY lines (PostgreSQL)"),
    ("comparator.refresh.pipeline", "store_profiles_in", "write: profiles (none here)"),
    ("comparator.refresh.pipeline", "removed_offers_in", "write: change detection (removals)"),
    ("comparator.refresh.pipeline", "current_snapshots_of", "write: current snapshots"),
    ("comparator.catalog.bulk", "current_snapshots_of", "write: current snapshots"),
    ("comparator.catalog.bulk", "reserve_offer_ids", "write: offer ids"),
    ("comparator.catalog.bulk", "insert_offers", "write: COPY/insert offers + indexes"),
    ("comparator.catalog.bulk", "insert_summaries", "write: snapshot summary"),
    ("comparator.refresh.importer", "analyze_catalog", "after: ANALYZE"),
]

# context managers of the writer whose exit is a phase
EXITS = [
    ("indexes_built_after", "write: index build (empty offer table)"),
    ("write_transaction", "write: commit"),
]


class PhaseClock:
    """Sums of wall, thread CPU and backend CPU seconds per phase."""

    def __init__(self) -> None:
        self.spent: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
        self.backend_pid: int | None = None

    def timed(self, phase: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self._learn_pid(args)
            pid = self.backend_pid
            wall, cpu = time.perf_counter(), time.thread_time()
            backend = _process_cpu_s(pid) if pid else 0.0
            try:
                return call(*args, **kwargs)
            finally:
                row = self.spent[phase]
                row[0] += time.perf_counter() - wall
                row[1] += time.thread_time() - cpu
                row[2] += (_process_cpu_s(pid) - backend) if pid else 0.0
                row[3] += 1

        return wrapper

    def _learn_pid(self, args: tuple[Any, ...]) -> None:
        if self.backend_pid is not None or not args:
            return
        conn = args[0]
        raw = getattr(getattr(conn, "connection", None), "driver_connection", None)
        info = getattr(raw, "info", None)
        if info is not None:
            self.backend_pid = int(info.backend_pid)

    def _backend(self) -> float:
        return _process_cpu_s(self.backend_pid) if self.backend_pid else 0.0

    def exit_timed(self, original: Callable[..., Any], phase: str) -> Callable[..., Any]:
        """The context manager ``original`` whose exit (a commit, an index build) is timed."""

        @contextmanager
        def timed_transaction(*args: Any, **kwargs: Any) -> Iterator[Any]:
            manager = original(*args, **kwargs)
            conn = manager.__enter__()
            try:
                yield conn
            except BaseException as exc:
                if not manager.__exit__(type(exc), exc, exc.__traceback__):
                    raise
                return
            started, backend = time.perf_counter(), self._backend()
            cpu = time.thread_time()
            manager.__exit__(None, None, None)
            row = self.spent[phase]
            row[0] += time.perf_counter() - started
            row[1] += time.thread_time() - cpu
            row[2] += self._backend() - backend
            row[3] += 1

        return timed_transaction

    def in_child(self, original: Callable[..., Any], into: Path) -> Callable[..., Any]:
        """The parsing child's main function, which leaves its phases in the file ``into``
        when it ends (its wrapped steps count in the child's copy of this clock)."""

        def child(*args: Any, **kwargs: Any) -> Any:
            try:
                return original(*args, **kwargs)
            finally:
                into.write_text(json.dumps(dict(self.spent)), encoding="utf-8")

        return child

    def merge_child(self, found: Path) -> None:
        """Add the phases the parsing child left (none where the sheets were parsed here)."""
        if not found.exists():
            return
        for phase, figures in json.loads(found.read_text(encoding="utf-8")).items():
            if phase.startswith("parse:"):
                self.spent[phase.replace("parse:", "parse (child process):")] = figures

    def lines(self, rows: int) -> list[tuple[str, str]]:
        found = []
        for phase, (wall, cpu, backend, calls) in self.spent.items():
            server = f", backend {backend:5.2f} s CPU" if self.backend_pid else ""
            found.append(
                (
                    phase,
                    f"{wall:5.2f} s wall, thread {cpu:5.2f} s CPU{server}  ({calls:.0f} calls)",
                )
            )
        return found


@contextmanager
def phases_timed() -> Iterator[PhaseClock]:
    """Wrap the import's steps (:data:`PHASES`) while the block runs; restore them after."""
    import importlib

    clock = PhaseClock()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        child_phases = Path(tmp) / "child.json"
        child = importlib.import_module("comparator.refresh.parse_process")
        original_child = child._parse_all
        child._parse_all = clock.in_child(original_child, child_phases)
        stack.callback(setattr, child, "_parse_all", original_child)
        for module_name, attribute, phase in PHASES:
            module = importlib.import_module(module_name)
            original = getattr(module, attribute)
            setattr(module, attribute, clock.timed(phase, original))
            stack.callback(setattr, module, attribute, original)
        pipeline = importlib.import_module("comparator.refresh.pipeline")
        for attribute, phase in EXITS:
            original = getattr(pipeline, attribute)
            setattr(pipeline, attribute, clock.exit_timed(original, phase))
            stack.callback(setattr, pipeline, attribute, original)
        yield clock
        clock.merge_child(child_phases)
