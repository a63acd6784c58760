"""Small text frames read in one step (config/daphne_reads.py): for any stream of frames cut
anywhere, the same messages, counters, replies and errors as autobahn reading it alone."""

from __future__ import annotations

import os
import random
import struct

import pytest
from autobahn.twisted.websocket import WebSocketServerFactory, WebSocketServerProtocol
from twisted.internet.testing import StringTransport

from config import daphne_reads

HANDSHAKE = (
    b"GET /ws/game/1/ HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nUpgrade: websocket\r\n"
    b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    b"Sec-WebSocket-Version: 13\r\n\r\n"
)


class Autobahn(WebSocketServerProtocol):
    """autobahn's own reading, recording what reaches the application."""

    def onConnect(self, request):
        self.heard = []

    def onMessage(self, payload, isBinary):
        self.heard.append((payload, isBinary))


class ReadHere(Autobahn):
    pass


daphne_reads.install(ReadHere)


class Transport(StringTransport):
    aborted = False

    def unregisterProducer(self):
        self.producer = None

    def abortConnection(self):
        self.aborted = self.disconnecting = True


def opened(cls, **options):
    factory = WebSocketServerFactory("ws://127.0.0.1:9000")
    factory.protocol = cls
    factory.setProtocolOptions(openHandshakeTimeout=0, closeHandshakeTimeout=0, **options)
    protocol = factory.buildProtocol(("127.0.0.1", 0))
    transport = Transport()
    protocol.makeConnection(transport)
    protocol.dataReceived(HANDSHAKE)
    assert protocol.state == protocol.STATE_OPEN
    transport.clear()
    return protocol, transport


def frame(
    payload: bytes, opcode: int = 1, fin: bool = True, masked: bool = True, rsv: int = 0
) -> bytes:
    head = bytes(((0x80 if fin else 0) | rsv << 4 | opcode,))
    size = len(payload)
    flag = 0x80 if masked else 0
    if size < 126:
        head += bytes((flag | size,))
    elif size < 65536:
        head += bytes((flag | 126,)) + struct.pack("!H", size)
    else:
        head += bytes((flag | 127,)) + struct.pack("!Q", size)
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def text(rng: random.Random, size: int) -> bytes:
    return (
        "".join(rng.choice('abcdé€😀{}":, ') for _ in range(size))
        .encode()[:size]
        .decode("utf-8", "ignore")
        .encode()
    )


def some_frames(rng: random.Random) -> list[bytes]:
    """Mostly what a page sends (small text messages), with everything else mixed in."""
    kinds = ["text"] * 12 + [
        "long", "empty", "binary", "fragmented", "ping", "pong", "bad utf-8", "cut utf-8",
        "unmasked", "rsv", "close", "huge header", "not minimal",
    ]  # fmt: skip
    frames = []
    for _ in range(rng.randint(1, 12)):
        kind = rng.choice(kinds)
        if kind == "text":
            frames.append(frame(text(rng, rng.choice([1, 40, 125, 126, 300]))))
        elif kind == "long":
            frames.append(frame(text(rng, rng.choice([4096, 4097, 70000]))))
        elif kind == "empty":
            frames.append(frame(b""))
        elif kind == "binary":
            frames.append(frame(os.urandom(30), opcode=2))
        elif kind == "fragmented":
            whole = "mossa: e2e4 €".encode()
            frames += [frame(whole[:9], fin=False), frame(whole[9:], opcode=0)]
        elif kind == "ping":
            frames.append(frame(b"are you there", opcode=9))
        elif kind == "pong":
            frames.append(frame(b"", opcode=10))
        elif kind == "bad utf-8":
            frames.append(frame(b'{"move": "\xff\xfe"}'))
        elif kind == "cut utf-8":
            frames.append(frame("€".encode()[:2]))
        elif kind == "unmasked":
            frames.append(frame(b'{"type": "sync"}', masked=False))
        elif kind == "rsv":
            frames.append(frame(b'{"type": "sync"}', rsv=2))
        elif kind == "close":
            frames.append(frame(struct.pack("!H", 1000) + b"bye", opcode=8))
        elif kind == "huge header":
            frames.append(bytes((0x81, 0xFF)) + struct.pack("!Q", 1 << 40) + os.urandom(4))
        elif kind == "not minimal":
            frames.append(bytes((0x81, 0x80 | 126)) + struct.pack("!H", 5) + bytes(4) + b"hello")
    return frames


def cut(rng: random.Random, stream: bytes) -> list[bytes]:
    """The stream as it might arrive: whole, frame by frame, or cut anywhere."""
    points = sorted(rng.sample(range(1, len(stream)), min(len(stream) - 1, rng.randint(0, 4))))
    return [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]


def outcome(protocol, transport) -> tuple:
    stats = {k: v for k, v in vars(protocol.trafficStats).items() if not k.startswith("_")}
    return (
        protocol.heard,
        stats,
        protocol.state,
        protocol.failedByMe,
        transport.value(),
        transport.disconnecting,
        transport.aborted,
        bytes(protocol.data) if protocol.data else b"",
    )


@pytest.mark.parametrize("seed", range(300))
def test_any_stream_is_read_as_autobahn_reads_it(seed):
    rng = random.Random(seed)
    options = rng.choice([{}, {"maxMessagePayloadSize": 100}, {"maxFramePayloadSize": 200}])
    stream = b"".join(some_frames(rng))
    chunks = cut(rng, stream)
    results = []
    for cls in (Autobahn, ReadHere):
        protocol, transport = opened(cls, **options)
        for chunk in chunks:
            protocol.dataReceived(chunk)
        results.append(outcome(protocol, transport))
    assert results[0] == results[1]


MOVE = b'{"type": "move", "move": "e2e4", "ply": 0}'
AWKWARD = {
    "unmasked after a move": [frame(MOVE), frame(MOVE, masked=False), frame(MOVE)],
    "reserved bits after a move": [frame(MOVE), frame(MOVE, rsv=4), frame(MOVE)],
    "invalid UTF-8 after a move": [frame(MOVE), frame(b'"\xc3\x28"'), frame(MOVE)],
    "a ping between moves": [frame(MOVE), frame(b"?", opcode=9), frame(MOVE)],
    "a close between moves": [frame(MOVE), frame(b"\x03\xe8", opcode=8), frame(MOVE)],
    "a fragment begun after a move": [frame(MOVE), frame(MOVE[:5], fin=False)],
    "a binary message between moves": [frame(MOVE), frame(MOVE, opcode=2), frame(MOVE)],
    "a reserved opcode after a move": [frame(MOVE), frame(MOVE, opcode=3)],
    "a length not minimal after a move": [
        frame(MOVE),
        bytes((0x81, 0x80 | 126)) + struct.pack("!H", 5) + bytes(4) + b"hello",
    ],
}


@pytest.mark.parametrize("frames", AWKWARD.values(), ids=AWKWARD.keys())
@pytest.mark.parametrize("whole", [True, False], ids=["in one piece", "byte by byte"])
def test_the_awkward_cases_are_read_as_autobahn_reads_them(frames, whole):
    stream = b"".join(frames)
    chunks = [stream] if whole else [stream[i : i + 1] for i in range(len(stream))]
    results = []
    for cls in (Autobahn, ReadHere):
        protocol, transport = opened(cls)
        for chunk in chunks:
            protocol.dataReceived(chunk)
        results.append(outcome(protocol, transport))
    assert results[0] == results[1]


@pytest.mark.parametrize(
    "data",
    [
        frame(MOVE, masked=False) + bytes(8),
        frame(MOVE, rsv=4),
        frame(MOVE, opcode=2),
        frame(MOVE, opcode=0),
        frame(MOVE, fin=False),
        frame(b""),
        frame(MOVE)[:-1],
        frame(bytes(5000)),
        bytes((0x81, 0x80 | 126)) + struct.pack("!H", 5) + bytes(4) + b"hello",
        bytes((0x81, 0x80 | 127)) + struct.pack("!Q", 5) + bytes(4) + b"hello",
    ],
    ids=[
        "unmasked",
        "reserved bit",
        "binary",
        "continuation",
        "not final",
        "empty",
        "incomplete",
        "over the limit",
        "length not minimal",
        "64-bit length",
    ],  # fmt: skip
)
def test_only_a_plain_text_frame_is_taken(data):
    assert daphne_reads.text_frame(data, 0, 4096) is None
    assert daphne_reads.text_frame(frame(MOVE) + data, 0, 4096) == (len(frame(MOVE)), MOVE)


def test_a_plain_frame_is_read_here(monkeypatch):
    """The plain case does not touch autobahn's frame machinery at all."""
    protocol, _transport = opened(ReadHere)
    monkeypatch.setattr(ReadHere, "processData", lambda self: pytest.fail("read by autobahn"))
    payload = '{"type": "move", "move": "e2e4", "ply": 0, "é": "€"}'.encode()
    protocol.dataReceived(frame(payload) + frame(payload))
    assert protocol.heard == [(payload, False)] * 2
    stats = protocol.trafficStats
    assert stats.incomingWebSocketMessages == stats.incomingWebSocketFrames == 2
    assert stats.incomingOctetsAppLevel == stats.incomingOctetsWebSocketLevel == 2 * len(payload)
    assert not daphne_reads.install(ReadHere)  # once only


def test_daphne_itself_is_patched():
    from daphne.ws_protocol import WebSocketProtocol

    daphne_reads.install()
    assert getattr(WebSocketProtocol.dataReceived, "read_here", False)
