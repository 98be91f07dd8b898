"""An import's sheets parsed in a child process while this process writes the ones before.

On one process the parsing thread and the writer share the GIL: SQLite's writer, which
holds the GIL between its steps, ran barely more than one core (27.7 CPU s in 26.6 s wall
for a million offers, docs/import.md). Here a child made by ``fork`` parses each sheet with
the same ``parse`` and sends it, pickled, through a pipe; the writer reads them in order.
The pipe holds about one sheet, so the child parses at most one sheet ahead of the write.

The child writes nothing and opens no database connection (the parent's stay unused in it,
and ``multiprocessing`` ends it with ``os._exit``: no finalizer of theirs runs there). A sheet the child could
not parse is parsed again here, so its error (a bad row, an unreadable file) is raised in
this process exactly as without the child, inside the writer's transaction, which rolls
back; from there on every sheet is parsed here. A killed child is the same: its sheets are
parsed here. Warnings the child's ``parse`` appends to ``warnings`` travel with each sheet.
"""

from __future__ import annotations

import multiprocessing
import pickle
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Generic, TypeVar

# sheets of fewer bytes in all are parsed on a thread: a fork and the pickling would cost
# more than the overlap gains (a sheet of 100,000 offers is about 10 MB)
PROCESS_MIN_BYTES = 4 * 1024 * 1024

Parsed = TypeVar("Parsed")


def worth_a_process(paths: Sequence[Path]) -> bool:
    """Whether ``paths`` (two sheets or more, large enough) are worth a child: only where
    ``fork`` is (the child inherits ``parse`` without pickling it)."""
    if len(paths) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return False
    return sum(_size(path) for path in paths) >= PROCESS_MIN_BYTES


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # parse reports it
        return 0


class ParsedInChild(Generic[Parsed]):
    """The sheets ``paths`` parsed in order, by a child process while it can, else here.

    :meth:`next_sheet` gives ``(path, parse(path))`` for each path in turn, then None."""

    def __init__(
        self,
        paths: Sequence[Path],
        parse: Callable[[Path], Parsed],
        warnings: list[Any],
        pack: Callable[[Parsed], Parsed] = lambda parsed: parsed,
    ) -> None:
        """``pack``: what the child does to a parsed sheet before it pickles it (the same
        sheet in fewer bytes)."""
        self._paths, self._parse, self._warnings = list(paths), parse, warnings
        self._next = 0
        context = multiprocessing.get_context("fork")
        self._reader, sender = context.Pipe(duplex=False)
        self._child: Any = context.Process(
            target=_parse_all,
            args=(self._paths, lambda path: pack(parse(path)), warnings, sender, self._reader),
            name="suanli-parse",
            daemon=True,
        )
        self._child.start()
        sender.close()  # the child's end: EOF here once the child is gone

    def next_sheet(self) -> tuple[Path, Parsed] | None:
        if self._next == len(self._paths):
            return None
        path = self._paths[self._next]
        self._next += 1
        if self._child is not None:
            parsed = self._received()
            if parsed is not None:
                return path, parsed
            self.close()  # the child failed on this sheet or died: parse here from now on
        return path, self._parse(path)

    def _received(self) -> Parsed | None:
        try:
            message = self._reader.recv_bytes()
        except (EOFError, OSError):
            return None
        done, payload = pickle.loads(message)
        if not done:
            return None
        parsed, warnings = payload
        self._warnings += warnings
        return parsed  # type: ignore[no-any-return]

    def close(self) -> None:
        """End the child (it may be parsing a sheet no one will read) and the pipe."""
        if self._child is None:
            return
        if self._child.is_alive():
            self._child.kill()
        self._child.join()
        self._reader.close()
        self._child = None


def _parse_all(
    paths: Sequence[Path],
    parse: Callable[[Path], Any],
    warnings: list[Any],
    pipe: Connection,
    parents_end: Connection,
) -> None:
    """The child: each sheet parsed and sent with the warnings it added; at the first error
    a note that it stopped (the parent parses that sheet again, and raises its error). Its
    copy of the parent's end is closed first: once the parent is gone (killed), a send
    fails and the child ends, instead of waiting on a pipe it holds open itself."""
    parents_end.close()
    try:
        for path in paths:
            before = len(warnings)
            try:
                parsed = parse(path)
            except BaseException:  # the parent parses it again and raises its error
                pipe.send_bytes(pickle.dumps((False, None)))
                return
            message = pickle.dumps((True, (parsed, warnings[before:])), protocol=5)
            pipe.send_bytes(message)
    except OSError:  # the parent is gone or stopped reading (a broken pipe)
        pass
    finally:
        pipe.close()
