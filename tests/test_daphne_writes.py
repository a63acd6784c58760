"""Twisted's TCP connections write at once what the kernel takes (config/daphne_writes.py): on a
real socket pair, with a reactor that records what is asked of it."""

from __future__ import annotations

import socket

import pytest
from twisted.internet import tcp
from twisted.internet.protocol import Protocol

from config import daphne_writes


class Reactor:
    """What a connection asks of the reactor: to be told when it can write."""

    def __init__(self) -> None:
        self.writers: list[object] = []

    def addWriter(self, writer) -> None:  # noqa: N802 (Twisted's names)
        if writer not in self.writers:
            self.writers.append(writer)

    def removeWriter(self, writer) -> None:  # noqa: N802
        if writer in self.writers:
            self.writers.remove(writer)


@pytest.fixture
def connection():
    assert daphne_writes.install()
    ours, peer = socket.socketpair()
    reactor = Reactor()
    conn = tcp.Connection(ours, Protocol(), reactor)
    conn.connected = True
    peer.setblocking(False)
    yield conn, peer, reactor
    ours.close()
    peer.close()


def drain(peer: socket.socket) -> bytes:
    chunks = []
    while True:
        try:
            chunk = peer.recv(1 << 20)
        except BlockingIOError:
            return b"".join(chunks)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def test_a_frame_goes_out_at_once(connection):
    conn, peer, reactor = connection
    conn.write(b"\x81\x05hello")
    assert drain(peer) == b"\x81\x05hello"
    assert reactor.writers == [], "no turn of the loop was needed"


def test_what_the_kernel_does_not_take_waits_its_turn_in_order(connection):
    conn, peer, reactor = connection
    big = bytes(range(256)) * 40_000  # 10 MB: far more than a socket buffer
    conn.write(big)
    assert reactor.writers == [conn], "the rest waits for the socket to be writable"
    conn.write(b"after")  # queued behind the rest, never ahead of it
    received = drain(peer)
    while reactor.writers:
        conn.doWrite()
        received += drain(peer)
    assert received == big + b"after"


def test_tls_connections_keep_twisteds_path(connection):
    conn, peer, reactor = connection
    conn.TLS = True
    conn.protocol = type("TLSLayer", (), {"write": lambda self, data: sent.append(data)})()
    sent: list[bytes] = []
    conn.write(b"secret")
    assert sent == [b"secret"] and drain(peer) == b""


def test_a_write_after_an_error_is_twisteds_to_report(connection):
    conn, peer, reactor = connection
    peer.close()
    conn.write(b"x" * 10)  # EPIPE: left to Twisted, which finds it on its own turn
    assert reactor.writers == [conn]


def test_it_can_be_left_out(monkeypatch):
    monkeypatch.setenv("DAPHNE_IMMEDIATE_WRITES", "0")
    assert not daphne_writes.install()
