"""Headless Chromium for the tests of HTML pages: the binary, a run with a throwaway profile,
and the console lines a page logged."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import skip_unless_installed

CHROMIUM = Path("/usr/bin/chromium")

# every test that drives the browser: skipped where Chromium is missing, required in CI
needs_chromium = [
    pytest.mark.browser,
    skip_unless_installed(CHROMIUM.exists(), "chromium", "SUANLI_REQUIRE_CHROMIUM"),
]


def chromium(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def console_messages(stderr: str) -> list[str]:
    """Lines Chromium logs for the page's console (errors, CSP and JavaScript problems)."""
    return [
        line
        for line in stderr.splitlines()
        if "CONSOLE" in line or "Uncaught" in line or "Refused to" in line
    ]
