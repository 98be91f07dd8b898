"""Limits that hold on every path (#27): checked while reading, before the work they would cause.

Wide sheets stop before a column is made of each field or key; files are read no further than
their limit (a FIFO, ``/dev/zero``); a per-source body limit holds on a chunked body that never
says its length, in little memory and within the source's deadline.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.domain.bounded_read import read_limited
from comparator.domain.profile import load_profile
from comparator.errors import InputError, ProfileError
from comparator.refresh.importer import import_files
from providers.sheet.parse import KnownCatalog, parse_sheet
from providers.sheet.sheet_limits import MAX_COLUMNS, csv_width
from tests.conftest import REPO
from tests.support.refresh_helpers import profile_toml, source_entry, write_sources

KNOWN = KnownCatalog({"acme": {"sg-1": "sg-1"}})
WIDE_LIMIT_S = 10.0  # generous: the figures are benchmarks/wide_sheets.py's (about 1 s)


def one_wide_object(keys: int) -> bytes:
    return json.dumps({f"k{i}": "1" for i in range(keys)}).encode()


def one_wide_row(keys: int) -> bytes:
    return json.dumps([{f"k{i}": "1" for i in range(keys)}]).encode()


def wide_csv(columns: int) -> bytes:
    header = ",".join(f"c{i}" for i in range(columns))
    return (header + "\n" + ",".join("1" * columns) + "\n").encode()


@pytest.mark.parametrize(
    ("name", "make"),
    [("object.json", one_wide_object), ("row.json", one_wide_row), ("wide.csv", wide_csv)],
)
def test_a_sheet_wider_than_the_limit_is_refused_naming_file_and_limit(name, make) -> None:
    with pytest.raises(InputError) as caught:
        parse_sheet(make(5_000), name, KNOWN)
    message = str(caught.value)
    assert message.startswith(f"{name}: ") and f"at most {MAX_COLUMNS}" in message, message
    assert "5000" in message, message


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "make"),
    [("object.json", one_wide_object), ("row.json", one_wide_row), ("wide.csv", wide_csv)],
)
def test_a_million_keys_or_columns_are_refused_at_once(name, make) -> None:
    content = make(1_000_000)
    started = time.monotonic()
    with pytest.raises(InputError, match=rf"^{name}: .*1000000 .*at most {MAX_COLUMNS}"):
        parse_sheet(content, name, KNOWN)
    assert time.monotonic() - started < WIDE_LIMIT_S  # was 45-66 s: a column per key


def test_the_width_of_a_csv_is_its_first_record_quotes_and_all() -> None:
    assert csv_width(b"a,b,c\n1,2,3,4,5\n", ",") == 3
    assert csv_width(b'a,"b,\nc",d\r\n', ",") == 3  # a quoted separator and line break
    assert csv_width(b'"a ""x"", y",b', ",") == 2
    assert csv_width(b"a\tb,c\n", "\t") == 2
    assert csv_width(b'"a",' * 100_000 + b"\n", ",") == MAX_COLUMNS + 2  # stops counting


def test_the_width_limit_leaves_sheets_at_the_limit_alone() -> None:
    header = "provider,region,gpu,cards,billing,price,currency"
    extra = ",".join(f"x{i}" for i in range(MAX_COLUMNS - 7))
    row = "acme,sg-1,H100,1,hourly,3.10,USD" + "," * (MAX_COLUMNS - 7)
    [offer] = parse_sheet(f"{header},{extra}\n{row}\n".encode(), "p.csv", KNOWN)
    assert offer.cards == 1
    document = [
        {
            **{f"x{i}": "" for i in range(MAX_COLUMNS - 7)},
            **dict(zip(header.split(","), row.split(",")[:7], strict=True)),
        }
    ]
    [offer] = parse_sheet(json.dumps(document).encode(), "p.json", KNOWN)
    assert offer.cards == 1


def test_files_are_read_no_further_than_their_limit(tmp_path: Path) -> None:
    small = tmp_path / "small.bin"
    small.write_bytes(b"x" * 10)
    assert read_limited(small, 10) == b"x" * 10
    assert read_limited(small, 9) is None
    assert read_limited(Path("/dev/zero"), 3 * 2**20) is None  # no end: stopped at the limit
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=_feed, args=(fifo, 64 * 2**20), daemon=True)
    writer.start()
    assert read_limited(fifo, 2**20) is None
    writer.join(timeout=10)


def _feed(fifo: Path, size: int) -> None:
    try:
        with fifo.open("wb") as out:
            for _ in range(size // 2**16):
                out.write(b"0" * 2**16)
    except BrokenPipeError:
        pass  # the reader stopped at its limit


def test_a_2_gib_sheet_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'catalog.db'}")
    upgrade_schema(engine)
    big = tmp_path / "big.csv"
    with big.open("wb") as file:
        file.truncate(2**31)  # sparse: reading it would take 2 GiB of memory
    with pytest.raises(InputError, match=r"big\.csv: more than 268435456 bytes"):
        import_files(engine, [big], [], timezone=ZoneInfo("Asia/Shanghai"))
    engine.dispose()


def test_an_endless_profile_is_refused_at_its_limit(tmp_path: Path) -> None:
    endless = tmp_path / "acme.toml"
    endless.symlink_to("/dev/zero")
    with pytest.raises(ProfileError, match=r"acme\.toml: more than 16777216 bytes"):
        load_profile(endless)


def test_a_pipe_as_a_refresh_source_is_refused(tmp_path: Path) -> None:
    from comparator.refresh.run import run_refresh
    from comparator.refresh.sources import load_sources

    fifo = tmp_path / "prices.csv"
    os.mkfifo(fifo)  # nobody writes: reading it would wait for ever
    config = write_sources(tmp_path, [source_entry("acme", str(fifo))])
    engine = make_engine(f"sqlite:///{tmp_path / 'catalog.db'}")
    upgrade_schema(engine)
    report = run_refresh(engine, load_sources(config))
    [outcome] = report.runs
    assert outcome.status == "failed" and "not a regular file" in (outcome.error or "")
    engine.dispose()


class ChunkedServer:
    """Answers with ``total`` bytes in 1 MiB chunks, chunked: no Content-Length at all."""

    def __init__(self, total: int = 2**31) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.total = total
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
        chunk = b"0" * 2**20
        piece = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
        with conn:
            conn.recv(65536)
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                while self.sent < self.total:
                    conn.sendall(piece)
                    self.sent += len(chunk)
                conn.sendall(b"0\r\n\r\n")
            except OSError:
                return

    def close(self) -> None:
        self.sock.close()


REFRESH_IN_A_CHILD = """
import sys, time
from comparator.cli import main
started = time.monotonic()
main(sys.argv[1:])  # not the console script's run(): it may end the process at once
print("elapsed_s", round(time.monotonic() - started, 2))
# VmHWM is this process's own peak (ru_maxrss keeps the forking parent's across exec)
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print("peak_rss_mb", int(hwm.split()[1]) // 1024)
"""


@pytest.mark.slow
def test_a_2_gib_chunked_body_stops_at_a_4_kib_source_limit(tmp_path: Path) -> None:
    server = ChunkedServer()
    (tmp_path / "acme.toml").write_text(profile_toml("acme"), encoding="utf-8")
    url = f"http://127.0.0.1:{server.port}/prices.csv"
    entry = source_entry("acme", url, profile="acme.toml", max_body_mb=0.00390625, timeout_s=20)
    config = write_sources(tmp_path, [entry])
    db = f"sqlite:///{tmp_path / 'catalog.db'}"
    engine = make_engine(db)
    upgrade_schema(engine)
    engine.dispose()
    args = ["--lang", "en", "--db", db, "refresh", "--config", str(config), "--json"]
    try:
        proc = subprocess.run(
            [sys.executable, "-c", REFRESH_IN_A_CHILD, *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        server.close()
    assert proc.stdout.startswith("{"), (proc.stdout, proc.stderr)
    report = json.loads(proc.stdout.split("\nelapsed_s")[0])
    [run] = report["runs"]
    assert run["status"] == "failed", proc.stdout
    assert "body too large" in run["error"] and "the limit is 4096 bytes" in run["error"], run
    figures = proc.stdout.split("\nelapsed_s")[1]
    elapsed_s = float(figures.split()[0])
    peak_mb = int(figures.split("peak_rss_mb")[1])
    assert peak_mb < 300 and elapsed_s < 20, figures
    assert server.sent < 2**26  # the transfer stopped, it did not run to 2 GiB


@pytest.mark.slow
def test_an_xlsx_without_dimension_stops_at_the_parse_deadline() -> None:
    """openpyxl sizes a sheet without ``<dimension>`` by parsing all of it in one call
    (14 s for 200,000 rows on the shared machine); its reads check the deadline."""
    from providers.parse_deadline import ParseCancelled, call_with_deadline
    from tests.refresh.test_refresh_parse_timeout import big_sheet

    body = big_sheet("acme", 200_000, dimension=False)
    started = time.monotonic()
    with pytest.raises(ParseCancelled):
        call_with_deadline(0.5, threading.Event(), parse_sheet, body, "p.xlsx", KNOWN)
    assert time.monotonic() - started < 5


def test_a_header_of_megabytes_is_no_typo_to_look_for() -> None:
    """A tab-separated sheet named .csv: its header is one 5 MB cell (the fuzz case took 116 s
    in difflib looking for the closest column name)."""
    header = "\t".join(f"c{i}" for i in range(200_000))
    started = time.monotonic()
    with pytest.raises(InputError, match="expected a column named provider"):
        parse_sheet(f"{header}\nx\n".encode(), "tabs.csv", KNOWN)
    assert time.monotonic() - started < WIDE_LIMIT_S


def fetch_bytes(url: str, max_body_bytes: int = 2**20) -> bytes:
    import asyncio

    import httpx

    from providers.fetch import FetchPolicy, fetch_document

    policy = FetchPolicy(deadline_s=20, retries=0, max_body_bytes=max_body_bytes)

    async def go() -> bytes:
        async with httpx.AsyncClient() as client:
            return (await fetch_document(client, url, policy)).content

    return asyncio.run(go())


def test_gzip_and_deflate_bodies_are_read_and_others_refused() -> None:
    import zlib

    from comparator.errors import SourceError
    from tests.support.httpserver import Reply, fault_server

    text = b"provider,region\n" * 1000
    raw_deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    with fault_server() as server:
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)
        bodies = {
            "gzip": packer.compress(text) + packer.flush(),
            "deflate": zlib.compress(text),
            "raw-deflate": raw_deflate.compress(text) + raw_deflate.flush(),
        }
        for name, body in bodies.items():
            encoding = "gzip" if name == "gzip" else "deflate"
            url = server.set(
                f"/{name}.csv", Reply(body=body, headers={"Content-Encoding": encoding})
            )
            assert fetch_bytes(url) == text, name
        assert server.request_headers["/gzip.csv"]["accept-encoding"] == "gzip, deflate"
        url = server.set("/br.csv", Reply(body=b"\x1b\x00", headers={"Content-Encoding": "br"}))
        with pytest.raises(SourceError, match="Content-Encoding br, which was not asked for"):
            fetch_bytes(url)
        url = server.set(
            "/big.csv", Reply(body=bodies["gzip"], headers={"Content-Encoding": "gzip"})
        )
        with pytest.raises(SourceError, match="more than 4096 bytes once decompressed"):
            fetch_bytes(url, 4096)


FETCH_BOMB_IN_A_CHILD = """
import asyncio, sys, httpx
from providers.fetch import FetchPolicy, fetch_document
from comparator.errors import SourceError
async def main():
    async with httpx.AsyncClient() as client:
        policy = FetchPolicy(deadline_s=60, retries=0, max_body_bytes=int(sys.argv[2]))
        try:
            await fetch_document(client, sys.argv[1], policy)
        except SourceError as exc:
            print("refused:", exc)
asyncio.run(main())
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print("peak_rss_mb", int(hwm.split()[1]) // 1024)
"""


@pytest.mark.slow
def test_a_gzip_bomb_without_length_is_inflated_no_further_than_the_limit() -> None:
    """httpx inflates each 64 KiB read whole (64 MiB of zeros from a gzip bomb); the body is
    now inflated here, at most one byte past the limit."""
    from tests.refresh.test_fetch_safety import gzip_bomb

    bomb = gzip_bomb(2**30)
    sock = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:
        conn, _ = sock.accept()
        with conn:
            conn.recv(65536)
            head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n"
            try:
                conn.sendall(head + bomb)
            except OSError:
                return

    threading.Thread(target=answer, daemon=True).start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/bomb.csv"
    limit = 8 * 2**20  # more than one network read arrives before the limit does
    proc = subprocess.run(
        [sys.executable, "-c", FETCH_BOMB_IN_A_CHILD, url, str(limit)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    sock.close()
    assert "more than 8388608 bytes once decompressed" in proc.stdout, proc.stdout + proc.stderr
    assert int(proc.stdout.split("peak_rss_mb")[1]) < 160, proc.stdout
