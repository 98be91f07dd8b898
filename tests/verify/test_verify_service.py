"""`services.verify_machine`: the catalog meets the machine checks here, not in the CLI."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.config import load_settings
from comparator.errors import CatalogError
from comparator.refresh.importer import load_demo
from comparator.services import verify_machine
from comparator.services.verification import verifications_of_quote
from comparator.verify import (
    NOT_REQUESTED,
    MachineReport,
    Measurements,
    parse_smi_xml,
    parse_topology,
)
from tests.conftest import DATA

SMI = DATA / "nvidia-smi"
NOW = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


@pytest.fixture
def demo(tmp_path: Path) -> Engine:
    engine = make_engine(f"sqlite:///{tmp_path / 'demo.db'}")
    upgrade_schema(engine)
    load_demo(engine, timezone=load_settings({}).timezone)
    return engine


def a100_machine() -> MachineReport:
    topology = parse_topology((SMI / "a100-sxm4-80gb-x8.topo.txt").read_text("utf-8"))
    xml = SMI / "a100-sxm4-80gb-x8.xml"
    return parse_smi_xml(xml.read_bytes(), str(xml), topology)


def nothing_measured() -> Measurements:
    return NOT_REQUESTED


def test_without_an_offer_or_a_quote_the_catalog_is_never_opened() -> None:
    def no_catalog() -> Engine:
        raise AssertionError("opened the catalog")

    verified = verify_machine(
        a100_machine(),
        no_catalog,
        offer_id=None,
        cards=None,
        measure=nothing_measured,
        lang="en",
        quote_number=None,
        created_at=NOW,
    )
    assert verified.stored_id is None and verified.result.expected.offer_id is None


def test_an_unknown_offer_fails_before_anything_is_measured(demo: Engine) -> None:
    measured: list[bool] = []

    def measure() -> Measurements:
        measured.append(True)
        return NOT_REQUESTED

    with pytest.raises(CatalogError, match="no such offer"):
        verify_machine(
            a100_machine(),
            lambda: demo,
            offer_id="999999",
            cards=None,
            measure=measure,
            lang="en",
            quote_number=None,
            created_at=NOW,
        )
    assert measured == []


def test_an_unknown_quote_stores_nothing(demo: Engine) -> None:
    with pytest.raises(CatalogError, match="no such quote"):
        verify_machine(
            a100_machine(),
            lambda: demo,
            offer_id=None,
            cards=None,
            measure=nothing_measured,
            lang="en",
            quote_number="Q-2026-999999",
            created_at=NOW,
        )
    assert verifications_of_quote(demo, "Q-2026-999999") == []
