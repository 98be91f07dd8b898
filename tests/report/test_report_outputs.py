"""`quote -o/--pdf` never overwrites the catalog, never leaves a truncated report, never lies."""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from comparator.errors import RenderError
from comparator.report import render
from tests.cli.test_quote_cli import JOB, TODAY


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_catalog_database_is_never_an_output(cli: Any, demo_db_url: str) -> None:
    database = Path(demo_db_url.removeprefix("sqlite:///"))
    before = digest(database)
    for flag in ("-o", "--pdf"):
        result = cli(
            "quote", str(JOB), flag, str(database), "--today", TODAY, db=demo_db_url, lang="en"
        )
        assert result.code == 1 and "is the catalog database" in result.err, result.err
    assert digest(database) == before
    listed = cli("quote", "--show", "Q-2026-000001", db=demo_db_url)
    assert listed.code == 1  # nothing was planned or saved either


def test_a_full_device_is_an_error_not_a_success(cli: Any, demo_db_url: str) -> None:
    result = cli("quote", str(JOB), "-o", "/dev/full", "--today", TODAY, db=demo_db_url, lang="en")
    assert result.code == 1
    assert "/dev/full: cannot write the report" in result.err and "Traceback" not in result.err


def test_a_failed_write_leaves_the_old_report_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = tmp_path / "quote.html"
    report.write_text("<p>the old report</p>", encoding="utf-8")

    def disk_full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(render.os, "fsync", disk_full)
    with pytest.raises(RenderError, match="no space left on the disk"):
        render._write(report, b"<p>a new report</p>" * 1000)
    assert report.read_text(encoding="utf-8") == "<p>the old report</p>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quote.html"]  # no temporary left
    monkeypatch.undo()
    render._write(report, b"<p>new</p>")
    assert report.read_bytes() == b"<p>new</p>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quote.html"]


def test_the_same_file_for_html_and_pdf_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RenderError, match="both -o and --pdf"):
        render.check_outputs([tmp_path / "q", tmp_path / "q"], [])
    with pytest.raises(RenderError, match="is a folder"):
        render.check_outputs([tmp_path], [])
