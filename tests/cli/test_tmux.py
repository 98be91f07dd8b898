"""The README's commands in a real terminal: tmux at 80 and 120 columns, no value ever cut.

tests/cli/test_cli_widths.py sets ``COLUMNS``; here each command runs on a pseudo-terminal of a
private tmux server (its own socket, no user configuration), so the width is the one rich reads
from the terminal itself, progress runs on stderr as a user sees it, and the captured screen
(scrollback included, wrapped lines joined) is what a person would read. Skipped when tmux is
absent unless ``SUANLI_REQUIRE_TMUX=1`` (CI).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

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
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_readme_commands_in_tmux_cut_no_value(
    tmp_path: Path, demo_db_url: str, width: int, lang: str
) -> None:
    screen = _in_tmux(tmp_path, _script(demo_db_url, lang), width)
    body = screen.split(f"\n{DONE}", 1)[0]
    exits = [line for line in body.splitlines() if line.startswith("== exit ")]
    assert len(exits) == len(COMMANDS), body[-3000:]
    assert all(line in ("== exit 0", "== exit 1") for line in exits), exits
    assert "Traceback" not in body
    assert ("演示" if lang == "zh" else "Demo") in body  # the demo providers' tables are there
    assert_whole(body, width)


def _offers_script(db_url: str, lang: str) -> str:
    command = [sys.executable, "-m", "comparator", "--db", db_url, "--lang", lang, "offers"]
    return f"cd {shlex.quote(str(REPO))}\n{shlex.join(command)}\necho {DONE}\n"


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_offers_at_80_columns_is_a_table_with_every_value_whole(
    tmp_path: Path, demo_db_url: str, cli: Any, lang: str
) -> None:
    """The demo catalog's offers at 80 columns: one table row per offer (not stacked records),
    long time-of-use rules as keys with a legend below, and every id, price and rule whole."""
    rows = cli("offers", "--json", db=demo_db_url).json()["offers"][:30]
    screen = _in_tmux(tmp_path, _offers_script(demo_db_url, lang), 80)
    body = screen.split(f"\n{DONE}", 1)[0]
    assert_whole(body, 80)
    assert "─ ID" not in body  # a table, not stacked records
    lines = body.splitlines()
    table_rows = [line for line in lines if re.match(r"^\d+ +demo-", line)]
    assert [line.split()[0] for line in table_rows] == [str(r["offer_id"]) for r in rows]
    legend = dict(
        line.split(None, 1) for line in lines if re.match(r"^T\d+  \S", line)
    )  # "T1  00:00-08:00*0.7"
    for row, line in zip(rows, table_rows, strict=True):
        assert f"¥{Decimal(row['card_hour_price_quote']):,.2f}" in line
        if row["time_of_use"]:
            key = re.search(r" (T\d+) ", line)
            assert key is not None, line
            assert legend[key.group(1)].strip() == row["time_of_use"]
