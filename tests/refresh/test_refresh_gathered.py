"""The refresh's per-source work done together: a skipped source's current snapshot read with
the others asked at the same moment (comparator.refresh.gather), the sources other workers
refreshed answered on the event loop while fresh (GoodRuns.cached), one client per fetch slot
(comparator.refresh.slots), and the phase clock the benchmark prints."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from datetime import datetime

import pytest
from sqlalchemy import Engine

from comparator.catalog.queries import current_snapshot, store_profiles_in
from comparator.domain.profile import loads_profile
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.refresh.gather import Gathered, current_snapshots
from comparator.refresh.runs import GoodRuns, claim_run
from comparator.refresh.slots import Slots
from providers import PhaseClock, clock_in_use, phase
from tests.support.refresh_helpers import RUN, SNAPSHOT, profile_toml

NOW = datetime(2026, 11, 30, 3, 0, tzinfo=DEFAULT_TIMEZONE)


def test_asks_of_one_moment_are_answered_by_one_call() -> None:
    calls: list[list[str]] = []

    def answer(keys: Sequence[str]) -> dict[str, int]:
        calls.append(list(keys))
        return {key: len(key) for key in keys if key != "none"}

    async def ask_all() -> list[int | None]:
        gathered = Gathered(answer, wait_s=0.05, most=500)
        return await asyncio.gather(*(gathered.ask(k) for k in ["a", "bb", "a", "none"]))

    assert asyncio.run(ask_all()) == [1, 2, 1, None]
    assert calls == [["a", "bb", "none"]]  # one call, each key once


def test_a_full_gathering_is_answered_at_once_and_errors_reach_every_asker() -> None:
    calls: list[int] = []

    def answer(keys: Sequence[int]) -> dict[int, int]:
        calls.append(len(keys))
        if 13 in keys:
            raise RuntimeError("database gone")
        return {key: key for key in keys}

    async def ask_all() -> list[object]:
        gathered = Gathered(answer, wait_s=60.0, most=5)  # never waits 60 s: 5 fill it
        asks = [gathered.ask(k) for k in range(10, 20)]
        return await asyncio.gather(*asks, return_exceptions=True)

    started = time.monotonic()
    results = asyncio.run(ask_all())
    assert time.monotonic() - started < 30
    assert calls == [5, 5]
    assert all(isinstance(r, RuntimeError) for r in results[:5])  # 13's call failed
    assert results[5:] == [15, 16, 17, 18, 19]


def test_current_snapshots_are_those_read_one_by_one(engine: Engine) -> None:
    with engine.begin() as conn:
        store_profiles_in(
            conn, [loads_profile(profile_toml(p).encode(), p) for p in ("a", "b", "c")]
        )
        for pid, offers in (("a", 3), ("b", 5), ("a", 4)):  # a's newest: 4 offers
            conn.execute(
                SNAPSHOT.insert().values(
                    provider_id=pid, content_sha256=str(offers), fetched_at=NOW, offers=offers
                )
            )

    async def ask_all() -> list[object]:
        gathered = current_snapshots(engine)
        return await asyncio.gather(*(gathered.ask(p) for p in ["a", "b", "c"]))

    found = asyncio.run(ask_all())
    assert found == [current_snapshot(engine, p) for p in ["a", "b", "c"]]
    assert [None if f is None else f.offers for f in found] == [4, 5, None]  # type: ignore[attr-defined]


def test_good_runs_answer_from_the_last_read_without_blocking(engine: Engine) -> None:
    good = GoodRuns(engine, "w", ["a", "b"], max_age_s=3600)
    assert good.cached("a") == (False, None)  # never read: a thread must read
    assert good.reason("a") is None  # read now, nothing refreshed yet
    assert good.cached("a") == (True, None)
    assert good.cached("z") == (True, None)  # not one of the sources: always claimed
    claim = claim_run(engine, "a", "a.csv", "w", only_if_due=True, now=NOW, deadline_s=60)
    assert not isinstance(claim, str)
    with engine.begin() as conn:
        conn.execute(RUN.update().values(status="succeeded"))
    assert good.cached("a") == (True, None)  # the read of an hour's age still stands
    stale = GoodRuns(engine, "w", ["a", "b"], max_age_s=0.0)
    stale.reason("b")
    assert stale.cached("a") == (False, None)  # older than max_age_s: read again
    assert str(stale.reason("a")) == "already refreshed in period w (attempt 1, succeeded)"


def test_good_runs_do_not_wait_for_a_read_under_way(engine: Engine) -> None:
    good = GoodRuns(engine, "w", ["a"], max_age_s=3600)
    good.reason("a")
    with good._lock:  # a thread reading at this moment holds it
        assert good.cached("a") == (False, None)


def test_each_slot_has_a_client_of_its_own() -> None:
    async def turns() -> tuple[int, int, bool]:
        slots = Slots(3)
        try:
            held = [await slots.turn().__aenter__() for _ in range(3)]
            clients = {id(slot.client) for slot in held}
            waiting = asyncio.ensure_future(slots.turn().__aenter__())
            await asyncio.sleep(0.05)
            blocked = not waiting.done()  # a fourth waits for a slot
            held[1].release()
            fourth = await waiting
            return len(clients), id(fourth.client) == id(held[1].client), blocked
        finally:
            await slots.aclose()

    distinct, reused, blocked = asyncio.run(turns())
    assert distinct == 3 and reused and blocked


def test_phase_clock_adds_wall_and_thread_cpu_of_every_thread() -> None:
    clock = PhaseClock()

    def work() -> None:
        with phase("parse"):
            sum(range(200_000))

    with clock_in_use(clock):
        threads = [threading.Thread(target=lambda: clock_in_use(clock).__enter__() or work())]
        work()
    for thread in threads:
        thread.start()
        thread.join()
    timings = clock.timings()
    assert timings["parse"] > 0 and 0 < timings["parse_cpu"] <= timings["parse"] * 1.5
    with phase("outside"):  # no clock in use: nothing is added
        pass
    assert "outside" not in clock.timings()
    laps = clock.laps()
    laps.lap("first")
    assert "first" in clock.timings() and "first_cpu" in clock.timings()


@pytest.mark.parametrize("cpu", [True, False])
def test_event_loop_phases_leave_cpu_out(cpu: bool) -> None:
    clock = PhaseClock()
    with clock.measure("fetch", cpu=cpu):
        pass
    assert ("fetch_cpu" in clock.timings()) == cpu


def test_good_runs_asked_together_share_one_read_of_their_chunk(engine: Engine) -> None:
    """Sources asking about one chunk while it is read await that one read: no thread per
    asker. The answers are each provider's own."""
    providers = [f"p{n}" for n in range(40)]
    claim = claim_run(engine, "p7", "p7.csv", "w", only_if_due=True, now=NOW, deadline_s=60)
    assert not isinstance(claim, str)
    with engine.begin() as conn:
        conn.execute(RUN.update().values(status="succeeded"))
    reads: list[int] = []

    class Counted(GoodRuns):
        def _read(self, chunk: list[str]) -> dict[str, tuple[int, str]]:
            reads.append(len(chunk))
            return super()._read(chunk)

    good = Counted(engine, "w", providers, max_age_s=3600)

    async def ask_all() -> list[object]:
        return await asyncio.gather(*(good.ask(p) for p in providers))

    answers = asyncio.run(ask_all())
    assert reads == [40]  # one read for the 40 askers
    assert [str(a) for a in answers if a is not None] == [
        "already refreshed in period w (attempt 1, succeeded)"
    ]
    assert answers[7] is not None
