"""Fetching one document of a refresh source: a local path or an HTTP(S) URL.

HTTP goes through an injected :class:`httpx.AsyncClient` with explicit connect/read timeouts
(httpx timeouts are per inactivity, so a body that trickles in never trips them) and an
absolute deadline enforced with :func:`asyncio.timeout_at` over every attempt. 429, 5xx and
transport errors (reset, refused, read timeout) are retried with exponential backoff,
honouring ``Retry-After``; a 4xx or an empty body is final. ``ETag``/``Last-Modified`` from
the previous fetch are sent back, and a ``304`` comes back as ``not_modified``.

Bounded and safe: a body is cut at ``max_body_bytes`` (counted on the wire and once
decompressed, so a gzip bomb stops at the limit too); redirects are followed by hand, only to
the same host and port (or the hosts a source allows), never from a public URL to a loopback,
private or link-local address; ``headers`` and a bearer token from ``token_env`` go with the
request and never into a stored or printed URL (:func:`mask_url`, :func:`mask_text`).
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import os
import random
import re
import stat
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from urllib.parse import urljoin

import httpx

from comparator.domain.bounded_read import read_limited
from comparator.errors import Msg, SourceError, os_reason
from providers.urls import check_redirect, is_url, mask_url, origin

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 300.0
MAX_REDIRECTS = 5
DEFAULT_MAX_BODY_BYTES = 64 * 2**20
MIN_SECRET_CHARS = 4  # shorter header values ("1", "gz") are not replaced in messages


@dataclass(frozen=True)
class FetchPolicy:
    """How patiently one source is fetched (the sources file sets these per source)."""

    deadline_s: float = 60.0
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 30.0
    retries: int = 3
    backoff_s: float = 1.0
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    parse_timeout_s: float = 60.0
    redirect_hosts: tuple[str, ...] = ()  # other hosts redirects may go to; "*": any
    headers: tuple[tuple[str, str], ...] = ()
    token_env: str | None = None  # environment variable holding a bearer token
    public_params: tuple[str, ...] = ()  # query parameters whose values may be shown

    def shown(self, location: str) -> str:
        """``location`` as stored and printed (:func:`mask_url` with ``public_params``)."""
        return mask_url(location, self.public_params)

    def request_headers(self, location: str) -> dict[str, str]:
        """``headers`` plus ``Authorization: Bearer …`` from ``token_env``."""
        headers = dict(self.headers)
        if self.token_env:
            token = os.environ.get(self.token_env, "")
            if not token:
                raise SourceError(
                    "{location}: token_env: the environment variable {token_env} is not set",
                    location=self.shown(location),
                    token_env=self.token_env,
                )
            headers["Authorization"] = f"Bearer {token}"
        return headers

    def secrets(self) -> tuple[str, ...]:
        """Values that must never be stored or printed."""
        token = os.environ.get(self.token_env, "") if self.token_env else ""
        values = (token, *(v.strip() for _, v in self.headers))
        return tuple(s for s in values if len(s) >= MIN_SECRET_CHARS)

    def timeout(self) -> httpx.Timeout:
        return httpx.Timeout(
            connect=self.connect_timeout_s,
            read=self.read_timeout_s,
            write=self.read_timeout_s,
            pool=self.deadline_s,
        )


@dataclass(frozen=True)
class Validators:
    """What a server said identifies a document's version (sent back on the next fetch)."""

    etag: str | None = None
    last_modified: str | None = None
    sha256: str | None = None  # of the body: the same bytes again count as not modified

    def request_headers(self) -> dict[str, str]:
        headers = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


@dataclass(frozen=True)
class Document:
    """A fetched document; ``content`` is empty when the server answered 304 Not Modified."""

    location: str
    content: bytes
    validators: Validators = field(default_factory=Validators)
    not_modified: bool = False

    @property
    def sha256(self) -> str | None:
        return self.validators.sha256


class RetryableStatus(SourceError):
    """A 429/5xx answer: worth another attempt, after ``Retry-After`` when the server gave one."""

    def __init__(self, shown: str, status: int, retry_after_s: float | None) -> None:
        self.status = status
        self.retry_after_s = retry_after_s
        super().__init__("{url}: HTTP {status}", url=shown, status=status)


@dataclass
class _Progress:
    attempts: int = 0
    body_bytes: int = 0


def _sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def document_name(location: str) -> str:
    """The file name part of a path or URL (what format sniffing looks at)."""
    return re.split(r"[?#]", location, maxsplit=1)[0].rstrip("/").rsplit("/", 1)[-1]


async def fetch_document(
    client: httpx.AsyncClient,
    location: str,
    policy: FetchPolicy,
    *,
    since: Validators | None = None,
    deadline: float | None = None,
) -> Document:
    """The document at ``location``; ``deadline`` is an event-loop time shared by a source."""
    if not is_url(location):
        if _small_file(location):  # on the loop: a thread hop costs more than the read
            document = _read_file(location, policy.max_body_bytes)
        else:
            document = await asyncio.to_thread(_read_file, location, policy.max_body_bytes)
        return _unless_same(document, since)
    loop_deadline = deadline if deadline is not None else _loop_time() + policy.deadline_s
    progress = _Progress()
    try:
        async with asyncio.timeout_at(loop_deadline):
            document = await _get_with_retries(client, location, policy, since, progress)
    except TimeoutError:
        raise SourceError(
            "{location}: no complete answer within the {deadline_s:g} s deadline "
            "({attempts} attempt(s), {body_bytes} body bytes received)",
            location=policy.shown(location),
            deadline_s=policy.deadline_s,
            attempts=progress.attempts,
            body_bytes=progress.body_bytes,
        ) from None
    if not document.not_modified and not document.content:
        raise SourceError(
            "{location}: the server sent an empty body (HTTP 200, 0 bytes)",
            location=policy.shown(location),
        )
    return _unless_same(document, since)


def _unless_same(document: Document, since: Validators | None) -> Document:
    """``document`` marked not modified when its bytes hash like the previous fetch's."""
    if since is not None and since.sha256 and since.sha256 == document.validators.sha256:
        return replace(document, content=b"", validators=since, not_modified=True)
    return document


def _loop_time() -> float:
    return asyncio.get_running_loop().time()


SMALL_FILE_BYTES = 64 * 1024  # as a sheet parsed on the event loop (providers.base)


def _small_file(location: str) -> bool:
    """A regular file of at most :data:`SMALL_FILE_BYTES` (a source's profile, a small sheet):
    read on the event loop (about 25 µs of CPU, against 45–150 µs for the hop to a thread and
    back). Anything else, or a path that cannot be looked at, is read in a thread."""
    try:
        info = os.stat(location)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size <= SMALL_FILE_BYTES


def _read_file(location: str, max_bytes: int) -> Document:
    """The file's bytes, read no further than one past ``max_bytes`` (a file that grows
    while it is read stops there too); a pipe or a device is refused: it may never end."""
    path = Path(location)
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise SourceError(
                "{location}: not a regular file; expected a file (a pipe or a device has no "
                "end to limit)",
                location=location,
            )
        content = read_limited(path, max_bytes)
        if content is None:
            raise SourceError(
                "{location}: {size} bytes; the limit is {max_bytes} bytes (max_body_mb)",
                location=location,
                size=path.stat().st_size,
                max_bytes=max_bytes,
            )
    except OSError as exc:
        raise SourceError(
            "{location}: cannot read the file ({reason})", location=location, reason=os_reason(exc)
        ) from None
    if not content:
        raise SourceError("{location}: the file is empty", location=location)
    return Document(location, content, Validators(sha256=_sha256(content)))


async def _get_with_retries(
    client: httpx.AsyncClient,
    url: str,
    policy: FetchPolicy,
    since: Validators | None,
    progress: _Progress,
) -> Document:
    try:
        for attempt in range(1, policy.retries + 2):
            progress.attempts += 1
            try:
                return await _get_once(client, url, policy, since, progress)
            except Exception as exc:
                if attempt > policy.retries or not _is_retryable(exc):
                    raise
                await asyncio.sleep(_backoff_s(policy.backoff_s, attempt, exc))
    except RetryableStatus as exc:
        raise SourceError(
            "{reason} after {attempts} attempt(s)", reason=exc.msg, attempts=progress.attempts
        ) from None
    except httpx.HTTPError as exc:
        raise SourceError(
            "{url}: {reason} after {attempts} attempt(s) ({body_bytes} body bytes received)",
            url=policy.shown(url),
            reason=_describe(exc),
            attempts=progress.attempts,
            body_bytes=progress.body_bytes,
        ) from None
    raise AssertionError("the last attempt either returns or raises")  # pragma: no cover


async def _get_once(
    client: httpx.AsyncClient,
    url: str,
    policy: FetchPolicy,
    since: Validators | None,
    progress: _Progress,
) -> Document:
    headers = {**policy.request_headers(url), **(since.request_headers() if since else {})}
    if not any(name.lower() == "accept-encoding" for name in headers):
        headers["Accept-Encoding"] = ACCEPT_ENCODING  # not br or zstd: see _read_body
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        request = client.build_request("GET", current, headers=headers, timeout=policy.timeout())
        response = await client.send(request, stream=True, follow_redirects=False)
        try:
            if response.is_redirect and "location" in response.headers:
                target = urljoin(current, response.headers["location"])
                await check_redirect(
                    url, current, target, policy.redirect_hosts, policy.public_params
                )
                if origin(target) != origin(current):
                    headers.pop("Authorization", None)  # a token is for its own host only
                current = target
                continue
            if response.status_code == 304 and since is not None:
                return Document(url, b"", since, not_modified=True)
            if response.status_code >= 300:  # (the masked URL is made only when needed)
                _raise_for_status(policy.shown(url), response)
            shown = partial(policy.shown, url)
            content = await _read_body(shown, response, policy.max_body_bytes, progress)
        finally:
            await response.aclose()
        etag, modified = response.headers.get("etag"), response.headers.get("last-modified")
        return Document(url, content, Validators(etag, modified, _sha256(content)))
    raise SourceError(
        "{url}: more than {limit} redirects", url=policy.shown(url), limit=MAX_REDIRECTS
    )


async def _read_body(
    shown: Callable[[], str], response: httpx.Response, limit: int, progress: _Progress
) -> bytes:
    """The body, decompressed, stopped as soon as it passes ``limit`` bytes either way.

    The raw bytes are decompressed here, never more than one byte past the limit
    (``max_length``): httpx would inflate each network read whole, and 64 KiB of a gzip bomb
    are 64 MiB (of a brotli bomb, far more), whatever the limit. Only the encodings asked for
    (:data:`ACCEPT_ENCODING`) are read. ``shown()``: the URL as messages show it.
    """
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_big(shown(), Msg("Content-Length says {size} bytes", size=declared), limit)
    if response.is_stream_consumed:  # read already (a transport that answers from memory)
        if len(response.content) > limit:
            raise _too_big(shown(), Msg("more than {limit} bytes arrived", limit=limit), limit)
        return response.content
    decoder = _decoder(shown, response.headers.get("content-encoding", ""))
    buffer = bytearray()
    async for chunk in response.aiter_raw():
        progress.body_bytes = response.num_bytes_downloaded
        if response.num_bytes_downloaded > limit:
            raise _too_big(shown(), Msg("more than {limit} bytes arrived", limit=limit), limit)
        buffer += decoder.decompress(chunk, limit + 1 - len(buffer)) if decoder else chunk
        if len(buffer) > limit or (decoder is not None and decoder.unconsumed_tail):
            raise _too_big(
                shown(), Msg("more than {limit} bytes once decompressed", limit=limit), limit
            )
    if decoder is not None:
        buffer += decoder.flush()
    return bytes(buffer)


ACCEPT_ENCODING = "gzip, deflate"  # what _read_body decompresses within the limit
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def _decoder(shown: Callable[[], str], encoding: str) -> _Inflater | None:
    """A decompressor for the body's ``Content-Encoding`` (None: the bytes as they are)."""
    name = encoding.strip().lower()
    if name in ("", "identity"):
        return None
    if name not in _WBITS:
        raise SourceError(
            "{url}: the server sent Content-Encoding {encoding}, which was not asked for; "
            "expected {accepted} or none",
            url=shown(),
            encoding=encoding[:40],
            accepted=ACCEPT_ENCODING,
        )
    return _Inflater(_WBITS[name])


class _Inflater:
    """zlib's decompressor; a ``deflate`` body without its zlib header is raw deflate (as
    httpx and browsers read it)."""

    def __init__(self, wbits: int) -> None:
        self.wbits = wbits
        self.started = False
        self.inner = zlib.decompressobj(wbits)

    @property
    def unconsumed_tail(self) -> bytes:
        return self.inner.unconsumed_tail

    def decompress(self, data: bytes, max_length: int) -> bytes:
        try:
            out = self.inner.decompress(data, max_length)
        except zlib.error as exc:
            if self.started or self.wbits != zlib.MAX_WBITS:
                raise httpx.DecodingError(str(exc)) from None  # _describe words it
            self.inner, self.wbits = zlib.decompressobj(-zlib.MAX_WBITS), -zlib.MAX_WBITS
            out = self.inner.decompress(data, max_length)
        self.started = True
        return out

    def flush(self) -> bytes:
        return self.inner.flush()


def _too_big(shown: str, what: Msg, limit: int) -> SourceError:
    if limit % 2**20:  # a limit under a MiB, or not a whole number of them, in bytes
        return SourceError(
            "{url}: body too large ({what}); the limit is {limit} bytes (max_body_mb)",
            url=shown,
            what=what,
            limit=limit,
        )
    return SourceError(
        "{url}: body too large ({what}); the limit is {limit} MiB (max_body_mb)",
        url=shown,
        what=what,
        limit=limit // 2**20,
    )


def _raise_for_status(shown: str, response: httpx.Response) -> None:
    """``shown``: the URL already masked (:meth:`FetchPolicy.shown`)."""
    status = response.status_code
    if status in RETRY_STATUSES:
        raise RetryableStatus(shown, status, parse_retry_after(response.headers.get("retry-after")))
    if status >= 300:
        raise SourceError(
            "{url}: HTTP {status} {reason_phrase}; expected 200",
            url=shown,
            status=status,
            reason_phrase=response.reason_phrase,
        )


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    text = value.strip()
    if text.isdigit():
        return min(float(text), MAX_RETRY_AFTER_S)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    now = now or datetime.now(UTC)
    return min(max((when - now).total_seconds(), 0.0), MAX_RETRY_AFTER_S)


def _is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, RetryableStatus):
        return True
    return isinstance(exc, httpx.TransportError) and not isinstance(exc, httpx.UnsupportedProtocol)


def _backoff_s(base_s: float, attempt: int, exc: Exception) -> float:
    """Seconds before the attempt after ``attempt`` (1, 2, …) failed with ``exc``: the
    server's ``Retry-After`` when it gave one, else ``base_s`` doubled per attempt, ±25 %."""
    if isinstance(exc, RetryableStatus) and exc.retry_after_s is not None:
        return exc.retry_after_s
    exponential = base_s * 2 ** (attempt - 1)
    return float(exponential * random.uniform(0.75, 1.25))


def _describe(exc: httpx.HTTPError) -> Msg:
    kinds = {
        httpx.ConnectTimeout: Msg("connect timeout ({detail})"),
        httpx.ReadTimeout: Msg("read timeout (no byte within the read timeout) ({detail})"),
        httpx.ConnectError: Msg("cannot connect ({detail})"),
        httpx.RemoteProtocolError: Msg("connection closed mid-answer ({detail})"),
        httpx.ReadError: Msg("connection reset while reading ({detail})"),
    }
    detail = str(exc) or type(exc).__name__
    for kind, words in kinds.items():
        if isinstance(exc, kind):
            return Msg(words.text, detail=detail)
    return Msg("{reason}", reason=f"{type(exc).__name__}: {exc}")
