"""A small ring all-reduce over TCP (numpy over sockets): the inter-node bandwidth test's
collective where PyTorch is not installed.

The ranks meet at rank 0 (``master``): each sends where its own listener is, rank 0 answers
with everyone's; each rank then connects to the next rank's listener and accepts the previous
one. :func:`ring_allreduce` sums a float32 buffer in place with the classic two passes of
``world − 1`` steps (reduce-scatter, then all-gather), each step sending one chunk right while
receiving one from the left, so every rank moves ``2 (world − 1) / world`` of the buffer: the
same traffic as NCCL's ring, whose bus bandwidth nccl-tests defines as ``algbw × 2(n−1)/n``
(NVIDIA/nccl-tests, doc/PERFORMANCE.md, "AllReduce").
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

CONNECT_RETRY_S = 0.05


@dataclass
class Ring:
    """This rank's two neighbours: ``right`` (we send to it) and ``left`` (we receive)."""

    rank: int
    world: int
    right: socket.socket
    left: socket.socket

    def close(self) -> None:
        for sock in (self.right, self.left):
            sock.close()


def _connect(host: str, port: int, deadline: float) -> socket.socket:
    """Connect, retrying until ``deadline`` (the peer may not listen yet)."""
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=max(0.1, deadline - time.time()))
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(CONNECT_RETRY_S)
            continue
        sock.settimeout(max(1.0, deadline - time.time()))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock


def _send_line(sock: socket.socket, document: object) -> None:
    sock.sendall(json.dumps(document).encode() + b"\n")


def _read_line(sock: socket.socket) -> Any:
    data = b""
    while not data.endswith(b"\n"):
        part = sock.recv(4096)
        if not part:
            raise RuntimeError("peer closed during the rendezvous")
        data += part
    return json.loads(data)


def _addresses(
    rank: int, world: int, master: tuple[str, int], me: tuple[str, int], deadline: float
) -> list[list[object]]:
    """Every rank's listener ``[host, port]``, exchanged through rank 0."""
    if rank != 0:
        with _connect(*master, deadline) as sock:
            _send_line(sock, {"rank": rank, "address": list(me)})
            answer = _read_line(sock)
        if not isinstance(answer, list) or len(answer) != world:
            raise RuntimeError(f"rank {rank}: a bad address table from rank 0")
        return [list(entry) for entry in answer]
    table: list[list[object]] = [[] for _ in range(world)]
    table[0] = list(me)
    with socket.create_server(("", master[1]), reuse_port=False) as server:
        server.settimeout(max(1.0, deadline - time.time()))
        peers = []
        for _ in range(world - 1):
            peer, _where = server.accept()
            hello = _read_line(peer)
            assert isinstance(hello, dict)
            table[int(hello["rank"])] = list(hello["address"])
            peers.append(peer)
        for peer in peers:
            _send_line(peer, table)
            peer.close()
    return table


def connect_ring(
    rank: int, world: int, master: tuple[str, int], host: str, timeout_s: float = 60.0
) -> Ring:
    """This rank's place in the ring; ``host`` is the name the other ranks reach it by."""
    deadline = time.time() + timeout_s
    with socket.create_server(("", 0)) as listener:
        listener.settimeout(timeout_s)
        table = _addresses(rank, world, master, (host, listener.getsockname()[1]), deadline)
        right_host, right_port = table[(rank + 1) % world]
        right = _connect(str(right_host), int(str(right_port)), deadline)
        right.sendall(struct.pack("!I", rank))
        left, _where = listener.accept()
    left.settimeout(max(1.0, deadline - time.time()))
    (sender,) = struct.unpack("!I", _recv_exact(left, 4))
    if sender != (rank - 1) % world:
        raise RuntimeError(f"rank {rank}: expected rank {(rank - 1) % world}, got {sender}")
    return Ring(rank, world, right, left)


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    buffer = bytearray(size)
    _recv_into(sock, memoryview(buffer))
    return bytes(buffer)


def _recv_into(sock: socket.socket, view: memoryview) -> None:
    got = 0
    while got < len(view):
        count = sock.recv_into(view[got:])
        if count == 0:
            raise RuntimeError("peer closed during the all-reduce")
        got += count


def _exchange(ring: Ring, outgoing: np.ndarray, incoming: np.ndarray) -> None:
    """Send ``outgoing`` right while receiving ``incoming`` from the left."""
    errors: list[BaseException] = []

    def send() -> None:
        try:
            ring.right.sendall(outgoing.data.cast("B"))
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    sender = threading.Thread(target=send)
    sender.start()
    _recv_into(ring.left, incoming.data.cast("B"))
    sender.join()
    if errors:
        raise errors[0]


def ring_allreduce(ring: Ring, buffer: np.ndarray) -> None:
    """Sum ``buffer`` (float32, contiguous) over every rank, in place."""
    world, rank = ring.world, ring.rank
    if world == 1:
        return
    chunks = np.array_split(buffer, world)
    scratch = np.empty(max(len(c) for c in chunks), dtype=buffer.dtype)
    for step in range(world - 1):  # reduce-scatter: rank r ends owning chunk (r + 1) % world
        out, into = (rank - step) % world, (rank - step - 1) % world
        incoming = scratch[: len(chunks[into])]
        _exchange(ring, np.ascontiguousarray(chunks[out]), incoming)
        chunks[into] += incoming
    for step in range(world - 1):  # all-gather: pass the finished chunks round
        out, into = (rank - step + 1) % world, (rank - step) % world
        incoming = scratch[: len(chunks[into])]
        _exchange(ring, np.ascontiguousarray(chunks[out]), incoming)
        chunks[into][:] = incoming
