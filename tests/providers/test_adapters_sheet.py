"""SheetAdapter: price sheets from a path or a URL on 127.0.0.1, with their profiles."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from comparator.domain.profile import load_profile
from comparator.errors import InputError, SheetError, SourceError
from providers.base import AdapterResult, SourceSpec
from providers.fetch import FetchPolicy, Validators
from providers.sheet.adapter import SheetAdapter, sheet_filename
from tests.support.httpserver import FaultServer, Reply, fault_server

PROFILE = """\
[provider]
id = "acme"
name = "Acme GPU"
country = "SG"

[[datacenters]]
id = "sg-1"
name = "新加坡一区"
"""
SHEET = "provider,region,gpu,cards,billing,price,currency\nacme,sg-1,H100,8,hourly,22.40,USD\n"
CHINESE = "服务商,机房,卡型,卡数,计费方式,单价,币种\nacme,新加坡一区,A100-80G,1,按量,1.655,USD\n"


@pytest.fixture()
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def fetch(source: SourceSpec, since: Validators | None = None, **kwargs: object) -> AdapterResult:
    async def go() -> AdapterResult:
        async with httpx.AsyncClient() as client:
            return await SheetAdapter(source, client, **kwargs).fetch(since)  # type: ignore[arg-type]

    return asyncio.run(go())


def spec(location: str, profile: str | None, **options: object) -> SourceSpec:
    return SourceSpec(
        "acme", "sheet", location, profile, FetchPolicy(deadline_s=5, backoff_s=0.01), options
    )


def test_sheet_and_profile_from_urls(server: FaultServer) -> None:
    sheet = server.set("/acme.csv", Reply(body=SHEET.encode()), etag='"1"')
    profile = server.set("/acme.toml", Reply(body=PROFILE.encode()))
    result = fetch(spec(sheet, profile))
    assert result.profile is not None and result.profile.name == "Acme GPU"
    [offer] = result.offer_list()
    assert (offer.provider, offer.region, offer.gpu, offer.cards) == (
        "acme",
        "sg-1",
        "H100-SXM5-80GB",
        8,
    )
    assert offer.price == Decimal("22.40") and offer.currency == "USD"
    assert result.validators.etag == '"1"'
    again = fetch(spec(sheet, profile), since=result.validators)
    assert again.not_modified and again.offer_list() == [] and again.profile is not None


def test_chinese_headers_in_gb18030_from_a_path(tmp_path: Path) -> None:
    (tmp_path / "acme.toml").write_text(PROFILE, encoding="utf-8")
    (tmp_path / "价格.csv").write_bytes(CHINESE.encode("gb18030"))
    result = fetch(spec(str(tmp_path / "价格.csv"), str(tmp_path / "acme.toml")))
    [offer] = result.offer_list()
    assert (offer.region, offer.gpu, offer.billing) == ("sg-1", "A100-SXM4-80GB", "hourly")
    assert offer.price == Decimal("1.655")


def test_profile_already_in_the_catalog_is_enough(tmp_path: Path) -> None:
    (tmp_path / "acme.toml").write_text(PROFILE, encoding="utf-8")
    (tmp_path / "s.csv").write_text(SHEET, encoding="utf-8")
    stored = {"acme": load_profile(tmp_path / "acme.toml")}
    result = fetch(spec(str(tmp_path / "s.csv"), None), profiles=stored)
    assert result.profile is None and len(result.offer_list()) == 1
    with pytest.raises(SourceError, match="provider 'acme' has no profile"):
        fetch(spec(str(tmp_path / "s.csv"), None))


def test_rows_of_another_provider_or_region_are_refused(tmp_path: Path) -> None:
    (tmp_path / "acme.toml").write_text(PROFILE, encoding="utf-8")
    bad = SHEET + "other,sg-1,H100,8,hourly,20,USD\nacme,tokyo,H100,8,hourly,20,USD\n"
    (tmp_path / "bad.csv").write_text(bad, encoding="utf-8")
    with pytest.raises(SheetError) as info:
        fetch(spec(str(tmp_path / "bad.csv"), str(tmp_path / "acme.toml")))
    assert "row 3, column provider" in str(info.value)
    assert "row 4, column region" in str(info.value)


def test_a_profile_for_another_provider_is_refused(tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(PROFILE.replace('id = "acme"', 'id = "zeta"'), "utf-8")
    (tmp_path / "s.csv").write_text(SHEET, encoding="utf-8")
    with pytest.raises(SourceError, match="the profile is for provider 'zeta'"):
        fetch(spec(str(tmp_path / "s.csv"), str(tmp_path / "p.toml")))


def test_format_option_names_the_type_when_the_url_does_not(server: FaultServer) -> None:
    rows = [
        {
            "provider": "acme",
            "region": "sg-1",
            "gpu": "L40S",
            "billing": "monthly",
            "price": "900",
            "currency": "USD",
        }
    ]
    url = server.set("/api/export", Reply(body=json.dumps(rows).encode()))
    profile = server.set("/acme.toml", Reply(body=PROFILE.encode()))
    [offer] = fetch(spec(url, profile, format="json")).offer_list()
    assert (offer.gpu, offer.billing, offer.price) == ("L40S", "monthly", Decimal("900"))
    assert sheet_filename(spec(url, None, format="json")) == "export.json"
    with pytest.raises(InputError, match="format: expected one of csv"):
        SheetAdapter.check_options({"format": "ods"}, "sources.toml #1")
