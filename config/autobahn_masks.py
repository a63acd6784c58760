"""The mask of a small incoming websocket frame is taken off in Python (issue 17, bench/live.py).

Every frame a browser sends is masked (RFC 6455 5.3), and autobahn, under daphne, unmasks each
with its native (cffi) masker, whose setting up — a C object allocated, registered for garbage
collection, told its implementation — costs several times more than the work for the frames a
game sends (a move: about sixty bytes; 9 us against under 2 us here). Frames up to
`SMALL_BYTES` are unmasked with one XOR of two Python integers; larger ones keep autobahn's own
masker. Same interface (`pointer`, `reset`, `process`), same bytes (`tests`).

Installed by `config.asgi` when daphne is the server.
"""

from __future__ import annotations

SMALL_BYTES = 4096


def unmask(mask: bytes, data: bytes, offset: int = 0) -> bytes:
    """`data` XORed with the 4-byte `mask` repeated, its first byte at `offset` in the
    payload (RFC 6455 5.3: the payload's byte i is XORed with mask[i % 4])."""
    size = len(data)
    start = offset & 3
    key = (mask[start:] + mask[:start]) * (size // 4 + 1)
    return (int.from_bytes(data, "little") ^ int.from_bytes(key[:size], "little")).to_bytes(
        size, "little"
    )


class SmallMasker:
    """RFC 6455 5.3 unmasking of a frame's payload, in the pieces it arrives in."""

    __slots__ = ("_mask", "_ptr")

    def __init__(self, mask: bytes) -> None:
        assert len(mask) == 4
        self._mask = bytes(mask)
        self._ptr = 0

    def pointer(self) -> int:
        return self._ptr

    def reset(self) -> None:
        self._ptr = 0

    def process(self, data: bytes) -> bytes:
        if not data:
            return b""
        payload = unmask(self._mask, data, self._ptr)
        self._ptr += len(data)
        return payload


def install() -> None:
    from autobahn.websocket import protocol

    native = protocol.create_xor_masker
    if getattr(native, "small_frames_in_python", False):
        return

    def create_xor_masker(mask, length=None):
        if length is not None and length <= SMALL_BYTES:
            return SmallMasker(mask)
        return native(mask, length)

    create_xor_masker.small_frames_in_python = True
    protocol.create_xor_masker = create_xor_masker
