"""A real HTTP server on 127.0.0.1 with fault modes, for refresh and fetch tests.

Each path answers with a list of :class:`Reply` objects, used in order (the last one repeats):
plain answers, 5xx/429 with ``Retry-After``, bodies that trickle in, connections reset in the
middle of a body, slow first bytes. ETag/Last-Modified and conditional GET are honoured.
"""

from __future__ import annotations

import socket
import struct
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # wait before the status line
    trickle_bytes: int = 0  # send the body this many bytes at a time ...
    trickle_every_s: float = 0.0  # ... with this pause between pieces
    reset_after_bytes: int | None = None  # promise the whole body, send this much, then RST


@dataclass
class Route:
    replies: list[Reply]
    etag: str | None = None
    last_modified: str | None = None
    served: int = 0

    def next_reply(self) -> Reply:
        reply = self.replies[min(self.served, len(self.replies) - 1)]
        self.served += 1
        return reply


class _Server(ThreadingHTTPServer):
    request_queue_size = 1024  # hundreds of clients connect at once in the fleet benchmark

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that gave up
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class FaultServer:
    """Threaded HTTP/1.1 server; ``set(path, ...)`` configures what a path answers."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: Counter[str] = Counter()
        self.conditional_hits: Counter[str] = Counter()
        self.request_headers: dict[str, dict[str, str]] = {}  # the last request's, per path
        self.in_flight = 0
        self.max_in_flight = 0  # most requests being answered at the same moment
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def set(
        self, path: str, *replies: Reply, etag: str | None = None, last_modified: str | None = None
    ) -> str:
        with self._lock:
            self.routes[path] = Route(list(replies), etag, last_modified)
        return self.url(path)

    def serve_file(self, path: str, file: Path, **validators: str | None) -> str:
        return self.set(path, Reply(body=file.read_bytes()), **validators)

    def start(self) -> FaultServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _route(self, path: str, headers: dict[str, str]) -> tuple[Route | None, Reply | None]:
        with self._lock:
            self.hits[path] += 1
            self.request_headers[path] = headers
            route = self.routes.get(path)
            if route is None:
                return None, None
            if _not_modified(route, headers):
                self.conditional_hits[path] += 1
                return route, None
            return route, route.next_reply()


def _not_modified(route: Route, headers: dict[str, str]) -> bool:
    if route.etag and headers.get("if-none-match") == route.etag:
        return True
    return bool(route.last_modified and headers.get("if-modified-since") == route.last_modified)


def _handler_for(server: FaultServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def do_GET(self) -> None:
            with server._lock:
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                self._get()
            finally:
                with server._lock:
                    server.in_flight -= 1

        def _get(self) -> None:
            headers = {k.lower(): v for k, v in self.headers.items()}
            route, reply = server._route(self.path, headers)
            if route is None:
                return self._answer(Reply(404, b"not found"), None)
            if reply is None:
                return self._answer(Reply(304), route)
            try:
                self._answer(reply, route)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _answer(self, reply: Reply, route: Route | None) -> None:
            time.sleep(reply.delay_s)
            self.send_response(reply.status)
            for name, value in _headers(reply, route).items():
                self.send_header(name, value)
            self.end_headers()
            if reply.status == 304:
                return
            if reply.reset_after_bytes is not None:
                return self._reset_midway(reply)
            if reply.trickle_bytes:
                return self._trickle(reply)
            self.wfile.write(reply.body)

        def _trickle(self, reply: Reply) -> None:
            for start in range(0, len(reply.body), reply.trickle_bytes):
                self.wfile.write(reply.body[start : start + reply.trickle_bytes])
                self.wfile.flush()
                time.sleep(reply.trickle_every_s)

        def _reset_midway(self, reply: Reply) -> None:
            self.wfile.write(reply.body[: reply.reset_after_bytes])
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True

    return Handler


def _headers(reply: Reply, route: Route | None) -> dict[str, str]:
    headers = {"Content-Length": str(len(reply.body))}
    if route is not None and route.etag:
        headers["ETag"] = route.etag
    if route is not None and route.last_modified:
        headers["Last-Modified"] = route.last_modified
    headers.update(reply.headers)
    return headers


@contextmanager
def fault_server() -> Iterator[FaultServer]:
    server = FaultServer().start()
    try:
        yield server
    finally:
        server.stop()
