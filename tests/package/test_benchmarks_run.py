"""The benchmarks still run against the current schema (they write to the catalog's tables
by hand: a migration that adds a column once broke `import_offers.py`'s baseline)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_import_benchmark_runs_on_a_small_sheet() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/import_offers.py", "--rows", "2000"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "baseline read_csv+executemany" in done.stdout
    assert "of 2000 offers" in done.stdout


@pytest.mark.slow
def test_the_growth_benchmark_compares_two_catalogs(tmp_path: Path) -> None:
    """Two quotes a round on copies of two small catalogs, with the growth printed."""
    from comparator.catalog.db import make_engine, upgrade_schema
    from comparator.config import load_settings
    from comparator.refresh.importer import load_demo

    for name in ("small", "large"):
        engine = make_engine(f"sqlite:///{tmp_path / name}.db")
        upgrade_schema(engine)
        load_demo(engine, timezone=load_settings({}).timezone)
        engine.dispose()
    done = subprocess.run(
        [
            sys.executable,
            "benchmarks/growth.py",
            str(tmp_path / "small.db"),
            str(tmp_path / "large.db"),
            "--rounds",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "growth by medians" in done.stdout
