"""The fetch layer against a real HTTP server on 127.0.0.1: retries, deadline, resets, 304."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from comparator.errors import SourceError
from providers.fetch import (
    Document,
    FetchPolicy,
    Validators,
    document_name,
    fetch_document,
    parse_retry_after,
)
from tests.support.httpserver import FaultServer, Reply, fault_server

BODY = b"provider,region,gpu,billing,price\nacme,gd-1,4090,hourly,1.80\n" * 50
FAST = FetchPolicy(deadline_s=3, connect_timeout_s=1, read_timeout_s=2, retries=2, backoff_s=0.01)


@pytest.fixture()
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def fetch(url: str, policy: FetchPolicy = FAST, since: Validators | None = None) -> Document:
    async def go() -> Document:
        async with httpx.AsyncClient() as client:
            return await fetch_document(client, url, policy, since=since)

    return asyncio.run(go())


def test_good_body_arrives_whole_with_its_validators(server: FaultServer) -> None:
    url = server.set("/ok.csv", Reply(body=BODY), etag='"v1"', last_modified="Sun, 29 Nov 2026")
    document = fetch(url)
    assert document.content == BODY
    assert document.validators.etag == '"v1"'
    assert document.validators.last_modified == "Sun, 29 Nov 2026"
    assert document.sha256 == hashlib.sha256(BODY).hexdigest() and not document.not_modified


@pytest.mark.slow
def test_429_then_good_honours_retry_after(server: FaultServer) -> None:
    url = server.set("/busy", Reply(429, headers={"Retry-After": "1"}), Reply(body=BODY))
    started = time.monotonic()
    assert fetch(url).content == BODY
    assert time.monotonic() - started >= 0.95
    assert server.hits["/busy"] == 2


def test_500_is_retried_then_fails_with_the_status(server: FaultServer) -> None:
    url = server.set("/down", Reply(500, b"oops"))
    with pytest.raises(SourceError, match=r"/down: HTTP 500 after 3 attempt\(s\)"):
        fetch(url)
    assert server.hits["/down"] == 3


def test_404_is_final_and_not_retried(server: FaultServer) -> None:
    url = server.set("/gone", Reply(404, b"no"))
    with pytest.raises(SourceError, match="HTTP 404 Not Found; expected 200"):
        fetch(url)
    assert server.hits["/gone"] == 1


def test_reset_mid_body_is_retried_then_reported(server: FaultServer) -> None:
    url = server.set("/reset", Reply(body=BODY, reset_after_bytes=100))
    with pytest.raises(SourceError, match="after 3 attempt") as info:
        fetch(url)
    assert "connection" in str(info.value)
    assert server.hits["/reset"] == 3


def test_reset_once_then_good_recovers(server: FaultServer) -> None:
    url = server.set("/flaky", Reply(body=BODY, reset_after_bytes=10), Reply(body=BODY))
    assert fetch(url).content == BODY


@pytest.mark.slow
def test_trickling_body_stops_at_the_deadline_not_the_read_timeout(server: FaultServer) -> None:
    url = server.set("/slow", Reply(body=BODY, trickle_bytes=50, trickle_every_s=0.2))
    policy = FetchPolicy(deadline_s=1.0, read_timeout_s=5, retries=3, backoff_s=0.01)
    started = time.monotonic()
    with pytest.raises(SourceError, match=r"within the 1 s deadline .*body bytes received"):
        fetch(url, policy)
    assert time.monotonic() - started < 1.8


def test_empty_body_is_an_error_and_not_retried(server: FaultServer) -> None:
    url = server.set("/empty", Reply(body=b""))
    with pytest.raises(SourceError, match="empty body"):
        fetch(url)
    assert server.hits["/empty"] == 1


def test_conditional_get_returns_not_modified(server: FaultServer) -> None:
    url = server.set("/etag.csv", Reply(body=BODY), etag='"abc"')
    first = fetch(url)
    second = fetch(url, since=first.validators)
    assert second.not_modified and second.content == b""
    assert server.conditional_hits["/etag.csv"] == 1


def test_same_bytes_without_server_validators_count_as_not_modified(server: FaultServer) -> None:
    url = server.set("/plain.csv", Reply(body=BODY))
    first = fetch(url)
    assert first.validators.etag is None
    again = fetch(url, since=first.validators)
    assert again.not_modified and again.validators == first.validators
    server.set("/plain.csv", Reply(body=BODY + b"acme,gd-1,4090,hourly,1.70\n"))
    assert not fetch(url, since=first.validators).not_modified


def test_unreachable_port_fails_cleanly() -> None:
    with fault_server() as gone:
        url = gone.url("/x")
    with pytest.raises(SourceError, match="cannot connect"):
        fetch(url, FetchPolicy(deadline_s=3, retries=1, backoff_s=0.01))


def test_local_paths_are_read_and_empty_files_rejected(tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    (folder / "s.csv").write_bytes(BODY)
    (folder / "empty.csv").write_bytes(b"")
    assert fetch(str(folder / "s.csv")).content == BODY
    with pytest.raises(SourceError, match=r"empty\.csv: the file is empty"):
        fetch(str(folder / "empty.csv"))
    with pytest.raises(SourceError, match=r"missing\.csv: cannot read the file"):
        fetch(str(folder / "missing.csv"))


def test_retry_after_accepts_seconds_and_http_dates() -> None:
    now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    later = (now + timedelta(seconds=30)).strftime("%a, %d %b %Y %H:%M:%S GMT")
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(later, now) == pytest.approx(30.0)
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None
    assert parse_retry_after("100000") == 300.0


def test_document_name_drops_query_and_folders() -> None:
    assert document_name("https://x.org/a/b/prices.xlsx?token=1") == "prices.xlsx"
    assert document_name("/tmp/sheets/价格.csv") == "价格.csv"
