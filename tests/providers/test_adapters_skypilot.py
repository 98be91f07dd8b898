"""SkypilotAdapter: the five real v8 vms.csv files, served on 127.0.0.1, and integrity failures."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from comparator.domain.gpus import GPUS
from comparator.errors import SheetError
from providers.base import AdapterResult, SourceSpec
from providers.fetch import FetchPolicy
from providers.skypilot.adapter import SkypilotAdapter, parse_vms_csv
from providers.skypilot.rows import gpu_memory_gib, parse_count, region_country
from tests.conftest import SKYPILOT_DIR
from tests.support.httpserver import FaultServer, fault_server

CLOUDS = ("lambda", "vast", "shadeform", "nebius", "verda")


@pytest.fixture(scope="module")
def catalog_server() -> Iterator[FaultServer]:
    with fault_server() as server:
        for cloud in CLOUDS:
            server.serve_file(f"/catalogs/v8/{cloud}/vms.csv", SKYPILOT_DIR / cloud / "vms.csv")
        yield server


def fetch(server: FaultServer, cloud: str, **options: object) -> AdapterResult:
    source = SourceSpec(
        cloud,
        "skypilot",
        server.url(f"/catalogs/v8/{cloud}/vms.csv"),
        policy=FetchPolicy(deadline_s=10),
        options=options,
    )

    async def go() -> AdapterResult:
        async with httpx.AsyncClient() as client:
            return await SkypilotAdapter(source, client).fetch()

    return asyncio.run(go())


@pytest.fixture(scope="module")
def results(catalog_server: FaultServer) -> dict[str, AdapterResult]:
    """Each cloud fetched once over HTTP, shared by the tests below."""
    return {cloud: fetch(catalog_server, cloud) for cloud in CLOUDS}


def csv_rows(cloud: str) -> list[dict[str, str]]:
    text = (SKYPILOT_DIR / cloud / "vms.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def expected_prices(cloud: str) -> dict[tuple[str, str, str], str]:
    """(sku, region text, billing) → the CSV's price text, straight from the file."""
    expected = {}
    for row in csv_rows(cloud):
        if not row["AcceleratorName"] or row["Region"].startswith(", CN,"):
            continue
        if row["Price"]:
            expected[(row["InstanceType"], row["Region"], "hourly")] = row["Price"]
        if row["SpotPrice"] and Decimal(row["SpotPrice"]) > 0:
            expected[(row["InstanceType"], row["Region"], "spot")] = row["SpotPrice"]
    return expected


@pytest.mark.parametrize("cloud", CLOUDS)
def test_every_gpu_row_imports_with_the_csv_price_exactly(
    results: dict[str, AdapterResult], cloud: str
) -> None:
    result = results[cloud]
    assert result.profile is not None
    region_text = {dc.id: dc.region for dc in result.profile.datacenters}
    got = {(o.sku, region_text[o.region], o.billing): o.price for o in result.offers}
    expected = expected_prices(cloud)
    assert len(result.offers) == len(expected) == len(got)
    assert got == {key: Decimal(text) for key, text in expected.items()}
    assert all(str(got[key]) == text for key, text in expected.items())  # no digit lost


@pytest.mark.parametrize("cloud", CLOUDS)
def test_offers_pass_the_integrity_checks(results: dict[str, AdapterResult], cloud: str) -> None:
    result = results[cloud]
    assert result.profile is not None and result.profile.id == cloud
    datacenters = {dc.id: dc for dc in result.profile.datacenters}
    for offer in result.offers:
        assert offer.price > 0 and offer.currency == "USD"
        assert offer.gpu in GPUS and offer.cards >= 1 and offer.node_cards == offer.cards
        assert offer.billing in ("hourly", "spot")
        assert not datacenters[offer.region].mainland
    assert not any(dc.mainland for dc in result.profile.datacenters)


def _offer(result: AdapterResult, sku: str, billing: str = "hourly") -> tuple[str, int]:
    offer = next(o for o in result.offers if o.sku == sku and o.billing == billing)
    return offer.gpu, offer.cards


def test_gpu_memory_quirks_pick_the_right_variant(results: dict[str, AdapterResult]) -> None:
    lambda_ = results["lambda"]
    assert _offer(lambda_, "gpu_8x_a100") == ("A100-SXM4-40GB", 8)  # per-GPU MiB
    assert _offer(lambda_, "gpu_8x_a100_80gb_sxm4") == ("A100-SXM4-80GB", 8)
    assert _offer(lambda_, "gpu_1x_h100_pcie") == ("H100-PCIE-80GB", 1)  # the SKU says PCIe
    assert _offer(lambda_, "gpu_1x_h100_sxm5") == ("H100-SXM5-80GB", 1)
    vast = results["vast"]
    assert _offer(vast, "2x-A100_SXM4-32-65536") == ("A100-SXM4-40GB", 2)  # whole-instance MiB
    assert _offer(vast, "1x-A100_SXM4-32-65536")[0] in ("A100-SXM4-40GB", "A100-SXM4-80GB")
    assert _offer(vast, "1x-A100_PCIE-32-65536")[0].startswith("A100-PCIE-")
    assert _offer(vast, "1x-H100_NVL-32-65536") == ("H100-NVL", 1)  # 93.6 GiB: the NVL card
    shadeform = results["shadeform"]
    assert _offer(shadeform, "crusoe_A100-80G-sxm4x8") == ("A100-SXM4-80GB", 8)  # GiB in MiB
    assert {o.gpu for o in shadeform.offers if "6000" in o.sku and "Ada" in o.sku} <= {
        "RTX6000-Ada"
    }


def test_alias_drift_resolves_to_one_canonical_name(results: dict[str, AdapterResult]) -> None:
    drift = {"RTX6000-Ada", "RTX6000Ada", "RTX-6000-Ada"}
    gpus, names = set(), set()
    for cloud in ("vast", "shadeform", "verda"):
        skus = {
            r["InstanceType"]: r["AcceleratorName"]
            for r in csv_rows(cloud)
            if r["AcceleratorName"] in drift
        }
        names |= set(skus.values())
        gpus |= {o.gpu for o in results[cloud].offers if o.sku in skus}
    assert names == drift
    assert gpus == {"RTX6000-Ada"}


def test_spot_only_rows_and_vast_zero_spot(
    catalog_server: FaultServer, results: dict[str, AdapterResult]
) -> None:
    verda = results["verda"]
    spot_only = [r for r in csv_rows("verda") if r["AcceleratorName"] and not r["Price"]]
    assert spot_only
    for row in spot_only:
        billings = {o.billing for o in verda.offers if o.sku == row["InstanceType"]}
        assert billings == {"spot"}
    assert {o.billing for o in results["vast"].offers} == {"hourly"}
    assert not [
        o for o in fetch(catalog_server, "nebius", spot=False).offers if o.billing == "spot"
    ]


def test_vast_regions_give_countries_and_mainland_rows_are_noted(
    results: dict[str, AdapterResult],
) -> None:
    vast = results["vast"]
    assert vast.profile is not None
    by_name = {dc.name: dc for dc in vast.profile.datacenters}
    assert by_name["Michigan, US, NA"].country == "US"
    assert by_name["Hong Kong, HK, AS"].country == "HK"
    assert by_name["US, NA"].country == "US"  # ", US, NA": the state is unknown
    assert any("', CN, AS'" in note and "left out" in note for note in vast.notes)


def test_unknown_gpu_and_bad_prices_fail_the_file_listing_every_row() -> None:
    header = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
        "GpuInfo,SpotPrice\r\n"
    )
    body = (
        "a,H100,1.0,8,64,2.49,us-east-1,,\r\n"
        "b,FooGPU-9000,1.0,8,64,1.00,us-east-1,,\r\n"
        "c,H100,1.0,8,64,0,us-east-1,,\r\n"
        "d,H100,1.0,8,64,cheap,us-east-1,,\r\n"
        "e,H100,1.0,8,64,1.0,us-east-1,,-1\r\n"
    )
    source = SourceSpec("lambda", "skypilot", "/x/lambda/vms.csv")
    with pytest.raises(SheetError) as info:
        parse_vms_csv((header + body).encode(), source, datetime.now(UTC))
    message = str(info.value)
    assert "4 bad row(s)" in message
    assert "row 3, column AcceleratorName: expected a GPU known to the registry" in message
    assert "'FooGPU-9000'" in message
    assert "row 4, column Price: expected a positive price" in message
    assert "row 5, column Price" in message and "row 6, column SpotPrice" in message


def test_garbage_and_missing_columns_fail_clearly() -> None:
    source = SourceSpec("lambda", "skypilot", "/x/lambda/vms.csv")
    with pytest.raises(SheetError, match="row 1, column InstanceType: expected a SkyPilot"):
        parse_vms_csv(b"<html>Service Unavailable</html>", source, datetime.now(UTC))
    cpu_only = b"InstanceType,AcceleratorName,AcceleratorCount,Price,Region\ncpu,,,0.1,us\n"
    with pytest.raises(SheetError, match="at least one GPU instance"):
        parse_vms_csv(cpu_only, source, datetime.now(UTC))


def test_fractional_gpus_and_cpu_rows_are_left_out() -> None:
    content = (
        b"InstanceType,AcceleratorName,AcceleratorCount,Price,Region\n"
        b"g4ad.xlarge,V520,0.125,0.38,us-east-1\nc5,,,0.1,us-east-1\n"
        b"p4d,A100,8,32.77,us-east-1\n"
    )
    profile, parsed = parse_vms_csv(
        content, SourceSpec("aws", "skypilot", "/x/aws/vms.csv"), datetime.now(UTC)
    )
    assert [(o.sku, o.gpu, o.cards) for o in parsed.offers] == [("p4d", "A100-SXM4-40GB", 8)]
    assert any("fractional GPU count (0.125)" in note for note in parsed.notes)
    assert [dc.id for dc in profile.datacenters] == ["us-east-1"]


def test_cell_readers() -> None:
    assert parse_count("8.0") == 8 and parse_count("") == 0 and parse_count("0.5") is None
    shadeform = "{'Gpus': [{'Name': 'A100', 'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 80}}]}"
    assert gpu_memory_gib(shadeform, 8, whole_instance=False) == 80
    verda = '{"Gpus": [{"Name": "B300", "Count": 2, "MemoryInfo": {"SizeInMiB": 268800}}]}'
    assert gpu_memory_gib(verda, 2, whole_instance=False) == 262.5
    vast = "{'Gpus': [{'Name': 'H200', 'Count': 2, 'MemoryInfo': {'SizeInMiB': 287542}}]}"
    assert gpu_memory_gib(vast, 2, whole_instance=True) == pytest.approx(140.4, abs=0.1)
    with pytest.raises(ValueError, match="GpuInfo"):
        gpu_memory_gib("{'Gpus': [", 1, whole_instance=False)
    assert region_country("paris-france-1", "US", {}) == "FR"
    assert region_country("asia-south-1", "US", {"asia-south-1": "IN"}) == "IN"
    assert region_country("Taichung City, TW, AS", "US", {}) == "TW"
    assert region_country("eu-north1", "NL", {}) == "NL"
