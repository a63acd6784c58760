"""A text message daphne sends on an open websocket is framed in one step (issue 17).

daphne hands each message to autobahn's `sendMessage`, which checks its arguments, counts,
considers compression and fragmentation, builds the frame in `sendFrame` and writes it through
`sendData`: most of the 6 % of a busy daphne's samples that sending a frame cost (two frames
per move, bench/live.py), for a frame that is always the same shape here — one unmasked,
unfragmented, uncompressed text frame (RFC 6455 5.2). When the connection is in exactly that
case (open, no compression negotiated, no fragmenting, server frames unmasked, nothing queued,
no frame logging or timing, within the size limit), the frame is built and written directly,
with autobahn's counters kept as it keeps them; in any other case autobahn does it as before.

Installed by `config.asgi` when daphne is the server.
"""

from __future__ import annotations

import struct


def frame(payload: bytes) -> bytes:
    """One final, unmasked text frame carrying `payload`."""
    size = len(payload)
    if size <= 125:
        return bytes((0x81, size)) + payload
    if size <= 0xFFFF:
        return struct.pack("!BBH", 0x81, 126, size) + payload
    return struct.pack("!BBQ", 0x81, 127, size) + payload


def _plain(protocol, size: int) -> bool:
    """Whether autobahn would send a message of `size` octets as one plain text frame, at
    once."""
    return (
        protocol.state == protocol.STATE_OPEN
        and protocol._perMessageCompress is None
        and not protocol.trackedTimings
        and not protocol.logFrames
        and not protocol.send_queue
        and protocol.send_state == protocol.SEND_STATE_GROUND
        and not protocol.maskServerFrames
        and not (0 < protocol.maxMessagePayloadSize < size)
        and not (0 < protocol.autoFragmentSize < size)
    )


def install() -> bool:
    from daphne.ws_protocol import WebSocketProtocol

    original = WebSocketProtocol.serverSend
    if getattr(original, "framed_here", False):
        return False

    def serverSend(self, content, binary=False):
        if binary or not isinstance(content, str):
            return original(self, content, binary)
        payload = content.encode("utf8")
        size = len(payload)
        if not _plain(self, size):
            return original(self, content, binary)
        data = frame(payload)
        self.transport.write(data)
        stats = self.trafficStats
        stats.outgoingWebSocketMessages += 1
        stats.outgoingOctetsAppLevel += size
        stats.outgoingOctetsWebSocketLevel += size
        stats.outgoingWebSocketFrames += 1
        stats.outgoingOctetsWireLevel += len(data)
        return None

    serverSend.framed_here = True
    WebSocketProtocol.serverSend = serverSend
    return True
