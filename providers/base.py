"""The adapter interface: one source of prices in, offers (and maybe a provider profile) out.

An adapter gets its ``[[source]]`` settings and an injected :class:`httpx.AsyncClient`, and has
one method, :meth:`Adapter.fetch`. It returns data and never writes to the database; the
refresh stores what it returns. Every document of one source shares one deadline
(``timeout_s``: connect to last byte, retries included); parsing happens after it, within
``parse_timeout_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar
from zoneinfo import ZoneInfo

import httpx

from comparator.catalog.models import OfferColumns, OfferIn
from comparator.domain.profile import ProviderProfile, loads_profile
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import SourceError
from providers.daemon_pool import DaemonPool
from providers.fetch import Document, FetchPolicy, Validators, fetch_document
from providers.parse_deadline import ParseCancelled, call_with_deadline
from providers.phase_clock import phase
from providers.urls import mask_text

T = TypeVar("T")
PARSE_STOP_GRACE_S = 5.0  # how long a parse told to stop may take to unwind


def _retrieve(work: asyncio.Future[Any]) -> None:
    if not work.cancelled():
        work.exception()


_PARSE_THREADS = DaemonPool("suanli-parse")


def _in_daemon_thread(function: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """``function(*args)`` in a daemon thread (with this context; :mod:`providers.daemon_pool`
    keeps them between parses), as a future of the running loop. Unlike the loop's executor,
    whose threads the interpreter joins at exit, a daemon thread still running when the
    process ends ends with it."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = context.run(function, *args)
        except BaseException as exc:  # handed to the waiter, as an executor does
            error = exc
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    _PARSE_THREADS.submit(run)
    return future


INLINE_PARSE_MAX_BYTES = 64 * 1024
PARSE_ON_LOOP = "parse_on_loop"  # the phase of the parses made on the event loop
_ZIP = b"PK\x03\x04"


def _small_plain(content: object) -> bool:
    """Whether ``content`` is parsed on the event loop rather than in a thread: bytes of at
    most :data:`INLINE_PARSE_MAX_BYTES` (CSV or JSON of a few hundred rows: a few ms at most)
    that are not a ZIP (an XLSX's few kilobytes may unpack to far more work). The hand-off
    to a thread and back cost more than such a parse: measured on 2,000 sources of 100 offers
    (one worker, PostgreSQL), 8.1–8.8 ms of worker CPU per source inline against 9.0–9.7 ms
    in a thread."""
    return (
        isinstance(content, bytes)
        and len(content) <= INLINE_PARSE_MAX_BYTES
        and not content.startswith(_ZIP)
    )


def _timed_parse(seconds: float, stop: threading.Event, parse: Callable[..., T], *args: Any) -> T:
    with phase("parse"):
        return call_with_deadline(seconds, stop, parse, *args)


@dataclass(frozen=True)
class SourceSpec:
    """One ``[[source]]`` of a sources file, with paths already made absolute."""

    provider: str
    adapter: str
    location: str  # URL or absolute path of the price data
    profile: str | None = None  # URL or absolute path of a provider profile (TOML)
    policy: FetchPolicy = field(default_factory=FetchPolicy)
    options: Mapping[str, Any] = field(default_factory=dict)  # adapter-specific keys
    origin: str = ""  # "sources.toml [[source]] #2" — where errors point
    timezone: ZoneInfo = DEFAULT_TIMEZONE

    @property
    def where(self) -> str:
        return self.origin or f"source {self.provider}"

    @property
    def shown(self) -> str:
        """The location as stored and printed: user-info, query values (but ``public_params``)
        and fragment masked."""
        return self.policy.shown(self.location)

    def scrub(self, text: str) -> str:
        """``text`` with this source's URLs masked and its secrets (token, headers) removed."""
        return mask_text(
            text,
            (self.location, self.profile or ""),
            self.policy.secrets(),
            self.policy.public_params,
        )


@dataclass(frozen=True)
class AdapterResult:
    """What one fetch produced. ``not_modified``: the price data is what was stored last time."""

    profile: ProviderProfile | None
    offers: list[OfferIn] | OfferColumns  # columns: bulk sheets, without 10⁶ row objects
    validators: Validators = field(default_factory=Validators)
    not_modified: bool = False
    notes: tuple[str, ...] = ()  # rows deliberately left out, and why

    def offer_list(self) -> list[OfferIn]:
        """The offers as objects (built from columns when the adapter returned columns)."""
        return self.offers.offers() if isinstance(self.offers, OfferColumns) else self.offers


class Adapter(ABC):
    """Base of every adapter. Subclasses set :attr:`name` and implement :meth:`fetch`."""

    name: ClassVar[str]
    #: adapter-specific ``[[source]]`` keys → one-line help (the sources file rejects others)
    option_help: ClassVar[Mapping[str, str]] = {}

    def __init__(
        self,
        source: SourceSpec,
        client: httpx.AsyncClient,
        profiles: Mapping[str, ProviderProfile] | None = None,
    ) -> None:
        self.source = source
        self.client = client
        self.profiles = profiles or {}  # profiles already in the catalog, read-only
        self._deadline: float | None = None

    @classmethod
    def check_options(cls, options: Mapping[str, Any], where: str) -> None:
        """Raise :class:`InputError` naming ``where`` when an option value is unusable.

        Called when the sources file is read; the default accepts any value.
        """
        return None

    @abstractmethod
    async def fetch(self, since: Validators | None = None) -> AdapterResult:
        """Offers and provider data; ``since`` is what the last good fetch saw of the data."""

    async def download(self, location: str, since: Validators | None = None) -> Document:
        """A document, within the deadline this source shares across its documents."""
        if self._deadline is None:
            self._deadline = asyncio.get_running_loop().time() + self.source.policy.deadline_s
        with phase("fetch", cpu=False):  # on the event loop: its CPU is counted as a whole
            return await fetch_document(
                self.client, location, self.source.policy, since=since, deadline=self._deadline
            )

    async def parse_within(self, parse: Callable[..., T], *args: Any) -> T:
        """``parse(*args)`` in a thread, given at most the source's ``parse_timeout_s``; a
        small sheet that is not a ZIP (XLSX) on the event loop itself (:func:`_small_plain`).

        On time-out the parse is told to stop (:mod:`providers.parse_deadline`: its loops
        check every few thousand rows) and is given ``PARSE_STOP_GRACE_S`` to unwind, so its
        memory is freed before the source fails. The thread is a daemon: a parse stuck in
        one long library call (the sheet limits bound it) never keeps the process from
        exiting.
        """
        limit = self.source.policy.parse_timeout_s
        stop = threading.Event()
        if args and _small_plain(args[0]):
            try:  # the loop thread's CPU: the refresh counts it as parse, not as event_loop
                with phase(PARSE_ON_LOOP):
                    return _timed_parse(limit, stop, parse, *args)
            except ParseCancelled:
                raise self._parse_too_long(limit) from None
        work = _in_daemon_thread(_timed_parse, limit, stop, parse, *args)
        try:
            done, _ = await asyncio.wait({work}, timeout=limit)
            if done:
                result: T = work.result()
                return result
            stop.set()
            await asyncio.wait({work}, timeout=PARSE_STOP_GRACE_S)
            work.add_done_callback(_retrieve)  # its ParseCancelled is expected, not logged
        except ParseCancelled:  # stopped by its deadline just as the wait ended
            pass
        finally:
            stop.set()  # the refresh was cancelled, or the parse is over: stop any parse
        raise self._parse_too_long(limit) from None

    def _parse_too_long(self, limit: float) -> SourceError:
        return SourceError(
            "{where}: parsing took longer than parse_timeout_s = {limit:g} s",
            where=self.source.where,
            limit=limit,
        )

    async def fetch_profile(self) -> ProviderProfile | None:
        """The source's ``profile`` (TOML, path or URL), or ``None`` when it names none."""
        if self.source.profile is None:
            return None
        document = await self.download(self.source.profile)
        return loads_profile(document.content, self.source.policy.shown(self.source.profile))

    def known_profile(self, fetched: ProviderProfile | None) -> ProviderProfile | None:
        """The provider's profile: the one fetched now, else the one in the catalog."""
        return fetched or self.profiles.get(self.source.provider)
