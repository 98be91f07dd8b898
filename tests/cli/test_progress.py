"""Progress on the steps that take over a second, where a person watches: on a terminal's
stderr, never under ``--json`` or into a pipe.

Each command runs with its stderr on a pseudo-terminal (``os.openpty``), so rich sees a real
terminal; the spinner's or bar's text must pass through it. stdout stays a pipe and carries
the command's output alone.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA, REPO, needs_pdf

SMI = str(DATA / "nvidia-smi" / "rtx4090-x8.xml")
LORA = str(REPO / "examples" / "lora-7b-guangdong.toml")


def _with_terminal_stderr(db_url: str, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, what reached the terminal) of one command."""
    leader, follower = os.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "comparator", "--db", db_url, *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=follower,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    os.close(follower)
    seen = bytearray()
    while True:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    out = proc.stdout.read().decode() if proc.stdout else ""
    code = proc.wait(timeout=120)
    os.close(leader)
    return code, out, seen.decode("utf-8", "replace")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("plan", LORA), "Planning"),
        (("quote", LORA, "-o", "{tmp}/q.html"), "Planning and saving the quote"),
        pytest.param(
            ("quote", "--show", "Q-2026-000001", "--pdf", "{tmp}/q.pdf"),
            "Rendering the report",
            marks=needs_pdf,
        ),
        (("import", str(REPO / "providers" / "demo" / "demo-nanshan.csv")), "Importing"),
        (("verify", "--nvidia-smi-xml", SMI), "Reading this machine"),
        (("refresh", "--config", "{tmp}/sources.toml"), "refreshing"),
    ],
    ids=["plan", "quote", "pdf", "import", "verify", "refresh"],
)
def test_slow_steps_show_progress_on_a_terminal_and_never_under_json(
    demo_db_url: str, tmp_path: Path, args: tuple[str, ...], words: str
) -> None:
    args = tuple(a.replace("{tmp}", str(tmp_path)) for a in args)
    sheet = REPO / "providers" / "demo" / "demo-nanshan.csv"
    (tmp_path / "sources.toml").write_text(
        f'[[source]]\nprovider = "demo-nanshan"\nadapter = "sheet"\npath = "{sheet}"\n',
        encoding="utf-8",
    )
    if args[:2] == ("quote", "--show"):
        made = _with_terminal_stderr(demo_db_url, "--lang", "en", "quote", LORA)
        assert made[0] == 0, made
    code, out, terminal = _with_terminal_stderr(demo_db_url, "--lang", "en", *args)
    assert code in (0, 3), terminal
    assert words in terminal, terminal
    assert words not in out
    code, out, terminal = _with_terminal_stderr(demo_db_url, "--lang", "en", *args, "--json")
    assert code in (0, 3), terminal
    assert words not in terminal and out.lstrip().startswith("{")
