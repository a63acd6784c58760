"""Who plays whom in an arena, and with which colour (RULES 8), pure.

Input: the players waiting now (their arena rank, rating, colours so far, since when they
wait), the history of pairs in this arena (games together, end of their last game), the time
and a seed. Output: the pairs with their colours, and who is left waiting. Deterministic for
its inputs and the seed.

- Hard rule, the rematch cooldown: two players with k games together in this arena meet again
  only 5 × k minutes after their last game together (no cap).
- Hard rule of a club battle (RULES 12.7): two players of one club (`team`, 0 for none) never
  meet; to the matching they are a pair blocked for good.
- As many pairs as the cooldown allows: the pairing is a maximum matching of the graph of
  players allowed to meet.
- Preference: opponents close in the arena ranking, then in rating. Players are taken in rank
  order (rating, then id, breaking ties) and each is given the closest allowed opponent among
  the next few still free (a window, like lichess' pairing of big arenas by rank); the
  matching is then made maximum by short swaps and, if any are left that those cannot place,
  by a Tutte-Berge certificate or Edmonds' augmenting paths (`events.matching`) on the part
  that needs them (`_make_maximum`: bounded work for a thousand players, docs/benchmarks.md
  "bench-arena": 1,000 waiting paired under 200 ms).
- RULES 8 Decision: with an odd number (of those who may meet somebody now), the player who
  became waiting last waits (then the lower ranked, then the higher id). The others are paired
  as well as they can be first; only if a path from that player adds a pair does he play
  (as many pairs as allowed comes first), and then only that path changes: the quick fix-ups
  that move others around could leave a player who waited longer on the bench.
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
    team: int = 0  # a club battle's club (RULES 12.7): teammates never meet; 0 for none


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


def next_meeting_ms(
    players: Sequence[int], history: Mapping[tuple[int, int], Together], now_ms: int
) -> int | None:
    """The first instant after now at which two of these players may meet again (RULES 8
    cooldown), or None if no pair of them is in cooldown. For the players a pass left waiting:
    they are all in cooldown with one another, and no game's end will come to pair them, so
    this is when the next pass must run."""
    here = set(players)
    lifts = [
        free_from_ms(together)
        for (a, b), together in history.items()
        if a in here and b in here and free_from_ms(together) > now_ms
    ]
    return min(lifts, default=None)


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
    # RULES 8 is about pairs that played recently; only those are looked up, by index.
    index = {w.player: i for i, w in enumerate(players)}
    blocked_of: list[set[int]] = [set() for _ in range(n)]
    per_game = COOLDOWN_MS_PER_GAME
    for (a, b), together in history.items():
        # free_from_ms, inlined: this loop reads the whole history (its one cost that grows).
        if now_ms < together.last_end_ms + together.games * per_game:
            i, j = index.get(a), index.get(b)
            if i is not None and j is not None:
                blocked_of[i].add(j)
                blocked_of[j].add(i)
    # RULES 12.7: teammates of a club battle are blocked with one another, whatever the time.
    teams: dict[int, list[int]] = {}
    for i, w in enumerate(players):
        if w.team:
            teams.setdefault(w.team, []).append(i)
    for mates in teams.values():
        for i in mates:
            blocked_of[i].update(j for j in mates if j != i)

    def allowed(i: int, j: int) -> bool:
        return j not in blocked_of[i]

    # Whoever may meet nobody waiting now waits whatever happens: they are not the odd one out.
    isolated = {i for i in range(n) if len(blocked_of[i]) == n - 1}
    others = [i for i in range(n) if i not in isolated]
    sitter: int | None = None
    if len(others) % 2:  # RULES 8 Decision: the one who became waiting last waits
        sitter = max(
            others,
            key=lambda i: (players[i].waiting_since_ms, players[i].rank, players[i].player),
        )
    out = isolated | ({sitter} if sitter is not None else set())
    mate = _closest_first(players, allowed, out=out)
    free = [i for i in others if mate[i] == UNMATCHED and i != sitter]
    if free:
        _swap_in(free, mate, blocked_of)
        free = [i for i in others if mate[i] == UNMATCHED and i != sitter]
    alive = [i for i in others if i != sitter]
    if len(free) >= 2:  # the short swaps could not place them: exact, without the sitter
        _make_maximum(alive, free, mate, blocked_of)
        free = [i for i in alive if mate[i] == UNMATCHED]
    if sitter is not None and free:
        # The others are paired as well as they can be, some are left: only a path from the
        # sitter can add a pair, and then the sitter must play (as many pairs as allowed).
        _make_maximum(others, [*free, sitter], mate, blocked_of)
    rng = random.Random(seed)
    pairs = []
    for i in range(n):
        j = mate[i]
        if j != UNMATCHED and i < j:
            pairs.append(_colours(players[i], players[j], rng))
    left = tuple(players[i].player for i in range(n) if mate[i] == UNMATCHED)
    return Pairing(tuple(pairs), left)


def _make_maximum(
    alive: list[int], free: list[int], mate: list[int], blocked_of: list[set[int]]
) -> None:
    """Make the matching of the `alive` players maximum, with bounded work.

    Edmonds' algorithm on everybody costs a search of the whole graph for every player it cannot
    place: too slow for a thousand players (0.6 s with one blocked against everyone). So, in
    this order, and stopping as soon as the matching is known to be maximum:
    1. a Tutte-Berge certificate (`_is_maximum`): a set U of players such that the matching's
       size is (n + |U| - odd components of the rest) / 2, which no matching can beat. Tried
       with U empty (players nobody may meet, odd groups) and U the allowed opponents of the
       players left (they all want the same few);
    2. Edmonds' augmenting paths on the part that needs it: the players left, and the pairs
       holding their allowed opponents (when they have few) or the players they are blocked
       with (when they have many): any pair outside is allowed against every one of them;
    3. the certificate again, and only then Edmonds on everybody."""
    if _is_maximum(alive, free, mate, blocked_of):
        return
    alive_set = set(alive)
    part: set[int] = set(free)
    for u in free:
        blocked = blocked_of[u] & alive_set
        if 2 * len(blocked) >= len(alive):  # few allowed opponents: their pairs
            near = [a for a in alive if a != u and a not in blocked]
        else:  # few blocked: the pairs of those (every other pair is open to u)
            near = list(blocked)
        for a in near:
            part.add(a)
            if mate[a] != UNMATCHED:
                part.add(mate[a])
    if len(part) < len(alive):
        _edmonds(sorted(part), mate, blocked_of)
        left = [i for i in alive if mate[i] == UNMATCHED]
        if len(left) < 2 or _is_maximum(alive, left, mate, blocked_of):
            return
    _edmonds(alive, mate, blocked_of)


def _edmonds(vertices: list[int], mate: list[int], blocked_of: list[set[int]]) -> None:
    """Augment the matching restricted to `vertices` (pairs inside them kept as a start) to a
    maximum matching of the graph they induce, in place. A pair of the whole matching with one
    player outside is left alone: the caller passes whole pairs."""
    local = {v: k for k, v in enumerate(vertices)}
    neighbours = [
        [local[w] for w in vertices if w != v and w not in blocked_of[v]] for v in vertices
    ]
    start = [local.get(mate[v], UNMATCHED) if mate[v] != UNMATCHED else UNMATCHED for v in vertices]
    state = MatchingState(neighbours, range(len(vertices)), mate=start)
    for k, v in enumerate(vertices):
        m = state.mate[k]
        mate[v] = vertices[m] if m != UNMATCHED else UNMATCHED


def _is_maximum(
    alive: list[int], free: list[int], mate: list[int], blocked_of: list[set[int]]
) -> bool:
    """Whether a Tutte-Berge certificate shows the matching of `alive` is maximum: for any set
    U, no matching is larger than (n + |U| - odd(G - U)) / 2, where odd(G - U) counts the
    connected groups of odd size once U is taken away (Tutte-Berge formula)."""
    if len(free) < 2:
        return True  # an augmenting path needs two players left
    alive_set = set(alive)
    matched = (len(alive) - len(free)) // 2
    candidates: list[set[int]] = [set()]
    hub: set[int] = set()
    for u in free:
        blocked = blocked_of[u] & alive_set
        if 2 * len(blocked) >= len(alive):
            hub.update(a for a in alive if a != u and a not in blocked)
    if hub:
        candidates.append(hub)
    for taken in candidates:
        odd = _odd_groups([v for v in alive if v not in taken], blocked_of)
        if 2 * matched == len(alive) + len(taken) - odd:
            return True
    return False


def _odd_groups(vertices: list[int], blocked_of: list[set[int]]) -> int:
    """How many connected groups of odd size the allowed pairs make among `vertices`. The graph
    is almost complete, so it is walked through its complement: each step keeps only the
    not-yet-reached players blocked with the current one (work: players + blocked pairs)."""
    unreached = set(vertices)
    odd = 0
    while unreached:
        queue = [unreached.pop()]
        size = 1
        while queue:
            v = queue.pop()
            blocked = blocked_of[v]
            reached = [w for w in unreached if w not in blocked]
            if reached:
                unreached.difference_update(reached)
                queue.extend(reached)
                size += len(reached)
        odd += size % 2
    return odd


def _closest_first(players: list[Waiting], allowed, *, out: set[int]) -> list[int]:
    """In rank order, each free player takes the closest allowed free player among the next
    WINDOW ones: closest in rank, then in rating."""
    n = len(players)
    mate = [UNMATCHED] * n
    for i in range(n):
        if mate[i] != UNMATCHED or i in out:
            continue
        best, best_score, looked = None, None, 0
        for j in range(i + 1, n):
            if mate[j] != UNMATCHED or j in out or not allowed(i, j):
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


def _swap_in(free: list[int], mate: list[int], blocked_of: list[set[int]]) -> None:
    """Augmenting paths of length one (two free players allowed to meet) and three (free u and
    v take the two players of a pair, u–a and v–b): enough whenever few pairs are blocked,
    which is the arena's usual case. Whether any waiting v may meet b is a set difference, not
    a walk through the waiting (pairs whose b is blocked with all of them are passed at once)."""
    pending = list(free)
    while len(pending) >= 2:
        u = pending.pop(0)
        blocked_u = blocked_of[u]
        partner = next((v for v in pending if v not in blocked_u), None)
        if partner is not None:
            pending.remove(partner)
            mate[u], mate[partner] = partner, u
            continue
        placed = False
        waiting = set(pending)
        # Pairs nearest to u in the ranking first, so the swap disturbs the closest games.
        for a in _nearest_first(u, len(mate)):
            b = mate[a]
            if b == UNMATCHED or a in blocked_u:
                continue
            open_to_b = waiting - blocked_of[b]
            if open_to_b:
                v = next(v for v in pending if v in open_to_b)  # the first waiting, as before
                pending.remove(v)
                mate[u], mate[a] = a, u
                mate[v], mate[b] = b, v
                placed = True
                break
        if not placed:
            return  # left for the exact search


def _nearest_first(u: int, n: int):
    """0..n-1 by distance from u, the lower first on a tie: what sorting by |k - u| gives,
    without sorting the whole field for every player placed."""
    yield u
    for d in range(1, n):
        if u - d < 0 and u + d >= n:
            return
        if u - d >= 0:
            yield u - d
        if u + d < n:
            yield u + d


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
