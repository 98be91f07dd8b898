"""The benchmarks still run against the current schema (they write to the catalog's tables
by hand: a migration that adds a column once broke `import_offers.py`'s baseline)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.config import load_settings
from comparator.refresh.importer import load_demo

ROOT = Path(__file__).resolve().parents[2]


def _benchmark(*args: str) -> str:
    """The standard output of ``benchmarks/ARGS…``, which must exit 0."""
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.slow
def test_the_import_benchmark_runs_on_a_small_sheet() -> None:
    printed = _benchmark("benchmarks/import_offers.py", "--rows", "2000")
    assert "baseline read_csv+executemany" in printed
    assert "of 2000 offers" in printed


@pytest.mark.slow
def test_the_growth_benchmark_compares_two_catalogs(tmp_path: Path) -> None:
    """One round of quotes on copies of two demo catalogs, with the growth printed."""
    for name in ("small", "large"):
        engine = make_engine(f"sqlite:///{tmp_path / name}.db")
        upgrade_schema(engine)
        load_demo(engine, timezone=load_settings({}).timezone)
        engine.dispose()
    small, large = str(tmp_path / "small.db"), str(tmp_path / "large.db")
    printed = _benchmark("benchmarks/growth.py", small, large, "--rounds", "1")
    assert "growth by medians" in printed


def test_the_training_step_benchmark_explains_itself_without_pytorch() -> None:
    """`train_step.py` imports PyTorch only to measure: `--help` works on any machine, and the
    GPU machine's driver script is valid shell."""
    printed = _benchmark("benchmarks/train_step.py", "--help")
    assert "--micro-batch" in printed and "--grad-ckpt" in printed
    syntax = subprocess.run(["bash", "-n", str(ROOT / "benchmarks" / "gpu_machine.sh")])
    assert syntax.returncode == 0
