"""The quote's way from ``make_quote`` to the rendered report: few moves, no climbing back.

Measured on the calls themselves (:mod:`tests.support.call_walk`): the rooms the quote walks
through, in ARCHITECTURE.md's layering. The services open the catalog as an offer source and
call the planner once; the planner asks the source as its walk needs; the quote is assembled
and stored; the report renders the stored document.
"""

from __future__ import annotations

from tests.support.call_walk import LAYERS, Walk, quote_walk
from tests.support.import_graph import REPO

MAX_MOVES = 20
MAX_CLIMBS = 5


def test_the_quote_walks_few_rooms_and_rarely_climbs_back() -> None:
    walk = quote_walk()
    assert walk.moves[0] == ("cli", "services"), walk.text()
    assert ("cli", "report") in walk.moves, walk.text()  # to the rendered report
    assert len(walk.moves) <= MAX_MOVES, walk.text()
    assert len(walk.climbs) <= MAX_CLIMBS, walk.text()


def test_the_walk_counts_moves_and_climbs_as_documented() -> None:
    walk = Walk()
    for caller, callee in [
        ("services", "plan"),
        ("services", "plan"),  # the same pair in a row: once
        ("plan", "domain"),  # vocabulary: not a move
        ("plan", "catalog"),
        ("catalog", "plan"),  # up
        ("services", "plan"),
    ]:
        walk.record(caller, callee)
    assert walk.moves == [
        ("services", "plan"),
        ("plan", "catalog"),
        ("catalog", "plan"),
        ("services", "plan"),
    ]
    assert walk.climbs == [("catalog", "plan")]
    assert walk.calls[("services", "plan")] == 3


def test_the_layering_is_the_architecture_pages() -> None:
    page = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    written = " > ".join("/".join(f"`{room}`" for room in rooms) for rooms in LAYERS)
    assert written in page
    rooms = {p.name for p in (REPO / "comparator").iterdir() if (p / "__init__.py").is_file()}
    placed = {room for rooms_ in LAYERS for room in rooms_}
    assert rooms | {"comparator", "config", "errors"} == placed
