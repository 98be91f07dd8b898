"""URLs of refresh sources: masking secrets for storage and output, and which redirects are safe.

A URL may carry credentials (``https://user:pass@host/``), a key in its query (``?api_key=…``,
``?pass=…``) or in its fragment; the refresh fetches with them but stores and prints
:func:`mask_url`'s form: the user-info, every query value and the fragment masked, whatever
their names, except the query parameters a source declares public (``public_params``).
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

MASK = "***"
_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")
_URL_IN_TEXT = re.compile(r"https?://[^\s'\"<>]+", re.IGNORECASE)


def is_url(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def mask_url(location: str, public: tuple[str, ...] = ()) -> str:
    """``location`` with its user-info, every query value and its fragment masked.

    Query parameters named in ``public`` keep their values (a source's ``public_params``);
    any other value, whatever its name (``api_key``, ``pass``, ``jwt``, ``x``), is masked.
    """
    if not is_url(location):
        return location
    try:
        parts = urlsplit(location)
        netloc = parts.netloc
        if "@" in netloc:
            netloc = f"{MASK}@" + netloc.rsplit("@", 1)[1]
        query = [
            (name, value if name in public else MASK)
            for name, value in parse_qsl(parts.query, keep_blank_values=True)
        ]
        masked_query = urlencode(query, safe="*") if parts.query else ""
        fragment = MASK if parts.fragment else ""
        return urlunsplit((parts.scheme, netloc, parts.path, masked_query, fragment))
    except ValueError:
        head = re.split(r"[?#]", location, maxsplit=1)[0]
        return _USERINFO.sub(f"{MASK}@", head) + (f"?{MASK}" if head != location else "")


def mask_text(
    text: str,
    locations: tuple[str, ...] = (),
    secrets: tuple[str, ...] = (),
    public: tuple[str, ...] = (),
) -> str:
    """``text`` (an error, a log line) with every URL in it masked and every secret removed.

    The given ``locations`` are replaced whole first (so a URL the text quotes in a form the
    URL scanner would cut short is masked too); then every ``http(s)://`` URL left in the text
    (a redirect target, a URL an HTTP library quoted) goes through :func:`mask_url`.
    """
    for location in locations:
        if location:
            text = text.replace(location, mask_url(location, public))
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    text = _URL_IN_TEXT.sub(lambda match: _mask_quoted(match.group(0), public), text)
    return _USERINFO.sub(f"{MASK}@", text)


def _mask_quoted(found: str, public: tuple[str, ...]) -> str:
    """A URL found in a sentence, masked, with the punctuation after it ("…/p.csv: HTTP") kept."""
    url = found.rstrip(":,;.)]}")
    return mask_url(url, public) + found[len(url) :]


def origin(url: str) -> tuple[str, int | None]:
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return (parts.hostname or "").lower(), parts.port or default


async def check_redirect(
    source_url: str,
    current: str,
    target: str,
    allowed_hosts: tuple[str, ...],
    public: tuple[str, ...] = (),
) -> None:
    """Refuse a redirect the source did not allow (SourceError says which and why)."""
    shown = f"{mask_url(source_url, public)}: redirect to {mask_url(target, public)} refused"
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
