"""Many sources: at most max_in_flight at a time, each deadline starting when its turn comes."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine

from comparator.refresh.run import START_BLOCK, _start_order, run_refresh
from comparator.refresh.slots import Slots
from comparator.refresh.sources import load_sources
from tests.support.httpserver import Reply, fault_server
from tests.support.refresh_helpers import (
    profile_toml,
    runs_by_provider,
    sheet_csv,
    source_entry,
    write_sources,
)

SOURCES = 120
SLOTS = 4
DELAY_S = 0.15  # each answer: 120 sources / 4 slots x 0.15 s = at least 4.5 s in all
TIMEOUT_S = 2  # per source: more than half would run out if deadlines started when queued


@pytest.mark.slow
def test_queued_sources_do_not_time_out_and_in_flight_is_capped(
    engine: Engine, tmp_path: Path
) -> None:
    with fault_server() as server:
        entries = []
        for n in range(SOURCES):
            provider = f"p{n:03d}"
            (tmp_path / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
            body = sheet_csv(provider, ["2.00"])
            url = server.set(f"/{provider}.csv", Reply(body=body, delay_s=DELAY_S))
            entries.append(
                source_entry(
                    provider, url, profile=f"{provider}.toml", timeout_s=TIMEOUT_S, retries=0
                )
            )
        config = write_sources(tmp_path, entries, worker_extra=f"max_in_flight = {SLOTS}\n")
        report = run_refresh(engine, load_sources(config))
        most = server.max_in_flight
    statuses = [run.status for run in report.runs]
    assert statuses.count("succeeded") == SOURCES, {r.error for r in report.runs}
    assert report.seconds > SOURCES / SLOTS * DELAY_S * 0.9  # they really queued ...
    assert most <= SLOTS  # ... at most SLOTS at a time, and none timed out


def test_a_stop_fails_the_sources_claimed_ahead_and_leaves_no_run_running(
    engine: Engine, tmp_path: Path
) -> None:
    """One slot, so one source fetches, one more is claimed ahead and waits for the slot, and
    the rest wait for a turn: a stop with no grace records the first two as failed (the next
    run retries them) and leaves no run 'running' behind."""
    with fault_server() as server:
        entries = []
        for n in range(4):
            provider = f"q{n}"
            (tmp_path / f"{provider}.toml").write_text(profile_toml(provider), encoding="utf-8")
            url = server.set(
                f"/{provider}.csv", Reply(body=sheet_csv(provider, ["2.00"]), delay_s=5.0)
            )
            entries.append(source_entry(provider, url, profile=f"{provider}.toml", timeout_s=30))
        config = write_sources(
            tmp_path, entries, worker_extra="max_in_flight = 1\nstop_grace_s = 0\n"
        )
        stop = threading.Event()
        threading.Timer(1.0, stop.set).start()
        report = run_refresh(engine, load_sources(config), stop=stop)
    runs = runs_by_provider(engine)
    assert {r["status"] for rs in runs.values() for r in rs} == {"failed"}, runs
    assert len(runs) == 2  # the one fetching and the one claimed ahead of its slot
    assert all("interrupted" in (rs[0]["error"] or "") for rs in runs.values())
    assert [r.status for r in report.runs] == ["failed"] * 4


def test_workers_walk_the_sources_in_blocks_of_their_own_order() -> None:
    """Two workers (two holders) walk every source once each, in blocks of START_BLOCK, and
    start in different blocks; a plain refresh walks the file's order."""
    first = _start_order(1234, True, "host:41")
    second = _start_order(1234, True, "host:42")
    assert sorted(first) == sorted(second) == list(range(1234))
    assert first[0] // START_BLOCK != second[0] // START_BLOCK
    for order in (first, second):
        starts = [i for n, i in enumerate(order) if n == 0 or order[n - 1] != i - 1]
        assert all(i % START_BLOCK == 0 for i in starts)  # each block walked in a row
    assert _start_order(1234, False) == list(range(1234))


def test_a_sources_cookies_stay_within_its_turn() -> None:
    """A cookie an answer sets goes back on the same source's next request (a redirect that
    sets a session), never to the next source of the slot, even on the same host."""
    seen: list[bytes] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            seen.append(head.lower())
            writer.write(b"HTTP/1.1 200 OK\r\nSet-Cookie: session=abc; Path=/\r\n")
            writer.write(b"Content-Length: 2\r\n\r\nok")
            await writer.drain()

    async def scenario() -> None:
        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/"
        slots = Slots(1)
        try:
            for _ in range(2):  # two sources, one after the other, on the one slot
                async with slots.turn() as slot:
                    assert slot.client is not None
                    assert (await slot.client.get(url)).text == "ok"
                    assert (await slot.client.get(url)).text == "ok"
        finally:
            await slots.aclose()
            server.close()

    asyncio.run(asyncio.wait_for(scenario(), timeout=20))
    carried = [b"cookie: session=abc" in head for head in seen]
    assert carried == [False, True, False, True], seen
