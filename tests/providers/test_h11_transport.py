"""The refresh slots' HTTP transport (:mod:`providers.h11_transport`) against real loopback
servers: keep-alive, bodies (sized, chunked, none), a connection closed while idle, cut
bodies, timeouts, refused connections, request bodies and TLS."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest

from providers.h11_transport import H11Transport

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


class RawServer:
    """An asyncio server on 127.0.0.1 that hands each connection to ``handler`` (with the
    connection's number) and counts connections."""

    def __init__(self, handler: Handler, tls: ssl.SSLContext | None = None) -> None:
        self.handler, self.tls = handler, tls
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> RawServer:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self.server is not None
        self.server.close()

    @property
    def url(self) -> str:
        assert self.server is not None
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await self.handler(reader, writer, self.connections)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


async def read_head(reader: asyncio.StreamReader) -> bytes:
    return await reader.readuntil(b"\r\n\r\n")


def ok(body: bytes, *extra: str) -> bytes:
    head = ["HTTP/1.1 200 OK", f"Content-Length: {len(body)}", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), timeout=20))


def client(**keys: object) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=H11Transport(keys.pop("tls", None)), **keys)  # type: ignore[arg-type]


def test_requests_to_one_origin_share_one_kept_alive_connection() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, _: int) -> None:
        while True:
            head = await read_head(reader)
            writer.write(ok(head.split(b" ")[1]))
            await writer.drain()

    async def scenario() -> None:
        async with RawServer(handler) as server, client() as http:
            bodies = [(await http.get(f"{server.url}/n{i}")).content for i in range(3)]
            assert bodies == [b"/n0", b"/n1", b"/n2"]
            assert server.connections == 1

    run(scenario)


def test_a_chunked_body_and_an_unread_304_keep_the_connection() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, _: int) -> None:
        await read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        writer.write(b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        await read_head(reader)
        writer.write(b'HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\n\r\n')
        await read_head(reader)
        writer.write(ok(b"third"))
        await writer.drain()
        await reader.read()

    async def scenario() -> None:
        async with RawServer(handler) as server, client() as http:
            assert (await http.get(server.url)).text == "hello world"
            request = http.build_request("GET", server.url)
            not_modified = await http.send(request, stream=True)
            assert not_modified.status_code == 304
            assert not_modified.headers["etag"] == '"v1"'
            await not_modified.aclose()  # its (empty) body never read
            assert (await http.get(server.url)).text == "third"
            assert server.connections == 1

    run(scenario)


def test_a_connection_the_server_closed_while_idle_is_replaced_for_a_get() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await read_head(reader)
        writer.write(ok(f"connection {n}".encode()))  # keep-alive promised, then closed
        await writer.drain()

    async def scenario() -> None:
        async with RawServer(handler) as server, client() as http:
            assert (await http.get(server.url)).text == "connection 1"
            await asyncio.sleep(0.05)  # the close reaches the client while it is idle
            assert (await http.get(server.url)).text == "connection 2"
            assert server.connections == 2

    run(scenario)


def test_a_get_on_a_connection_closed_as_it_was_reused_is_sent_again_once() -> None:
    """The server reads the second request, then closes without a byte: the race of an idle
    close with a request leaving. A GET goes again on a new connection; a POST fails."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await read_head(reader)
        writer.write(ok(f"connection {n}".encode()))
        await writer.drain()
        await read_head(reader)  # then close, answering nothing

    async def scenario() -> None:
        async with RawServer(handler) as server, client() as http:
            assert (await http.get(server.url)).text == "connection 1"
            assert (await http.get(server.url)).text == "connection 2"
            with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
                await http.post(server.url, content=b"x")

    run(scenario)


def test_a_body_cut_short_is_a_remote_protocol_error_and_closes_the_connection() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await read_head(reader)
        if n == 1:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b")
        else:
            writer.write(ok(b"whole"))
        await writer.drain()

    async def scenario() -> None:
        async with RawServer(handler) as server, client() as http:
            with pytest.raises(httpx.RemoteProtocolError):
                await http.get(server.url)
            assert (await http.get(server.url)).text == "whole"
            assert server.connections == 2

    run(scenario)


def test_timeouts_and_refused_connections_are_httpx_errors() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, _: int) -> None:
        await reader.read()

    async def scenario() -> None:
        async with RawServer(silent) as server, client(timeout=0.3) as http:
            with pytest.raises(httpx.ReadTimeout):
                await http.get(server.url)
            port = server.server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        with pytest.raises(httpx.ConnectError):
            async with client() as http:
                await http.get(f"http://127.0.0.1:{port}/")  # closed now: refused

    run(scenario)


def test_a_request_body_is_sent_and_a_large_answer_arrives_whole() -> None:
    big = bytes(range(256)) * 20_000  # 5 MB: reading pauses and resumes on the way

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, _: int) -> None:
        head = await read_head(reader)
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        sent = await reader.readexactly(length)
        writer.write(ok(sent[::-1] + big))
        await writer.drain()

    async def scenario() -> None:
        async with RawServer(handler) as server, client() as http:
            answer = await http.post(server.url, content=b"abc")
            assert answer.content == b"cba" + big

    run(scenario)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_https_with_the_given_context(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    command = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
    command += f" -keyout {key} -out {cert} -days 1 -subj /CN=t"
    command += " -addext subjectAltName=IP:127.0.0.1"
    subprocess.run(
        command.split(),
        check=True,
        capture_output=True,
    )
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(cert, key)
    trusting = ssl.create_default_context(cafile=str(cert))

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, _: int) -> None:
        while True:
            await read_head(reader)
            writer.write(ok(b"secret"))
            await writer.drain()

    async def scenario() -> None:
        async with RawServer(handler, tls=served) as server:
            async with client(tls=trusting) as http:
                assert [(await http.get(server.url)).text for _ in range(2)] == ["secret"] * 2
                assert server.connections == 1
            async with client(tls=ssl.create_default_context()) as http:
                with pytest.raises(httpx.ConnectError):  # not trusted
                    await http.get(server.url)

    run(scenario)
