"""Redirects never lead a public source to an address that is not public, even under
``redirect_hosts = ["*"]``: cloud metadata on shared address space (100.100.100.200),
multicast, reserved, unique-local and IPv6 forms carrying a private IPv4 address."""

from __future__ import annotations

import asyncio
import ipaddress

import httpx
import pytest

from comparator.errors import SourceError
from providers.fetch import FetchPolicy, fetch_document
from providers.urls import is_public_address

SOURCE = "https://8.8.8.8/prices.csv"
ANY_HOST = FetchPolicy(retries=0, deadline_s=10, redirect_hosts=("*",))


def fetch_through_redirect(target: str, requested: list[str]) -> bytes:
    """Fetch SOURCE, which redirects to ``target``; ``requested`` gets each URL requested."""

    def handler(request: httpx.Request) -> httpx.Response:
        requested.append(str(request.url))
        if str(request.url) == SOURCE:
            return httpx.Response(302, headers={"Location": target})
        return httpx.Response(200, content=b"secret metadata")

    async def go() -> bytes:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return (await fetch_document(client, SOURCE, ANY_HOST)).content

    return asyncio.run(go())


@pytest.mark.parametrize(
    "target",
    [
        "https://100.100.100.200/latest/meta-data/",  # shared address space (RFC 6598)
        "https://224.0.0.1/",  # multicast
        "https://100.64.0.1/",
        "https://239.255.255.250:1900/",
        "https://240.0.0.1/",  # reserved
        "https://255.255.255.255/",
        "https://0.0.0.0/",
        "https://[fd00::1]/",  # IPv6 unique-local
        "https://[ff02::1]/",  # IPv6 multicast
        "https://[fec0::1]/",  # site-local (deprecated)
        "https://[::ffff:10.0.0.1]/",  # IPv4-mapped
        "https://[::ffff:100.100.100.200]/",
        "https://[::10.0.0.1]/",  # IPv4-compatible
        "https://[2002:a00:1::]/",  # 6to4 of 10.0.0.1
        "https://[2002:6464:64c8::]/",  # 6to4 of 100.100.100.200
        "https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/",  # Teredo of 10.0.0.1
        "https://[64:ff9b::a00:1]/",  # NAT64 of 10.0.0.1
        "https://[::1]/",
        "https://[fe80::1]/",
    ],
)
def test_redirects_to_non_public_addresses_are_refused_under_any_host(target: str) -> None:
    requested: list[str] = []
    with pytest.raises(SourceError, match="not a public address") as caught:
        fetch_through_redirect(target, requested)
    assert "redirect to" in str(caught.value)
    assert requested == [SOURCE]  # the target itself was never requested


def test_a_redirect_to_a_public_address_is_followed_under_any_host() -> None:
    requested: list[str] = []
    body = fetch_through_redirect("https://1.1.1.1/prices.csv", requested)
    assert body == b"secret metadata"
    assert requested == [SOURCE, "https://1.1.1.1/prices.csv"]


@pytest.mark.parametrize(
    ("text", "public"),
    [
        ("8.8.8.8", True),
        ("2606:4700::1111", True),
        ("2002:808:808::", True),  # 6to4 of a public address
        ("100.100.100.200", False),
        ("224.0.0.1", False),
        ("192.0.2.1", False),  # documentation
        ("198.18.0.1", False),  # benchmarking
        ("fc00::1", False),
        ("::ffff:127.0.0.1", False),
        ("::", False),
        ("::ffff:8.8.8.8", False),  # mapped forms are never public
        ("2002:a00:1::", False),  # 6to4 of 10.0.0.1
    ],
)
def test_public_addresses_are_told_apart(text: str, public: bool) -> None:
    assert is_public_address(ipaddress.ip_address(text)) is public
