"""``--help`` as the tools our users know print it: our own renderer, in the --lang language.

No Python type in place of a metavar, ``用法:`` under zh, lines that fit the terminal, text
reflowed (no hard break from the source, no closing mark at a line start), examples that name
files that exist, ``suanli help [COMMAND]``, and no private name of typer or rich.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
import typer.main
from rich.cells import cell_len

from comparator.cli import app
from comparator.cli.helptext import paragraphs, wrap
from tests.conftest import REPO

ROOT = typer.main.get_command(app)
COMMANDS = [
    (name,)
    for name in ROOT.commands  # type: ignore[attr-defined]
] + [("report", "market")]
PYTHON_TYPES = re.compile(r"<(?:bool|str|int|float|path|list|text)\b|\[x[<>]=|int range")
CLOSING_AT_START = re.compile(r"^\s*[。，、；：）」』》]")


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_help_reads_like_a_unix_tool(
    cli: Any, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...], lang: str
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = cli(*command, "--help", lang=lang)
    assert result.code == 0, result.err
    out = result.out
    assert out.startswith("用法: suanli " if lang == "zh" else "Usage: suanli ")
    assert not PYTHON_TYPES.search(out), out
    assert not re.search(r"\S…$", out, re.M)  # nothing cut short at a line end
    for line in out.splitlines():
        assert cell_len(line) <= 80, line
        assert line == line.rstrip(), repr(line)
        assert not CLOSING_AT_START.match(line), line
    if lang == "zh":
        assert "Usage:" not in out and "Options:" not in out


def test_metavars_say_what_is_expected(cli: Any) -> None:
    out = cli("offers", "--help", lang="en").out
    assert "--limit 1.." in out and "--compliant-for JOB.toml" in out
    assert "--json " in out and "--json <" not in out  # a flag takes no value
    assert "Usage: suanli import [OPTIONS] [FILES...]" in cli("import", "--help", lang="en").out
    assert "--lang zh|en" in cli("--help", lang="en").out


def test_source_line_breaks_are_not_kept() -> None:
    text = "A sheet is the provider's whole\nprice list: one that would remove.\n\nExample:  x"
    assert paragraphs(text) == [
        "A sheet is the provider's whole price list: one that would remove.",
        "Example:  x",
    ]
    assert paragraphs("价格表即服务商的\n完整报价。") == ["价格表即服务商的完整报价。"]


def test_wrapping_is_greedy_and_keeps_closing_marks() -> None:
    text = "只列出符合该任务文件要求的报价。卡型，任意别名（A100-80G、4090、910B…）。" * 3
    lines = wrap(text, 30)
    assert "".join(lines) == text
    assert all(cell_len(line) <= 30 for line in lines)
    assert not any(CLOSING_AT_START.match(line) for line in lines)
    for line, following in itertools.pairwise(lines):
        assert cell_len(line) + cell_len(following[0]) > 30 - 2  # the next piece did not fit
    english = wrap("Import a sheet even if it removes offers from the current snapshot.", 20)
    assert english == [
        "Import a sheet even",
        "if it removes offers",
        "from the current",
        "snapshot.",
    ]


def test_examples_name_files_that_exist(cli: Any) -> None:
    for command in COMMANDS:
        out = cli(*command, "--help", lang="en").out
        for path in re.findall(r"\bexamples/[\w./-]*\w", out):
            assert (REPO / path).exists(), (command, path)
    assert "examples/lora-7b-guangdong.toml" in cli("check", "--help", lang="en").out


def test_help_command_and_bare_suanli(cli: Any) -> None:
    bare = cli(lang="en")
    assert bare.code == 0 and bare.out.startswith("Usage: suanli [OPTIONS] COMMAND")
    assert cli("help", lang="en").out == bare.out
    assert cli("help", "offers", lang="zh").out == cli("offers", "--help", lang="zh").out
    market = cli("help", "report", "market", lang="en")
    assert market.code == 0 and market.out.startswith("Usage: suanli report market")
    unknown = cli("help", "nosuch", lang="en")
    assert unknown.code == 2 and unknown.err.startswith("error: unknown command nosuch")


def test_no_private_name_of_typer_or_rich_is_used() -> None:
    """Typer and rich only through their public API (issue #22): no `_private` attribute or
    module of either, no patched module globals of typer.rich_utils."""
    private = re.compile(
        r"\b(?:typer|rich|click)(?:\.\w+)*\._\w+|_make_rich_text|rich_utils"
        r"|from (?:typer|rich)(?:\.\w+)*\._|from (?:typer|rich)\S* import _"
    )
    found = []
    for path in sorted((REPO / "comparator").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if private.search(line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == []
