"""Bounded and safe fetching: body limits (2 GiB, gzip bomb), redirects, tokens, masked URLs."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text
from sqlmodel import SQLModel

from comparator.errors import SourceError
from providers.fetch import FetchPolicy, fetch_document
from providers.urls import check_redirect, mask_text, mask_url
from tests.conftest import REPO
from tests.support.httpserver import FaultServer, Reply, fault_server
from tests.support.refresh_helpers import profile_toml, sheet_csv, source_entry, write_sources

FAST = FetchPolicy(deadline_s=60, connect_timeout_s=2, read_timeout_s=10, retries=0)
TOKEN = "tok-3f9a1c7e5b2d4680aa"


class EndlessServer:
    """Answers every request with an endless body: zeros, or a gzip bomb."""

    def __init__(self, gzip_bomb: bytes | None = None) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.bomb = gzip_bomb
        self.sent = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            try:
                if self.bomb is not None:
                    head = f"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: {len(self.bomb)}\r\n\r\n"
                    conn.sendall(head.encode() + self.bomb)
                    return
                conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {2**31}\r\n\r\n".encode())
                chunk = b"0" * 2**20
                while self.sent < 2**31:
                    conn.sendall(chunk)
                    self.sent += len(chunk)
            except OSError:
                return

    def close(self) -> None:
        self.sock.close()


def gzip_bomb(decompressed: int = 2**31) -> bytes:
    """About 2 MB of gzip that decompress to ``decompressed`` zero bytes.

    After a full flush deflate forgets its history, so every further 16 MiB of zeros compresses
    to the same bytes: compress two blocks and repeat the second (the trailer's CRC is never
    reached — the client must stop long before).
    """
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(2**24)
    first = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    return first + again * (decompressed // len(block) - 1) + packer.flush()


FETCH_IN_A_CHILD = """
import asyncio, sys, httpx
from providers.fetch import FetchPolicy, fetch_document
from comparator.errors import SourceError
async def main():
    async with httpx.AsyncClient() as client:
        try:
            await fetch_document(client, sys.argv[1], FetchPolicy(deadline_s=120, retries=0))
        except SourceError as exc:
            print("refused:", exc)
asyncio.run(main())
# VmHWM is this process's own peak (ru_maxrss keeps the forking parent's across exec)
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print("peak_rss_mb", int(hwm.split()[1]) // 1024)
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["2GiB", "gzip-bomb"])
def test_big_bodies_are_cut_at_the_limit_in_little_memory(kind: str) -> None:
    server = EndlessServer(gzip_bomb() if kind == "gzip-bomb" else None)
    try:
        url = f"http://127.0.0.1:{server.port}/big.csv"
        proc = subprocess.run(
            [sys.executable, "-c", FETCH_IN_A_CHILD, url],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        server.close()
    assert proc.returncode == 0, proc.stderr
    assert "refused:" in proc.stdout and "body too large" in proc.stdout, proc.stdout
    assert "the limit is 64 MiB" in proc.stdout
    peak = int(proc.stdout.split("peak_rss_mb")[1])
    assert peak < 300, proc.stdout
    assert server.sent < 2**30  # the transfer stopped, it did not run to 2 GiB


def fetch(url: str, policy: FetchPolicy = FAST) -> bytes:
    async def go() -> bytes:
        async with httpx.AsyncClient() as client:
            return (await fetch_document(client, url, policy)).content

    return asyncio.run(go())


@pytest.fixture()
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def test_redirects_stay_on_the_host_unless_allowed(server: FaultServer) -> None:
    server.set("/data.csv", Reply(body=b"a,b\n1,2\n"))
    same = server.set("/same", Reply(302, headers={"Location": "/data.csv"}))
    assert fetch(same) == b"a,b\n1,2\n"
    other = f"http://localhost:{server.port}/data.csv"  # another host name
    away = server.set("/away", Reply(302, headers={"Location": other}))
    with pytest.raises(SourceError, match=r"redirect to .* refused: another host"):
        fetch(away)
    allowed = FetchPolicy(**{**FAST.__dict__, "redirect_hosts": ("localhost",)})
    assert fetch(away, allowed) == b"a,b\n1,2\n"
    port = server.set("/port", Reply(302, headers={"Location": "http://127.0.0.1:5432/"}))
    with pytest.raises(SourceError, match="another host or port"):
        fetch(port)


def test_no_redirect_from_a_public_source_to_an_internal_address() -> None:
    async def check(source: str, target: str) -> None:
        await check_redirect(source, source, target, ("*",))

    for target in ("http://127.0.0.1:5432/", "http://10.0.0.7/", "http://169.254.169.254/x"):
        with pytest.raises(SourceError, match="not a public address"):
            asyncio.run(check("http://8.8.8.8/prices.csv", target))
    asyncio.run(check("http://127.0.0.1:8080/prices.csv", "http://127.0.0.1:9090/"))  # internal
    with pytest.raises(SourceError, match="https to plain http"):
        asyncio.run(check("https://8.8.8.8/a", "http://8.8.8.8/b"))


def test_urls_are_masked() -> None:
    assert mask_url("https://bob:hunter2@h.example/p.csv?key=abc&page=2") == (
        "https://***@h.example/p.csv?key=***&page=***"
    )
    assert mask_url("https://bob:hunter2@h.example/p.csv?key=abc&page=2", ("page",)) == (
        "https://***@h.example/p.csv?key=***&page=2"
    )
    assert mask_url("https://h.example/p?access_token=x&sig=y") == (
        "https://h.example/p?access_token=***&sig=***"
    )
    assert (
        mask_text("GET https://u:p@h/x failed", ("https://u:p@h/x",))
        == "GET https://***@h/x failed"
    )


@pytest.mark.slow
def test_a_token_env_token_never_appears_in_database_report_or_log(
    server: FaultServer, tmp_path: Path
) -> None:
    (tmp_path / "alpha.toml").write_text(profile_toml("alpha"), encoding="utf-8")
    (tmp_path / "beta.toml").write_text(profile_toml("beta"), encoding="utf-8")
    good = server.set("/alpha.csv", Reply(body=sheet_csv("alpha", ["3.10"])))
    failing = server.set("/beta.csv", Reply(500, body=TOKEN.encode()))
    secret_url = failing.replace("http://", f"http://user:{TOKEN}@") + f"?api_key={TOKEN}"
    entries = [
        source_entry("alpha", good, profile="alpha.toml", token_env="ALPHA_TOKEN"),
        source_entry("beta", secret_url, profile="beta.toml", token_env="ALPHA_TOKEN", retries=0),
    ]
    config = write_sources(tmp_path, entries)
    db_url = f"sqlite:///{tmp_path / 'catalog.db'}"
    env = {**os.environ, "ALPHA_TOKEN": TOKEN}
    run = [sys.executable, "-m", "comparator", "--db", db_url]
    subprocess.run(
        [*run, "init"],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
    )
    proc = subprocess.run(
        [*run, "refresh", "--config", str(config), "--json"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert server.request_headers["/alpha.csv"]["authorization"] == f"Bearer {TOKEN}"
    report = json.loads(proc.stdout)
    statuses = {r["provider"]: r["status"] for r in report["runs"]}
    assert statuses == {"alpha": "succeeded", "beta": "failed"}, proc.stdout
    assert TOKEN not in proc.stdout and TOKEN not in proc.stderr
    worker = subprocess.Popen(
        [*run, "worker", "--config", str(config)],
        cwd=REPO,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    log = ""
    assert worker.stderr is not None
    for line in worker.stderr:
        log += line
        if "refresh of period" in line:
            break
    worker.terminate()
    log += worker.stderr.read()
    worker.wait(timeout=60)
    assert "beta" in log and TOKEN not in log
    engine = create_engine(db_url)
    with engine.connect() as conn:
        for table in SQLModel.metadata.tables:
            for row in conn.execute(text(f'SELECT * FROM "{table}"')):
                assert TOKEN not in " ".join(map(str, row)), (table, row)
    engine.dispose()
