"""A small text message a browser sends on an open websocket is read in one step (issue 17).

autobahn reads every incoming frame through a general state machine: the header checked field
by field, a frame object, a masker, an incremental UTF-8 validator, nine callbacks from frame
begin to message end, a Deferred fired for the message's listeners — about 8 % of a busy
daphne's samples (bench/live.py), for frames that are nearly always the same shape here: one
complete, final, masked text frame of a few dozen bytes (a move, a draw offer, a `sync`). When
the connection is in exactly the plain case (open, nothing buffered or half-read, no
compression negotiated, masks applied, UTF-8 checked, no frame logging or timing, nobody
listening for autobahn's "message" signal) and the bytes that arrived begin with such a frame
(within the size limits, its text valid UTF-8), the frame is unmasked, checked and handed to
daphne's `onMessage` directly, with autobahn's counters kept as it keeps them. Anything else —
a control frame, a fragment, a binary or empty or large frame, a frame not all there yet,
invalid UTF-8, a protocol violation — goes to autobahn as before, from the first byte not read
here, so autobahn alone decides every error.

Installed by `config.asgi` when daphne is the server.
"""

from __future__ import annotations

# Frames up to SMALL_BYTES are read here; larger ones keep autobahn's (native) unmasking.
from config.autobahn_masks import SMALL_BYTES, unmask


def _plain(protocol) -> bool:
    """Whether autobahn would read a complete text frame arriving now as a message by itself."""
    return (
        protocol.state == protocol.STATE_OPEN
        and not protocol.data
        and protocol.current_frame is None
        and not protocol.inside_message
        and protocol._perMessageCompress is None
        and protocol.applyMask
        and protocol.utf8validateIncoming
        and protocol.websocket_version != 0
        and not protocol.failedByMe
        and not protocol.trackedTimings
        and not protocol.logFrames
        and not protocol.logOctets
        and protocol._listeners is None
    )


def text_frame(data: bytes, start: int, limit: int) -> tuple[int, bytes] | None:
    """The end and the unmasked payload of the frame at `data[start:]` when it is a complete,
    final, masked, non-empty text frame of at most `limit` octets, in minimal length encoding,
    without reserved bits; else None."""
    if len(data) - start < 6 or data[start] != 0x81:
        return None
    second = data[start + 1]
    if not second & 0x80:
        return None
    size = second & 0x7F
    header = 2
    if size == 126:
        size = int.from_bytes(data[start + 2 : start + 4], "big")
        if size < 126:
            return None
        header = 4
    elif size == 127 or size == 0:
        return None
    if size > limit:
        return None
    body = start + header + 4
    end = body + size
    if end > len(data):
        return None
    return end, unmask(data[body - 4 : body], data[body:end])


def install(cls=None) -> bool:
    """Patch `cls` (daphne's websocket protocol) once; returns whether it was patched now."""
    if cls is None:
        from daphne.ws_protocol import WebSocketProtocol as cls
    original = cls.dataReceived
    if getattr(original, "read_here", False):
        return False

    def dataReceived(self, data: bytes) -> None:
        if not _plain(self):
            return original(self, data)
        limit = SMALL_BYTES
        for most in (self.maxFramePayloadSize, self.maxMessagePayloadSize):
            if 0 < most < limit:
                limit = most
        start = 0
        stats = self.trafficStats
        stats.incomingOctetsWireLevel += len(data)  # as autobahn counts what arrives while open
        while (frame := text_frame(data, start, limit)) is not None:
            end, payload = frame
            try:
                payload.decode("utf-8")  # autobahn's validation: strict UTF-8
            except UnicodeDecodeError:
                break
            # What autobahn counts and does from frame begin to message end (onFrameBegin …
            # onMessageEnd), for a message of one frame.
            size = len(payload)
            stats.incomingOctetsWebSocketLevel += size
            stats.incomingOctetsAppLevel += size
            stats.incomingWebSocketFrames += 1
            if self.autoPingTimeoutCall and self.autoPingRestartOnAnyTraffic:
                self._cancelAutoPingTimeoutCall()
            stats.incomingWebSocketMessages += 1
            self.message_is_binary = False
            self.message_data_total_length = size
            self._onMessage(payload, False)
            start = end
            if start == len(data):
                return None
            if not _plain(self):
                break
        # The rest, from the first byte not read here, as autobahn reads it (`_dataReceived`
        # but the count above).
        self.data += data[start:] if start else data
        self.consumeData()
        return None

    dataReceived.read_here = True
    cls.dataReceived = dataReceived
    return True
