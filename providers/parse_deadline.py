"""A cooperative stop for parses that run past their ``parse_timeout_s``.

A thread cannot be killed, so a parse that runs past its limit is asked to stop: the parse
loops call :func:`check_parse_deadline` every few thousand rows (and between phases), which
raises :class:`ParseCancelled` once the deadline has passed or the waiter has given up. The
exception unwinds the parse, its rows are dropped, and the thread ends within moments instead
of parsing on (and holding its memory) for minutes after the source was marked failed.

:class:`ParseCancelled` derives from ``BaseException`` so that the readers' broad ``except
Exception`` (which turn a damaged file into a message) let it through. Outside a
:func:`parse_deadline` block the check does nothing (``suanli import`` has no limit).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")
ROWS_PER_CHECK = 2048  # rows a parse loop reads between two checks


class ParseCancelled(BaseException):
    """The parse ran past its deadline (or its waiter gave up) and stopped."""


@dataclass(frozen=True)
class _Limit:
    deadline: float  # time.monotonic()
    stop: threading.Event


_LIMIT: ContextVar[_Limit | None] = ContextVar("parse_deadline", default=None)


def check_parse_deadline() -> None:
    """Raise :class:`ParseCancelled` when the running parse is past its deadline."""
    limit = _LIMIT.get()
    if limit is not None and (limit.stop.is_set() or time.monotonic() > limit.deadline):
        raise ParseCancelled


@contextmanager
def parse_deadline(seconds: float, stop: threading.Event | None = None) -> Iterator[None]:
    """Within the block, :func:`check_parse_deadline` stops the parse after ``seconds``
    (or once ``stop`` is set)."""
    token = _LIMIT.set(_Limit(time.monotonic() + seconds, stop or threading.Event()))
    try:
        yield
    finally:
        _LIMIT.reset(token)


def call_with_deadline(
    seconds: float, stop: threading.Event, parse: Callable[..., T], *args: Any
) -> T:
    """``parse(*args)`` under :func:`parse_deadline` (what a worker thread runs)."""
    with parse_deadline(seconds, stop):
        return parse(*args)
