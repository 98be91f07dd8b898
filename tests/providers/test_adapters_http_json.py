"""HttpJsonAdapter: a JSON price API on 127.0.0.1 mapped declaratively onto sheet columns."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

import httpx
import pytest

from comparator.errors import InputError, SheetError
from providers.base import AdapterResult, SourceSpec
from providers.fetch import FetchPolicy
from providers.http_json import HttpJsonAdapter, dig
from tests.support.httpserver import FaultServer, Reply, fault_server

PROFILE = b"""[provider]
id = "acme"
name = "Acme"
legal_name = "Acme Ltd"
country = "CN"

[[datacenters]]
id = "gd-sz-1"
name = "Shenzhen 1"
province = "Guangdong"
"""
API = {
    "code": 0,
    "data": {
        "items": [
            {
                "zone": "gd-sz-1",
                "spec": {"gpuModel": "NVIDIA A800 80GB", "gpuCount": 8},
                "price": {"amount": 45000.10, "unit": "MONTH"},
                "stock": 3,
            },
            {
                "zone": "Shenzhen 1",
                "spec": {"gpuModel": "4090", "gpuCount": 1},
                "price": {"amount": "1.88", "unit": "HOUR"},
                "stock": None,
            },
        ]
    },
}
MAPPING: dict[str, Any] = {
    "records": "data.items",
    "fields": {
        "region": "zone",
        "gpu": "spec.gpuModel",
        "cards": "spec.gpuCount",
        "price": "price.amount",
        "billing": "price.unit",
        "stock": "stock",
    },
    "defaults": {"currency": "CNY"},
    "values": {"billing": {"MONTH": "monthly", "HOUR": "hourly"}},
}


@pytest.fixture()
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        running.set("/acme.toml", Reply(body=PROFILE))
        yield running


def fetch(server: FaultServer, body: bytes, options: Mapping[str, Any]) -> AdapterResult:
    url = server.set("/v1/prices", Reply(body=body))
    source = SourceSpec(
        "acme", "http_json", url, server.url("/acme.toml"), FetchPolicy(deadline_s=5), options
    )

    async def go() -> AdapterResult:
        async with httpx.AsyncClient() as client:
            return await HttpJsonAdapter(source, client).fetch()

    return asyncio.run(go())


def test_mapped_records_become_offers(server: FaultServer) -> None:
    result = fetch(server, json.dumps(API).encode(), MAPPING)
    monthly, hourly = result.offer_list()
    assert (monthly.region, monthly.gpu, monthly.cards, monthly.billing) == (
        "gd-sz-1",
        "A800-SXM4-80GB",
        8,
        "monthly",
    )
    assert monthly.price == Decimal("45000.10")  # the JSON number's digits, not a float's
    assert monthly.stock == 3 and monthly.currency == "CNY"
    assert (hourly.region, hourly.gpu, hourly.billing, hourly.stock) == (
        "gd-sz-1",
        "RTX4090",
        "hourly",
        None,
    )
    assert result.profile is not None and result.profile.datacenters[0].province == "广东"


def test_bad_records_are_listed_with_their_positions(server: FaultServer) -> None:
    broken = json.loads(json.dumps(API))
    broken["data"]["items"][1]["spec"]["gpuModel"] = "GTX 9999"
    broken["data"]["items"].append(
        {"zone": "gd-sz-1", "spec": {"gpuModel": "H800"}, "price": {"amount": -1, "unit": "HOUR"}}
    )
    with pytest.raises(SheetError) as info:
        fetch(server, json.dumps(broken).encode(), MAPPING)
    message = str(info.value)
    assert "2 bad row(s)" in message and "column gpu" in message and "column price" in message


def test_records_path_must_lead_to_a_list(server: FaultServer) -> None:
    with pytest.raises(InputError, match="records = 'data': expected a list of objects"):
        fetch(server, json.dumps(API).encode(), {**MAPPING, "records": "data"})
    with pytest.raises(InputError, match="not JSON"):
        fetch(server, b"<html>502 Bad Gateway</html>", MAPPING)


def test_mapping_mistakes_are_caught_when_the_sources_file_is_read() -> None:
    where = "sources.toml [[source]] #2 (acme)"
    with pytest.raises(InputError, match=r"fields: unknown column\(s\) gpu_model"):
        HttpJsonAdapter.check_options({"fields": {"gpu_model": "x"}}, where)
    with pytest.raises(InputError, match=r"fields: expected a table \[source.fields\]"):
        HttpJsonAdapter.check_options({}, where)
    HttpJsonAdapter.check_options(MAPPING, where)


def test_dig_follows_keys_and_list_indexes() -> None:
    document = {"a": {"b": [{"c": 1}, {"c": 2}]}}
    assert dig(document, "a.b.1.c") == 2
    assert dig(document, "a.x.c") is None and dig(document, "a.b.9") is None
    assert dig(document, "") == document
