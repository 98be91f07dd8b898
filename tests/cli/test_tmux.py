"""The README's commands in a real terminal: tmux at 80 and 120 columns, no value ever cut.

tests/cli/test_cli_widths.py sets ``COLUMNS``; here each command runs on a pseudo-terminal of a
private tmux server (its own socket, no user configuration), so the width is the one rich reads
from the terminal itself, progress runs on stderr as a user sees it, and the captured screen
(scrollback included, wrapped lines joined) is what a person would read. Skipped when tmux is
absent unless ``SUANLI_REQUIRE_TMUX=1`` (CI).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_cli_widths import COMMANDS, assert_whole
from tests.conftest import REPO, skip_unless_installed

pytestmark = [
    pytest.mark.terminal,
    skip_unless_installed(bool(shutil.which("tmux")), "tmux", "SUANLI_REQUIRE_TMUX"),
]

DONE = "__suanli_done__"


def _script(db_url: str, lang: str) -> str:
    lines = [f"cd {shlex.quote(str(REPO))}"]
    for args in COMMANDS:
        command = [sys.executable, "-m", "comparator", "--db", db_url, "--lang", lang, *args]
        lines.append(f'{shlex.join(command)}; echo "== exit $?"')
    lines.append(f"echo {DONE}")
    return "\n".join(lines) + "\n"


def _in_tmux(tmp_path: Path, script: str, width: int) -> str:
    socket, conf = tmp_path / "tmux.sock", tmp_path / "tmux.conf"
    conf.write_text("set -g history-limit 200000\nset -g status off\n", encoding="utf-8")
    (tmp_path / "run.sh").write_text(script, encoding="utf-8")
    tmux = ["tmux", "-S", str(socket), "-f", str(conf)]
    env = "env -u COLUMNS -u LINES TERM=xterm-256color LANG=C.UTF-8"
    shell = f"{env} bash {shlex.quote(str(tmp_path / 'run.sh'))}; sleep 600"
    subprocess.run([*tmux, "new-session", "-d", "-x", str(width), "-y", "50", shell], check=True)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p", "-J", "-S", "-", "-E", "-"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            if f"\n{DONE}" in screen:
                width_seen = subprocess.run(
                    [*tmux, "display-message", "-p", "#{pane_width}"],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.strip()
                assert width_seen == str(width)
                return screen
            time.sleep(0.5)
        raise AssertionError(f"the commands did not finish in tmux:\n{screen[-2000:]}")
    finally:
        subprocess.run([*tmux, "kill-server"], check=False, capture_output=True)


@pytest.mark.slow
@pytest.mark.parametrize("width", [80, 120])
def test_readme_commands_in_tmux_cut_no_value(tmp_path: Path, demo_db_url: str, width: int) -> None:
    screen = _in_tmux(tmp_path, _script(demo_db_url, "zh"), width)
    body = screen.split(f"\n{DONE}", 1)[0]
    exits = [line for line in body.splitlines() if line.startswith("== exit ")]
    assert len(exits) == len(COMMANDS), body[-3000:]
    assert all(line in ("== exit 0", "== exit 1") for line in exits), exits
    assert "Traceback" not in body and "演示" in body  # the demo providers' tables are there
    assert_whole(body, width)
