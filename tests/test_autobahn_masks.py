"""Small incoming frames are unmasked in Python (config/autobahn_masks.py), byte for byte as
autobahn's own masker does, however the payload arrives in pieces."""

from __future__ import annotations

import random

from autobahn.websocket import protocol
from autobahn.websocket.xormasker import create_xor_masker as autobahn_masker

from config import autobahn_masks


def test_unmasks_as_autobahn_in_any_pieces():
    rng = random.Random(7)
    for _ in range(500):
        mask = rng.randbytes(4)
        payload = rng.randbytes(rng.randint(1, 300))
        ours, theirs = autobahn_masks.SmallMasker(mask), autobahn_masker(mask, len(payload))
        cuts = sorted(rng.sample(range(1, len(payload) + 1), min(3, len(payload))))
        start = 0
        for cut in [*cuts, len(payload)]:
            piece = payload[start:cut]
            assert ours.process(piece) == theirs.process(piece)
            assert ours.pointer() == theirs.pointer() == cut
            start = cut
        # Masking is its own inverse: the frame as the browser sent it comes back.
        masked = autobahn_masks.SmallMasker(mask).process(payload)
        assert autobahn_masks.SmallMasker(mask).process(masked) == payload
        ours.reset()
        assert ours.pointer() == 0
    assert autobahn_masks.SmallMasker(b"abcd").process(b"") == b""


def test_installed_for_small_frames_only(monkeypatch):
    monkeypatch.setattr(protocol, "create_xor_masker", autobahn_masker)
    autobahn_masks.install()
    autobahn_masks.install()  # twice: still one wrapper
    small = protocol.create_xor_masker(b"abcd", 60)
    large = protocol.create_xor_masker(b"abcd", autobahn_masks.SMALL_BYTES + 1)
    assert isinstance(small, autobahn_masks.SmallMasker)
    assert not isinstance(large, autobahn_masks.SmallMasker)
