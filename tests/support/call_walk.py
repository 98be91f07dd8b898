"""The quote's way through the house, measured on its calls: moves between rooms, climbs back up.

``python -m tests.support.call_walk`` quotes the first example on a fresh demo catalog (SQLite,
in a temporary folder) to the rendered HTML report, under :func:`sys.setprofile`, and prints
the walk. A *room* is a subpackage of ``comparator`` (``comparator.plan.prune.streamed`` is in
``plan``; ``comparator.config`` and ``comparator.errors`` are rooms of their own). Every call
of a Python function of ``comparator`` is attributed to the room of the nearest ``comparator``
frame that called it (a call through SQLAlchemy or the standard library is the call of the
``comparator`` code that made it). A *move* is a call from one room into another; a *climb
back up* is a move into a room that stands above the caller in :data:`LAYERS`. Repeated
moves of the same pair in a row count once (a loop that calls the same room does not walk).

The rooms' layering, top to bottom (ARCHITECTURE.md, "The quote's way"): the CLI; the services;
the quote and the report; the planner; compliance, the estimator and machine verification;
the catalog, its refresh and the settings; the words of the trade, the messages and the
errors. The words of the trade are spoken everywhere: moves into the bottom layer are
vocabulary, not a walk, and are not counted (they are kept in :attr:`Walk.calls`).

The measure is taken on a warm process: the walk is recorded on a second quote, after one
untraced quote has imported every module (a first import runs module code from wherever
the import happens, which is loading, not the quote's way).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli", "comparator"),
    ("services",),
    ("quote", "report"),
    ("plan",),
    ("compliance", "estimate", "verify"),
    ("catalog", "refresh", "config"),
    ("domain", "i18n", "errors"),
)
LEVEL = {room: len(LAYERS) - i for i, rooms in enumerate(LAYERS) for room in rooms}
VOCABULARY = frozenset(LAYERS[-1])
OUTSIDE = "cli"  # the caller of the quote, standing where the CLI does
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lora-7b-guangdong.toml"


def room_of(module: str | None) -> str | None:
    """The room of a module of ``comparator`` (None for any other module)."""
    if not module or not (module == "comparator" or module.startswith("comparator.")):
        return None
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "comparator"


def _caller_room(frame: FrameType | None) -> str | None:
    while frame is not None:
        room = room_of(frame.f_globals.get("__name__"))
        if room is not None:
            return room
        frame = frame.f_back
    return None


@dataclass
class Walk:
    """The moves between rooms, in order, consecutive repeats once; every cross-room pair
    (vocabulary included) in :attr:`calls`."""

    moves: list[tuple[str, str]] = field(default_factory=list)
    calls: dict[tuple[str, str], int] = field(default_factory=dict)
    functions: list[str] = field(default_factory=list)  # the first call of each move

    def record(self, caller: str, callee: str, function: str = "") -> None:
        self.calls[(caller, callee)] = self.calls.get((caller, callee), 0) + 1
        if callee in VOCABULARY:
            return
        if not self.moves or self.moves[-1] != (caller, callee):
            self.moves.append((caller, callee))
            self.functions.append(function)

    @property
    def climbs(self) -> list[tuple[str, str]]:
        """The moves into a room that stands above the caller."""
        return [(a, b) for a, b in self.moves if LEVEL.get(b, 0) > LEVEL.get(a, 0)]

    def text(self) -> str:
        lines = [f"{len(self.moves)} moves between rooms, {len(self.climbs)} climbs back up:"]
        for index, (a, b) in enumerate(self.moves, 1):
            up = "  ↑ climbs back up" if LEVEL.get(b, 0) > LEVEL.get(a, 0) else ""
            lines.append(f"{index:3d}. {a} → {b}: {self.functions[index - 1]}{up}")
        return "\n".join(lines)


@contextmanager
def walking() -> Iterator[Walk]:
    """Record the walk of the calls made inside the block (this thread)."""
    walk = Walk()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        callee = room_of(frame.f_globals.get("__name__"))
        if callee is None:
            return
        caller = _caller_room(frame.f_back) or OUTSIDE
        if caller != callee:
            code = frame.f_code
            walk.record(caller, callee, f"{frame.f_globals['__name__']}.{code.co_qualname}")

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield walk
    finally:
        sys.setprofile(previous)


def quote_to_report(folder: Path) -> Callable[[], Path]:
    """A quote of :data:`EXAMPLE` on a fresh demo catalog in ``folder``, to its HTML report."""
    from datetime import date, datetime

    from comparator.catalog.db import make_engine, upgrade_schema
    from comparator.config import load_settings
    from comparator.refresh.importer import load_demo
    from comparator.report import write_report
    from comparator.services import make_quote

    settings = load_settings({})
    engine = make_engine(f"sqlite:///{folder / 'catalog.db'}")
    upgrade_schema(engine)
    load_demo(engine, timezone=settings.timezone)
    today = date(2026, 12, 3)
    now = datetime(2026, 12, 3, 9, 0, tzinfo=settings.timezone)

    def quote() -> Path:
        stored = make_quote(engine, EXAMPLE, settings, today=today, now=now)
        out = folder / f"{stored.number}.html"
        write_report(stored.document, out, None)
        return out

    return quote


def quote_walk() -> Walk:
    """The walk of a warm quote of :data:`EXAMPLE`, to the rendered report."""
    with tempfile.TemporaryDirectory() as tmp:
        quote = quote_to_report(Path(tmp))
        quote()  # imports every module the quote needs: the walk is measured warm
        with walking() as walk:
            quote()
    return walk


if __name__ == "__main__":
    walk = quote_walk()
    print(walk.text())
    for (a, b), n in sorted(walk.calls.items(), key=lambda item: -item[1]):
        print(f"{n:9d} calls {a} → {b}", file=sys.stderr)
