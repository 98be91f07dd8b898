"""A parse that runs past ``parse_timeout_s`` is stopped, not abandoned: the refresh fails the
source at the limit, the parse thread unwinds at its next check (its rows freed), and the
process exits soon after — not minutes later at gigabytes, as when the thread parsed on.

The slow case is the one the issue measured: a 500,000-row XLSX over loopback HTTP with
``parse_timeout_s = 10``; `refresh` must exit within 30 s and under 500 MB peak RSS (run in a
child process that reports its own peak). openpyxl reads such a sheet for minutes on a
shared 2-core machine, so the limit is what ends it.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from comparator.errors import SourceError
from providers.base import SourceSpec
from providers.fetch import FetchPolicy
from providers.parse_deadline import ROWS_PER_CHECK, ParseCancelled, check_parse_deadline
from providers.sheet.adapter import SheetAdapter
from tests.support.httpserver import Reply, fault_server
from tests.support.refresh_helpers import profile_toml, source_entry, write_sources
from tests.support.xlsx_writer import xlsx_bytes

REPO = Path(__file__).resolve().parents[2]
HEADER = ["provider", "region", "gpu", "cards", "billing", "price", "currency", "stock"]
REFRESH_IN_A_CHILD = """
import json, sys, time
from comparator.cli import main
started = time.monotonic()
code = main(sys.argv[1:])
# VmHWM is this process's own peak (ru_maxrss keeps the forking parent's across exec)
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"code": code, "wall_s": time.monotonic() - started,
    "peak_rss_mb": int(hwm.split()[1]) / 1024}))
"""


def big_sheet(provider: str, rows: int, dimension: bool = True) -> bytes:
    def lines() -> Iterator[list[str | float]]:
        yield list(HEADER)
        for i in range(rows):
            yield [provider, "sg-1", "H100", 1 + i % 8, "hourly", 2 + i % 97, "USD", i % 50]

    return xlsx_bytes(lines(), dimension=f"A1:H{rows + 1}" if dimension else "")


class _Slow(SheetAdapter):
    """The sheet adapter with a parse that checks its deadline as the readers do, forever."""

    checks = 0
    stopped = threading.Event()

    def parse(self, content: bytes, known: object) -> object:  # type: ignore[override]
        try:
            while True:
                time.sleep(0.001)
                type(self).checks += 1
                check_parse_deadline()
        except ParseCancelled:
            type(self).stopped.set()
            raise


def test_a_parse_past_its_limit_is_stopped_and_the_source_fails(tmp_path: Path) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text(profile_toml("slowco"), encoding="utf-8")
    source = SourceSpec(
        "slowco",
        "sheet",
        str(tmp_path / "prices.csv"),
        profile=str(profile),
        policy=FetchPolicy(parse_timeout_s=0.5),
    )
    (tmp_path / "prices.csv").write_text("provider,region,gpu,billing,price\n", encoding="utf-8")

    async def go() -> None:
        async with httpx.AsyncClient() as client:
            await _Slow(source, client).fetch()

    started = time.monotonic()
    with pytest.raises(SourceError, match=r"parse_timeout_s = 0\.5"):
        asyncio.run(go())
    assert _Slow.stopped.is_set()  # the thread unwound before the source failed
    assert time.monotonic() - started < 5 and _Slow.checks > 10


def test_checks_do_nothing_outside_a_limited_parse() -> None:
    check_parse_deadline()  # suanli import: no limit
    assert ROWS_PER_CHECK <= 10_000


@pytest.mark.slow
def test_a_500k_row_xlsx_over_http_stops_at_parse_timeout(tmp_path: Path) -> None:
    body = big_sheet("bigxlsx", 500_000)
    (tmp_path / "bigxlsx.toml").write_text(profile_toml("bigxlsx"), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'catalog.db'}"
    with fault_server() as server:
        url = server.set("/prices.xlsx", Reply(body=body))
        entry = source_entry("bigxlsx", url, profile="bigxlsx.toml", parse_timeout_s=10)
        config = write_sources(tmp_path, [entry])
        init = subprocess.run(
            [sys.executable, "-m", "comparator", "--db", db, "init", "--no-demo"],
            cwd=REPO,
            capture_output=True,
            timeout=120,
        )
        assert init.returncode == 0, init.stderr
        args = ["--db", db, "--lang", "en", "refresh", "--config", str(config), "--json"]
        proc = subprocess.run(
            [sys.executable, "-c", REFRESH_IN_A_CHILD, *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
        )
    *report, figures = proc.stdout.strip().splitlines()
    measured = json.loads(figures)
    document = json.loads("\n".join(report))
    [run] = document["runs"]
    assert run["status"] == "failed" and "parse_timeout_s = 10" in str(run), run
    assert measured["code"] == 1
    assert measured["wall_s"] < 30, measured
    assert measured["peak_rss_mb"] < 500, measured
    print("500k-row XLSX refresh:", measured)
