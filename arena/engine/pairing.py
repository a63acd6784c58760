"""Who plays whom in an arena, and with which colour (RULES 8), pure.

Input: the players waiting now (their arena rank, rating, colours so far, since when they
wait), the history of pairs in this arena (games together, end of their last game), the time
and a seed. Output: the pairs with their colours, and who is left waiting. Deterministic for
its inputs and the seed.

- Hard rule, the rematch cooldown: two players with k games together in this arena meet again
  only 5 × k minutes after their last game together (no cap).
- As many pairs as the cooldown allows: the pairing is a maximum matching of the graph of
  players allowed to meet.
- Preference: opponents close in the arena ranking, then in rating. Players are taken in rank
  order (rating, then id, breaking ties) and each is given the closest allowed opponent among
  the next few still free (a window, like lichess' pairing of big arenas by rank); the
  matching is then made maximum by short swaps and, if any are left that those cannot place,
  by Edmonds' augmenting paths (`events.matching`).
- With an odd number, the player who waited least waits (then the lower ranked, then the
  higher id); if the others cannot all be paired, everybody is considered again.
- Colours: whoever had White fewer times in this arena gets White; then whoever had Black in
  their last game; then by lot.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from events.matching import UNMATCHED, MatchingState

COOLDOWN_MS_PER_GAME = 5 * 60 * 1000  # RULES 8: 5 minutes per game already played together
WINDOW = 12  # how many free candidates down the ranking a player's opponent is looked for in


@dataclass(frozen=True)
class Waiting:
    player: int
    rank: int
    rating: int
    whites: int = 0
    blacks: int = 0
    last_colour: str | None = None  # "white" / "black" in their last game of this arena
    waiting_since_ms: int = 0


@dataclass(frozen=True)
class Together:
    """Two players' history in this arena."""

    games: int
    last_end_ms: int


@dataclass(frozen=True)
class Pair:
    white: int
    black: int


@dataclass(frozen=True)
class Pairing:
    pairs: tuple[Pair, ...]
    waiting: tuple[int, ...]  # still waiting, in rank order


def pair_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def free_from_ms(together: Together) -> int:
    """RULES 8: the instant two players may meet again."""
    return together.last_end_ms + together.games * COOLDOWN_MS_PER_GAME


def may_meet(a: int, b: int, history: Mapping[tuple[int, int], Together], now_ms: int) -> bool:
    together = history.get(pair_key(a, b))
    return together is None or now_ms >= free_from_ms(together)


def pair_waiting(
    waiting: Sequence[Waiting],
    history: Mapping[tuple[int, int], Together],
    now_ms: int,
    seed: int,
) -> Pairing:
    ids = [w.player for w in waiting]
    if len(set(ids)) != len(ids):
        raise ValueError("a player is waiting twice")
    players = sorted(waiting, key=lambda w: (w.rank, -w.rating, w.player))
    n = len(players)
    if n < 2:
        return Pairing((), tuple(w.player for w in players))
    # RULES 8 is about pairs that played recently; only those are looked up.
    blocked: set[tuple[int, int]] = {
        key for key, together in history.items() if now_ms < free_from_ms(together)
    }

    def allowed(i: int, j: int) -> bool:
        return pair_key(players[i].player, players[j].player) not in blocked

    sitter: int | None = None
    if n % 2:  # the player who waited least waits
        sitter = max(
            range(n),
            key=lambda i: (players[i].waiting_since_ms, players[i].rank, players[i].player),
        )
    mate = _closest_first(players, allowed, skip=sitter)
    free = [i for i in range(n) if mate[i] == UNMATCHED and i != sitter]
    if free:
        _swap_in(free, mate, allowed, players)
        free = [i for i in range(n) if mate[i] == UNMATCHED and i != sitter]
    if free:  # the short swaps could not place them: exact, with everybody
        neighbours = [[j for j in range(n) if j != i and allowed(i, j)] for i in range(n)]
        mate = MatchingState(neighbours, range(n), mate=mate).mate
    rng = random.Random(seed)
    pairs = []
    for i in range(n):
        j = mate[i]
        if j != UNMATCHED and i < j:
            pairs.append(_colours(players[i], players[j], rng))
    left = tuple(players[i].player for i in range(n) if mate[i] == UNMATCHED)
    return Pairing(tuple(pairs), left)


def _closest_first(players: list[Waiting], allowed, *, skip: int | None) -> list[int]:
    """In rank order, each free player takes the closest allowed free player among the next
    WINDOW ones: closest in rank, then in rating."""
    n = len(players)
    mate = [UNMATCHED] * n
    for i in range(n):
        if mate[i] != UNMATCHED or i == skip:
            continue
        best, best_score, looked = None, None, 0
        for j in range(i + 1, n):
            if mate[j] != UNMATCHED or j == skip or not allowed(i, j):
                continue
            score = (
                abs(players[i].rank - players[j].rank),
                abs(players[i].rating - players[j].rating),
            )
            if best_score is None or score < best_score:
                best, best_score = j, score
            looked += 1
            if looked >= WINDOW:
                break
        if best is not None:
            mate[i], mate[best] = best, i
    return mate


def _swap_in(free: list[int], mate: list[int], allowed, players: list[Waiting]) -> None:
    """Augmenting paths of length one (two free players allowed to meet) and three (free u and
    v take the two players of a pair, u–a and v–b): enough whenever few pairs are blocked,
    which is the arena's usual case."""
    pending = list(free)
    while len(pending) >= 2:
        u = pending.pop(0)
        partner = next((v for v in pending if allowed(u, v)), None)
        if partner is not None:
            pending.remove(partner)
            mate[u], mate[partner] = partner, u
            continue
        placed = False
        # Pairs nearest to u in the ranking first, so the swap disturbs the closest games.
        for a in sorted(range(len(mate)), key=lambda k: abs(k - u)):
            b = mate[a]
            if b == UNMATCHED or not allowed(u, a):
                continue
            v = next((v for v in pending if allowed(v, b)), None)
            if v is not None:
                pending.remove(v)
                mate[u], mate[a] = a, u
                mate[v], mate[b] = b, v
                placed = True
                break
        if not placed:
            return  # left for the exact search


def _colours(a: Waiting, b: Waiting, rng: random.Random) -> Pair:
    """RULES 8 colours: fewer Whites first, then whoever had Black last, then by lot."""
    if a.whites != b.whites:
        white = a if a.whites < b.whites else b
    elif (a.last_colour == "black") != (b.last_colour == "black"):
        white = a if a.last_colour == "black" else b
    else:
        white = a if rng.random() < 0.5 else b
    black = b if white is a else a
    return Pair(white.player, black.player)
