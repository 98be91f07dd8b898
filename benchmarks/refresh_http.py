"""The refresh's HTTP client alone: event-loop CPU per request, a slot's client against httpx's
own transport, alternating in one run.

A light loopback server (:mod:`tests.support.light_httpserver`, in a process of its own so its
CPU is not counted) serves ``--requests`` sheets of 100 offers; ``--slots`` tasks fetch them
with :func:`providers.fetch.fetch_document`, each on its slot's client, as the refresh does.
Printed per round: the event loop thread's CPU per request (``time.thread_time``) with

- ``slot``: the refresh's clients (:class:`comparator.refresh.slots.Slots`: an
  :class:`providers.H11Transport` each, httpx's cookie jar emptied per source);
- ``httpx``: ``httpx.AsyncClient`` of one connection with httpx's own transport
  (``httpcore`` + ``anyio``), as the slots were before.

    python benchmarks/refresh_http.py [--requests 4000] [--slots 64] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from comparator.refresh.slots import Slots  # noqa: E402
from providers.fetch import FetchPolicy, fetch_document  # noqa: E402

SERVE = """
import sys
from tests.support.httpserver import Reply
from tests.support.light_httpserver import light_server
from tests.support.refresh_helpers import sheet_csv
with light_server() as server:
    for i in range(int(sys.argv[1])):
        body = sheet_csv(f"p{i}", [f"{1 + i % 7}.{i % 100:02d}"] * 100)
        server.set(f"/p{i}.csv", Reply(body=body, delay_s=0.01), etag=f'"p{i}"')
    print(server.port, flush=True)
    sys.stdin.read()
"""


def httpx_clients(count: int) -> list[httpx.AsyncClient]:
    one = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    return [httpx.AsyncClient(limits=one, follow_redirects=False) for _ in range(count)]


async def loop_cpu_per_request(mode: str, port: int, requests: int, slots: int) -> float:
    """The event loop thread's CPU seconds per request, ``requests`` fetched ``slots`` at a
    time, each task on a client of its own."""
    slot_set = Slots(slots) if mode == "slot" else None
    clients: list[httpx.AsyncClient] = []
    clients += slot_set._clients if slot_set else httpx_clients(slots)
    policy = FetchPolicy(deadline_s=30)
    queue = list(range(requests))

    async def fetch_on(client: httpx.AsyncClient) -> None:
        while queue:
            n = queue.pop()
            url = f"http://127.0.0.1:{port}/p{n}.csv"
            document = await fetch_document(client, url, policy)
            assert len(document.content) > 1000

    started = time.thread_time()
    await asyncio.gather(*(fetch_on(client) for client in clients))
    spent = time.thread_time() - started
    if slot_set is not None:
        await slot_set.aclose()
    else:
        for client in clients:
            await client.aclose()
    return spent / requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--slots", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(args.requests)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    port = int(server.stdout.readline())
    seen: dict[str, list[float]] = {"slot": [], "httpx": []}
    try:
        for round_number in range(1, args.rounds + 1):
            for mode in seen:
                cpu = asyncio.run(loop_cpu_per_request(mode, port, args.requests, args.slots))
                seen[mode].append(cpu)
                print(f"round {round_number}  {mode:<6} {cpu * 1000:6.3f} ms of loop CPU/request")
    finally:
        server.stdin.close()
        server.wait()
    slot, plain = statistics.median(seen["slot"]), statistics.median(seen["httpx"])
    print(f"median: slot {slot * 1000:.3f} ms, httpx {plain * 1000:.3f} ms ({slot / plain:.2f}×)")


if __name__ == "__main__":
    main()
