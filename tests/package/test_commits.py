"""Commit subjects read whole in `git log --oneline` and on a forge: at most 72 characters,
from the 0.2.0 cycle on (the details go in the body)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.conftest import REPO

# the last commit before the rule: older subjects are history and stay as they were
RULE_SINCE = "105f30b02e89d68ccc562516e07b33b7f4bdc165"
MAX_SUBJECT = 72


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False
    )


def test_commit_subjects_fit_72_characters() -> None:
    if shutil.which("git") is None or _git("cat-file", "-e", RULE_SINCE).returncode != 0:
        pytest.skip("no git history here (an sdist or a shallow clone)")
    log = _git("log", "--no-merges", "--format=%h %s", f"{RULE_SINCE}..HEAD")
    assert log.returncode == 0, log.stderr
    long = [line for line in log.stdout.splitlines() if len(line.split(" ", 1)[1]) > MAX_SUBJECT]
    assert long == []
