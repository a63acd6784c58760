"""autobahn's per-frame debug lines are built only if written (config/autobahn_logs.py)."""

from __future__ import annotations

import click
import pytest
from autobahn.twisted import websocket
from autobahn.websocket import protocol

from config import autobahn_logs


def test_the_frame_paths_build_no_coloured_text_and_a_written_line_still_reads(monkeypatch):
    autobahn_logs.install()
    monkeypatch.setattr(click, "style", lambda *a, **k: pytest.fail("debug text was built"))
    received = websocket.WebSocketAdapterProtocol.dataReceived
    for module in (websocket, protocol):
        func, size = module.hltype(received), module.hlval(42)
        assert size == 42
        line = f"{func} received {size} bytes"
        assert line == "WebSocketAdapterProtocol.dataReceived received 42 bytes"
