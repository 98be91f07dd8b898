"""Where a source's parse runs: a small plain sheet on the event loop, a large one or an XLSX in
a daemon thread kept between parses (providers.daemon_pool), each within parse_timeout_s."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest

from comparator.errors import SourceError
from providers import SourceSpec
from providers.base import INLINE_PARSE_MAX_BYTES, Adapter, AdapterResult
from providers.daemon_pool import DaemonPool
from providers.fetch import FetchPolicy, Validators
from providers.parse_deadline import check_parse_deadline


class _Probe(Adapter):
    name = "probe"

    async def fetch(self, since: Validators | None = None) -> AdapterResult:
        raise NotImplementedError


def _where_parsed(content: bytes, timeout_s: float = 5.0) -> str:
    """The name of the thread ``parse_within`` ran the parse of ``content`` in."""

    def parse(body: bytes) -> str:
        return threading.current_thread().name

    async def run() -> str:
        async with httpx.AsyncClient() as client:
            source = SourceSpec(
                "p", "probe", "/x.csv", policy=FetchPolicy(parse_timeout_s=timeout_s)
            )
            return await _Probe(source, client).parse_within(parse, content)

    return asyncio.run(run())


def test_a_small_csv_is_parsed_on_the_event_loop_and_a_large_one_in_a_daemon_thread() -> None:
    loop_thread = threading.current_thread().name  # asyncio.run's loop runs in this thread
    assert _where_parsed(b"provider,price\np,1\n") == loop_thread
    assert _where_parsed(b"x" * (INLINE_PARSE_MAX_BYTES + 1)) == "suanli-parse"


def test_a_small_xlsx_still_goes_to_a_thread() -> None:
    assert _where_parsed(b"PK\x03\x04" + b"\x00" * 100) == "suanli-parse"


def test_an_inline_parse_past_its_limit_fails_the_source_with_the_usual_message() -> None:
    def slow(body: bytes) -> None:
        while True:
            time.sleep(0.01)
            check_parse_deadline()

    async def run() -> Any:
        async with httpx.AsyncClient() as client:
            policy = FetchPolicy(parse_timeout_s=0.05)
            source = SourceSpec("p", "probe", "/x.csv", policy=policy)
            return await _Probe(source, client).parse_within(slow, b"a,b\n1,2\n")

    with pytest.raises(SourceError, match=r"parse_timeout_s = 0\.05"):
        asyncio.run(run())


def test_the_pool_reuses_idle_threads_and_a_stuck_job_does_not_hold_the_others() -> None:
    pool = DaemonPool("test-pool", idle_s=0.3)
    names: list[str] = []
    done = threading.Semaphore(0)

    def job() -> None:
        names.append(threading.current_thread().name)
        done.release()

    for _ in range(20):  # one after the other: one thread serves them all
        pool.submit(job)
        assert done.acquire(timeout=5)
        _until(lambda: pool._idle == 1)  # the thread is back to waiting
    assert pool.threads == 1 and names == ["test-pool"] * 20
    stuck = threading.Event()
    pool.submit(lambda: stuck.wait(10))  # holds its thread
    pool.submit(job)
    assert done.acquire(timeout=5)  # another thread ran it
    assert pool.threads == 2
    stuck.set()
    _until(lambda: pool.threads == 0)  # idle threads end after idle_s


def _until(condition: Any, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.002)
