"""The README documents every setting and command; every command's help has an example."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer.main

from comparator.cli import app
from comparator.config import SETTINGS
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.env)
def test_readme_documents_setting(setting) -> None:
    assert setting.env in README


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_documents_command(command: str) -> None:
    assert re.search(rf"suanli {command}\b", README), f"README never shows `suanli {command}`"


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_an_example(cli, command: str) -> None:
    result = cli(command, "--help", lang="en")
    assert result.code == 0
    assert "Example:" in result.out
    assert "示例：" in cli(command, "--help").out  # the default, --lang zh


def test_readme_opens_with_the_two_commands() -> None:
    first_blocks = re.findall(r"```(?:bash|sh)?\n(.*?)```", README, re.S)[:2]
    assert len(first_blocks) == 2
    assert "suanli" in first_blocks[0] and "scripts/test" in first_blocks[1]


def test_changelog_follows_keep_a_changelog() -> None:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in text and "keepachangelog.com" in text


def test_the_readme_quote_works_after_the_examples_window(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The first command's quote is planned as of its `--today`, so it still works when the
    example's December 2026 window lies in the past (here: judged from mid-2027)."""
    command = re.findall(r"```(?:bash|sh)?\n(.*?)```", README, re.S)[0]
    quote = command.split(".venv/bin/suanli quote ", 1)[1].split()
    assert "--today" in quote
    monkeypatch.setenv("SUANLI_TODAY", "2027-06-01")
    assert cli("init").code == 0
    args = [str(tmp_path / a) if a.endswith(".html") else a for a in quote]
    result = cli("quote", *args, lang="en")
    assert result.code == 0, result.err
    assert (tmp_path / "quote.html").stat().st_size > 0
    past = cli("plan", "examples/lora-7b-guangdong.toml", lang="en")
    assert past.code == 1 and "schedule.deadline" in past.err
