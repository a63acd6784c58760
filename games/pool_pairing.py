"""Quick pairing ("Partita veloce"): who plays whom among the players waiting in one
pool. Pure Python, no Django (STYLE 1).

The one reading this module makes: everyone waiting in a pool wants a game now, so the pairing
is greedy, longest wait first, and closeness of rating is a preference that widens with the
wait rather than a wall: each player accepts opponents within a rating range that starts at
`BASE_RANGE` and grows by `WIDEN_PER_SECOND` for every second waited, and a pair is acceptable
when the difference fits the wider range of the two (the one who waited longer gives way).
After `ANYONE_AFTER_MS` a player takes anyone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

BASE_RANGE = 100  # rating points accepted at once
WIDEN_PER_SECOND = 10  # points more for every second waited
ANYONE_AFTER_MS = 60_000  # after a minute, any opponent in the pool


@dataclass(frozen=True)
class Seeker:
    player: int
    rating: int
    since_ms: int  # when they started waiting (epoch ms)


def rating_range(waited_ms: int) -> int | None:
    """The rating difference a player who has waited `waited_ms` accepts; None: any."""
    if waited_ms >= ANYONE_AFTER_MS:
        return None
    return BASE_RANGE + WIDEN_PER_SECOND * max(0, waited_ms) // 1000


def acceptable(a: Seeker, b: Seeker, now_ms: int) -> bool:
    """Whether `a` and `b` may be paired now: their difference fits the wider of their two
    ranges (the one who waited longer gives way)."""
    ranges = [rating_range(now_ms - s.since_ms) for s in (a, b)]
    if None in ranges:
        return True
    return abs(a.rating - b.rating) <= max(r for r in ranges if r is not None)


def pair_seekers(seekers: Iterable[Seeker], now_ms: int) -> list[tuple[Seeker, Seeker]]:
    """Pairs to open now. Longest wait first (then lower player id, for a stable order), each
    takes the acceptable partner closest in rating (ties: the one waiting longer); whoever has
    no acceptable partner waits on."""
    queue = sorted(seekers, key=lambda s: (s.since_ms, s.player))
    free = {s.player: s for s in queue}
    pairs: list[tuple[Seeker, Seeker]] = []
    for seeker in queue:
        if seeker.player not in free:
            continue
        candidates = [
            other
            for other in free.values()
            if other.player != seeker.player and acceptable(seeker, other, now_ms)
        ]
        if not candidates:
            continue
        partner = min(
            candidates,
            key=lambda o: (abs(o.rating - seeker.rating), o.since_ms, o.player),
        )
        del free[seeker.player], free[partner.player]
        pairs.append((seeker, partner))
    return pairs
