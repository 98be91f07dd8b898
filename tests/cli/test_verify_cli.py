"""`suanli verify` end to end: saved files, a real `nvidia-smi` binary on PATH, the demo catalog."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert

from comparator.catalog.db import make_engine
from comparator.cli import main as cli_main
from comparator.services.verification import QUOTE, verifications_of_quote
from tests.conftest import DATA
from tests.verify.test_verify_nvsmi import fake_nvidia_smi

SMI = DATA / "nvidia-smi"
HEALTHY = [
    "--nvidia-smi-xml",
    str(SMI / "a100-sxm4-80gb-x8.xml"),
    "--topo",
    str(SMI / "a100-sxm4-80gb-x8.topo.txt"),
]
SHARED = [
    "--nvidia-smi-xml",
    str(SMI / "a100-sxm4-80gb-x8-shared.xml"),
    "--topo",
    str(SMI / "a100-sxm4-80gb-x8.topo.txt"),
]
RTX4090 = [
    "--nvidia-smi-xml",
    str(SMI / "rtx4090-x8.xml"),
    "--topo",
    str(SMI / "rtx4090-x8.topo.txt"),
]


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo catalog, made once per module by `suanli init`."""
    path = tmp_path_factory.mktemp("verify-demo") / "demo.db"
    assert cli_main(["--db", f"sqlite:///{path}", "init", "--json"]) == 0
    return path


@pytest.fixture
def demo_db(demo_template: Path, tmp_path: Path) -> str:
    """A private copy of the demo catalog (SQLite's backup API copies WAL content too)."""
    target = tmp_path / "demo.db"
    with sqlite3.connect(demo_template) as source, sqlite3.connect(target) as copy:
        source.backup(copy)
    return f"sqlite:///{target}"


@pytest.fixture
def no_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Measurements behave as on this CPU-only machine even where torch is installed."""
    monkeypatch.setitem(sys.modules, "torch", None)


def a100_offer_id(cli: Any, db: str) -> str:
    """An 8-card A100-SXM4-80GB NVLink offer of the demo catalog."""
    offers = cli("offers", "--gpu", "A100-SXM4-80GB", "--limit", "100", "--json", db=db).json()[
        "offers"
    ]
    return next(o["offer_id"] for o in offers if o["cards"] == 8 and o["interconnect"] == "nvlink")


def test_json_is_one_document_and_exit_is_zero_whatever_the_verdict(cli: Any) -> None:
    result = cli("verify", *SHARED, "--json")
    assert result.code == 0, result.err
    doc = json.loads(result.out)  # nothing else on stdout
    assert doc["status"] == "fail"
    assert doc["stored"] is None
    assert {c["id"]: c["status"] for c in doc["checks"]}["memory_in_use"] == "fail"
    assert doc["measurements"]["reason"] == "skip_not_requested"


@pytest.mark.slow
def test_strict_exits_3_on_fail_only(cli: Any) -> None:
    assert cli("verify", *SHARED, "--strict", "--json").code == 3
    assert cli("verify", *HEALTHY, "--strict", "--json").code == 0


@pytest.mark.parametrize(
    ("lang", "words"),
    [("zh", ["结论：", "不通过", "显存占用"]), ("en", ["Verdict: ", "fail", "Memory in use"])],
)
def test_human_report(cli: Any, lang: str, words: list[str]) -> None:
    result = cli("verify", *SHARED, lang=lang)
    assert result.code == 0, result.err
    for word in words:
        assert word in result.out


@pytest.mark.slow
def test_against_a_demo_offer(cli: Any, demo_db: str) -> None:
    offer_id = a100_offer_id(cli, demo_db)
    good = cli("verify", *HEALTHY, "--offer", offer_id, "--json", db=demo_db).json()
    assert good["status"] == "pass"
    assert good["offer_id"] == offer_id
    assert good["expected"] == {"gpu": "A100-SXM4-80GB", "cards": 8, "nvlink": True}
    bad = cli("verify", *RTX4090, "--offer", offer_id, "--json", db=demo_db).json()
    assert bad["status"] == "fail"
    failing = {c["id"] for c in bad["checks"] if c["status"] == "fail"}
    assert failing == {"gpu_model", "memory_total", "nvlink"}


def test_unknown_offer_is_one_clear_error(cli: Any, demo_db: str) -> None:
    result = cli("verify", *HEALTHY, "--offer", "999999", db=demo_db, lang="en")
    assert result.code == 1
    assert "--offer 999999: no such offer" in result.err
    assert result.out == ""


@pytest.mark.slow
def test_quote_stores_the_verdict(cli: Any, demo_db: str) -> None:
    engine = make_engine(demo_db)
    with engine.begin() as conn:
        conn.execute(
            insert(QUOTE).values(
                number="Q-2026-000042",
                created_at=datetime(2026, 11, 29, 3, tzinfo=UTC),
                job_name="pretrain",
                input_sha256="0" * 64,
                document_json="{}",
            )
        )
    offer_id = a100_offer_id(cli, demo_db)
    result = cli(
        "verify", *SHARED, "--offer", offer_id, "--quote", "Q-2026-000042", "--json", db=demo_db
    )
    assert result.code == 0, result.err
    stored = result.json()["stored"]
    assert stored["quote_number"] == "Q-2026-000042"
    [row] = verifications_of_quote(engine, "Q-2026-000042")
    assert (row.id, row.offer_id, row.status) == (stored["verification_id"], offer_id, "fail")
    assert row.created_at.tzinfo is not None
    assert row.result["gpus"][3]["memory_used_mib"] == 20484
    human = cli("verify", *HEALTHY, "--quote", "Q-2026-000042", db=demo_db, lang="en")
    assert "Attached to quote Q-2026-000042" in human.out
    assert [r.status for r in verifications_of_quote(engine, "Q-2026-000042")] == ["fail", "pass"]
    engine.dispose()


def test_unknown_quote_stores_nothing(cli: Any, demo_db: str) -> None:
    result = cli("verify", *HEALTHY, "--quote", "Q-2026-999999", db=demo_db, lang="en")
    assert result.code == 1
    assert "--quote Q-2026-999999: no such quote" in result.err
    engine = make_engine(demo_db)
    assert verifications_of_quote(engine, "Q-2026-999999") == []
    engine.dispose()


def test_without_xml_or_nvidia_smi_says_to_pass_the_file(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    result = cli("verify", "--json", lang="en")
    assert result.code == 1
    assert "nvidia-smi is not on PATH" in result.err
    assert "--nvidia-smi-xml smi.xml" in result.err
    assert result.out == ""


@pytest.mark.slow
def test_live_run_uses_nvidia_smi_and_skips_measurements_without_a_gpu(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_torch: None
) -> None:
    fake_nvidia_smi(tmp_path, SMI / "a100-sxm4-80gb-x8.xml", SMI / "a100-sxm4-80gb-x8.topo.txt")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    doc = cli("verify", "--json").json()
    assert doc["source"].endswith("nvidia-smi -q -x")
    assert doc["topology"]["gpus"] == 8
    assert doc["measurements"]["status"] == "skipped"
    assert "PyTorch is not installed" in cli("verify", lang="en").out
    assert cli("verify", "--no-measure", "--json").json()["measurements"]["reason"] == (
        "skip_not_requested"
    )


def test_bad_xml_names_the_file(cli: Any, tmp_path: Path) -> None:
    bad = tmp_path / "smi.xml"
    bad.write_text("No devices were found\n", encoding="utf-8")
    result = cli("verify", "--nvidia-smi-xml", str(bad), lang="en")
    assert result.code == 1
    assert f"{bad}: not XML" in result.err
