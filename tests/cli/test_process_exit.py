"""The console script leaves at once when the command is done (no interpreter teardown), with
its output flushed, its exit code kept and its database connections closed properly."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from comparator import cli

REPO = Path(__file__).parents[2]


def suanli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "comparator", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_a_quote_ends_with_its_output_whole_and_the_catalog_closed(
    demo_db_url: str, tmp_path: Path
) -> None:
    html = tmp_path / "quote.html"
    job = str(REPO / "examples" / "lora-7b-guangdong.toml")
    done = suanli(
        "--db", demo_db_url, "quote", job, "--today", "2026-12-01", "--json", "-o", str(html)
    )
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)  # every byte of the JSON flushed
    assert printed["quote"] == "Q-2026-000001" and printed["total_cost"]
    assert html.read_text(encoding="utf-8").rstrip().endswith("</html>")
    database = Path(demo_db_url.removeprefix("sqlite:///"))
    # the connection was closed: SQLite checkpointed and removed its write-ahead log
    assert not Path(f"{database}-wal").exists()
    again = suanli("--db", demo_db_url, "quote", "--show", "Q-2026-000001", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["plan"] == printed["plan"]


def test_an_error_keeps_its_exit_code_and_message(tmp_path: Path) -> None:
    done = suanli("--db", f"sqlite:///{tmp_path / 'none.db'}", "--lang", "en", "offers")
    assert done.returncode == 1
    assert done.stderr.startswith("error: no catalog database at") and done.stdout == ""


def test_the_process_waits_for_other_threads() -> None:
    """Another thread still running (or a child process) means the ordinary exit."""
    assert cli._alone()
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not cli._alone()
    finally:
        release.set()
        other.join()
    assert cli._alone()


def test_a_profiled_run_still_writes_its_profile(tmp_path: Path) -> None:
    """`python -m cProfile -o FILE -m comparator …` writes FILE at exit: the ordinary exit."""
    profile = tmp_path / "suanli.prof"
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "comparator", "--version"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert profile.stat().st_size > 0
