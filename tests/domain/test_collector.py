"""``collector_paused``: the cyclic collector off for a block, and where its objects go after."""

from __future__ import annotations

import gc

from comparator.domain import collector_paused


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


def _generation_of(obj: object) -> int | None:
    for generation in range(3):
        if any(o is obj for o in gc.get_objects(generation=generation)):
            return generation
    return None


def test_the_collector_is_paused_inside_and_resumed_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():  # nested: the outer block resumes it
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_paused_collector_stays_paused() -> None:
    gc.disable()
    try:
        with collector_paused(examine=False):
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_unexamined_objects_go_to_the_oldest_generation() -> None:
    """``examine=False``: what the block left alive is not walked by a young collection after
    it (it is in the oldest generation at once, the young count reset); a cycle among it is
    freed by the next full collection. By default the first collection after the block walks
    it (it is then one generation older)."""
    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        gc.collect()
        collections.clear()
        with collector_paused():
            kept = [_Node() for _ in range(2000)]
        assert _generation_of(kept) == 1 and collections[:1] == [0]
        gc.collect()
        collections.clear()
        with collector_paused(examine=False):
            kept = [_Node() for _ in range(2000)]
            dropped = _Node()
            dropped_id = id(dropped)
            del dropped
        assert _generation_of(kept) == 2 and _generation_of(kept[0]) == 2
        assert any(id(o) == dropped_id for o in gc.get_objects(generation=2))
        assert collections == []
        gc.collect()
        assert not any(id(o) == dropped_id and type(o) is _Node for o in gc.get_objects())
    finally:
        gc.callbacks.remove(seen)
