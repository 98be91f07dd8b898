"""The wheel ships what a fresh install needs: templates, the demo catalog, the migrations."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import comparator
from tests.conftest import REPO

JOB = REPO / "examples" / "lora-7b-guangdong.toml"


def test_wheel_contents(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    [wheel] = tmp_path.glob("suanli-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = {p.name for p in (REPO / "templates").iterdir() if p.is_file()}
    assert templates and {f"comparator/_templates/{t}" for t in templates} <= names
    demo = {p.name for p in (REPO / "providers" / "demo").iterdir()}
    assert {f"providers/demo/{d}" for d in demo} <= names
    assert any(n.startswith("comparator/catalog/migrations/versions/0001") for n in names)
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "Requires-Python: >=3.11" in text
    for extra in ("pdf", "postgres", "xlsx", "test"):
        assert f"Provides-Extra: {extra}" in text
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "suanli = comparator.cli:run" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_public_api_is_what_we_meant() -> None:
    assert sorted(comparator.__all__) == sorted(
        [
            "GPUS",
            "GpuSpec",
            "SuanliError",
            "__version__",
            "resolve_gpu",
            "EstimateRequest",
            "estimate",
            "load_job",
            "load_profile",
            "evaluate_offers",
            "check_providers",
            "plan_job",
            "plan_jobs",
            "OfferList",
            "CatalogGroups",
            "plan_job_file",
            "make_engine",
            "upgrade_schema",
            "current_offers",
            "import_files",
            "run_refresh",
            "make_quote",
        ]
    )
    for name in comparator.__all__:
        assert getattr(comparator, name) is not None


def test_python_dash_m_runs_the_cli() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "comparator", "--help"], cwd=REPO, capture_output=True, text=True
    )
    assert proc.returncode == 0 and "suanli" in proc.stdout


HEAVY_FOR_HELP = (
    "pandas",
    "sqlalchemy",
    "sqlmodel",
    "highspy",
    "weasyprint",
    "numpy",
    "holidays",
    "importlib.metadata",
    "comparator.domain.calendar",
    "comparator.compliance.engine",
    "comparator.estimate.estimator",
    "comparator.verify",
)


def test_help_loads_no_database_or_dataframe_stack() -> None:
    """`suanli --help` stays instant: commands import pandas/SQLAlchemy, the estimator, the
    compliance rules and the calendar only when they run (benchmarks/cold_start.py)."""
    code = (
        "import sys; from comparator.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"heavy = sorted(m for m in {HEAVY_FOR_HELP!r} if m in sys.modules)\n"
        "print('HEAVY=' + ','.join(heavy))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "HEAVY="


# what `offers` must not load: the migrations, the planner and its arrays, the job model (only
# --compliant-for reads a job file), the calendar, the report's templates
HEAVY_FOR_OFFERS = (
    "alembic",
    "numpy",
    "jinja2",
    "comparator.plan",
    "comparator.domain.job",
    "comparator.domain.job_model",
    "comparator.domain.calendar",
    "comparator.estimate.estimator",
)


def loaded_heavy(argv: list[str], heavy: tuple[str, ...]) -> list[str]:
    """The modules of ``heavy`` that `suanli ARGV` imported (run in a fresh interpreter)."""
    code = (
        "import sys; from comparator.cli import main\n"
        f"try:\n    main({argv!r})\n"
        "except SystemExit:\n    pass\n"
        f"print('HEAVY=' + ','.join(sorted(m for m in {heavy!r} if m in sys.modules)))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return [m for m in proc.stdout.strip().splitlines()[-1][len("HEAVY=") :].split(",") if m]


@pytest.mark.parametrize("json_out", [False, True], ids=["table", "json"])
def test_offers_on_an_existing_catalog_imports_no_migration_machinery(
    demo_db_url: str, json_out: bool
) -> None:
    """`suanli offers` reads a catalog whose schema is current: Alembic never loads, nor the
    planner, the job model or Jinja (docs/commands-at-scale.md, fixed costs)."""
    argv = ["--db", demo_db_url, "offers", *(["--json"] if json_out else [])]
    assert loaded_heavy(argv, HEAVY_FOR_OFFERS) == []


@pytest.mark.slow
def test_showing_a_stored_quote_loads_no_planner(demo_db_url: str, tmp_path: Path) -> None:
    """`suanli quote --show N` renders the stored document: the planner never loads."""
    made = subprocess.run(
        [sys.executable, "-m", "comparator", "--db", demo_db_url, "quote", str(JOB), "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    number = json.loads(made.stdout)["quote"]
    argv = ["--db", demo_db_url, "quote", "--show", number, "-o", str(tmp_path / "q.html")]
    heavy = ("numpy", "comparator.plan", "comparator.quote.document", "comparator.domain.job")
    assert loaded_heavy(argv, heavy) == []
    assert (tmp_path / "q.html").read_text(encoding="utf-8").count(number) >= 1


def test_a_quote_loads_neither_the_profile_models_nor_the_shared_planner(
    demo_db_url: str, tmp_path: Path
) -> None:
    """The catalog's profiles are read from their records: a quote (and `offers
    --compliant-for`) builds no pydantic model of the profile file; only a document without a
    current record is parsed with them. The planner of several jobs together (the job-order
    search, HiGHS) loads only for them (docs/commands-at-scale.md, fourth round)."""
    heavy = ("comparator.domain.profile_model", "comparator.plan.joint")
    argv = ["--db", demo_db_url, "quote", str(JOB), "--json", "-o", str(tmp_path / "q.html")]
    assert loaded_heavy(argv, heavy) == []
    argv = ["--db", demo_db_url, "offers", "--compliant-for", str(JOB)]
    assert loaded_heavy(argv, heavy) == []


@pytest.mark.parametrize("package", ["domain", "estimate", "compliance", "services"])
def test_names_loaded_on_first_use_are_exactly_the_public_ones(package: str) -> None:
    """A lazy package's ``_HOME`` names every name of ``__all__`` once, each where it lives (a
    name added to one list and not the other fails here, not at a user's first import)."""
    import importlib

    module = importlib.import_module(f"comparator.{package}")
    homed = [name for names in module._HOME.values() for name in names]
    assert sorted(homed) == sorted(module.__all__)
    for home, names in module._HOME.items():
        source = importlib.import_module(f"comparator.{package}.{home}")
        assert all(getattr(module, n) is getattr(source, n) for n in names), home
