"""Text frames daphne sends are framed in one step (config/daphne_frames.py): the same bytes
and counters as autobahn's own path, and autobahn's path whenever the case is not the plain
one."""

from __future__ import annotations

from collections import deque
from types import SimpleNamespace

import pytest
from autobahn.websocket.protocol import TrafficStats
from autobahn.websocket.protocol import WebSocketProtocol as Autobahn
from daphne.ws_protocol import WebSocketProtocol

from config import daphne_frames


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_the_frame_is_autobahns(size):
    payload = bytes(i % 251 for i in range(size))
    written = []
    stub = SimpleNamespace(
        factory=SimpleNamespace(isServer=True),
        maskServerFrames=False,
        trafficStats=TrafficStats(),
        logFrames=False,
        sendData=lambda raw, sync=False, chopsize=None: written.append(raw),
    )
    Autobahn.sendFrame(stub, opcode=1, payload=payload)
    assert daphne_frames.frame(payload) == written[0]


def open_protocol():
    protocol = WebSocketProtocol.__new__(WebSocketProtocol)
    protocol.state = WebSocketProtocol.STATE_OPEN
    protocol.client_addr = ["127.0.0.1", 1]
    protocol._perMessageCompress = None
    protocol.trackedTimings = None
    protocol.logFrames = False
    protocol.send_queue = deque()
    protocol.send_state = WebSocketProtocol.SEND_STATE_GROUND
    protocol.maskServerFrames = False
    protocol.maxMessagePayloadSize = 0
    protocol.autoFragmentSize = 0
    protocol.trafficStats = TrafficStats()
    protocol.transport = SimpleNamespace(written=[])
    protocol.transport.write = protocol.transport.written.append
    return protocol


def test_a_plain_text_message_is_written_as_one_frame(monkeypatch):
    daphne_frames.install()
    assert not daphne_frames.install()  # once only
    monkeypatch.setattr(WebSocketProtocol, "sendMessage", lambda *a, **k: pytest.fail("slow"))
    protocol = open_protocol()
    protocol.serverSend('{"type": "played", "move": "é"}')
    payload = '{"type": "played", "move": "é"}'.encode()
    assert protocol.transport.written == [bytes((0x81, len(payload))) + payload]
    stats = protocol.trafficStats
    assert stats.outgoingWebSocketMessages == stats.outgoingWebSocketFrames == 1
    assert stats.outgoingOctetsAppLevel == stats.outgoingOctetsWebSocketLevel == len(payload)
    assert stats.outgoingOctetsWireLevel == len(payload) + 2


@pytest.mark.parametrize(
    "change",
    [
        {"_perMessageCompress": object()},
        {"send_queue": deque([(b"x", False)])},
        {"maxMessagePayloadSize": 3},
        {"autoFragmentSize": 3},
        {"logFrames": True},
        {"maskServerFrames": True},
    ],
)
def test_anything_else_goes_through_autobahn(monkeypatch, change):
    daphne_frames.install()
    sent = []
    monkeypatch.setattr(
        WebSocketProtocol, "sendMessage", lambda self, payload, binary: sent.append(payload)
    )
    protocol = open_protocol()
    for name, value in change.items():
        setattr(protocol, name, value)
    protocol.serverSend("hello")
    protocol.serverSend(b"\x00binary", True)
    assert sent == [b"hello", b"\x00binary"] and protocol.transport.written == []
