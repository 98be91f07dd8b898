"""URLs of refresh sources: masking secrets for storage and output, and which redirects are safe.

A URL may carry credentials (``https://user:pass@host/``) or a key in its query
(``?api_key=…``); the refresh fetches with them but stores and prints :func:`mask_url`'s form.
A redirect goes only to the source's own host and port, or to a host the source lists in
``redirect_hosts``; and never from a public source to an address that is not public
(:func:`is_public_address`: loopback, private, link-local, shared 100.64.0.0/10, multicast,
reserved, unique-local, and IPv6 forms that embed such an IPv4 address), whatever
``redirect_hosts`` says (a source whose own URL is internal may redirect internally).
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from comparator.errors import SourceError

_SECRET_PARAM = re.compile(
    r"key|token|secret|passw|pwd|sig|auth|credential|session|signature", re.IGNORECASE
)
_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")


def is_url(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def mask_url(location: str) -> str:
    """``location`` with credentials (``user:pass@``) and secret-looking query values masked."""
    if not is_url(location):
        return location
    try:
        parts = urlsplit(location)
        netloc = parts.netloc
        if "@" in netloc:
            netloc = "***@" + netloc.rsplit("@", 1)[1]
        query = [
            (name, "***" if _SECRET_PARAM.search(name) else value)
            for name, value in parse_qsl(parts.query, keep_blank_values=True)
        ]
        masked_query = urlencode(query, safe="*") if parts.query else ""
        return urlunsplit((parts.scheme, netloc, parts.path, masked_query, parts.fragment))
    except ValueError:
        return _USERINFO.sub("***@", location.split("?", 1)[0])


def mask_text(text: str, locations: tuple[str, ...] = (), secrets: tuple[str, ...] = ()) -> str:
    """``text`` (an error, a log line) with every given URL masked and every secret removed."""
    for location in locations:
        if location:
            text = text.replace(location, mask_url(location))
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return _USERINFO.sub("***@", text)


def origin(url: str) -> tuple[str, int | None]:
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return (parts.hostname or "").lower(), parts.port or default


async def check_redirect(
    source_url: str, current: str, target: str, allowed_hosts: tuple[str, ...]
) -> None:
    """Refuse a redirect the source did not allow (SourceError says which and why)."""
    shown = f"{mask_url(source_url)}: redirect to {mask_url(target)} refused"
    if not is_url(target):
        raise SourceError("{shown}: not an http(s) URL", shown=shown)
    if urlsplit(current).scheme == "https" and urlsplit(target).scheme != "https":
        raise SourceError("{shown}: from https to plain http", shown=shown)
    host, _ = origin(target)
    if origin(target) != origin(source_url) and not ("*" in allowed_hosts or host in allowed_hosts):
        raise SourceError(
            "{shown}: another host or port than the source's; list it in redirect_hosts "
            "to allow it",
            shown=shown,
        )
    source_host = origin(source_url)[0]
    if not await _is_internal(source_host) and await _is_internal(host):
        raise SourceError(
            "{shown}: not a public address (loopback, private, link-local, shared, multicast "
            "or reserved)",
            shown=shown,
        )


async def _is_internal(host: str) -> bool:
    """Whether ``host`` is (or resolves to) an address that is not public."""
    try:
        addresses = [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        try:
            infos = await asyncio.to_thread(socket.getaddrinfo, host, None)
        except OSError:
            return False  # unresolvable: the request itself will fail
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    return not all(is_public_address(a) for a in addresses)


Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated IPv4-compatible ::a.b.c.d


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries: mapped, compatible, 6to4, Teredo, NAT64."""
    found = [a for a in (address.ipv4_mapped, address.sixtofour) if a is not None]
    if address.teredo is not None:
        found.extend(address.teredo)
    if address in _COMPATIBLE or any(address in net for net in _NAT64):
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def is_public_address(address: Address) -> bool:
    """Whether ``address`` is a public unicast address: globally reachable (IANA's special
    registries, as :attr:`ipaddress.IPv4Address.is_global` knows them: not loopback, private,
    link-local, shared 100.64.0.0/10, reserved, documentation or unique-local), not multicast,
    and, for an IPv6 form that carries an IPv4 address (mapped, compatible, 6to4, Teredo,
    NAT64), carrying a public one. Python 3.11's tables count the mapped, compatible, Teredo
    and NAT64 ranges as not global whatever they carry; a 6to4 address of a public IPv4
    address is public."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded and not all(is_public_address(a) for a in embedded):
            return False
        if address.is_site_local:
            return False
    return address.is_global and not (
        address.is_multicast or address.is_reserved or address.is_unspecified
    )
