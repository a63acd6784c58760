"""Independent checks of a Swiss round: the hard rules and the quality figures.

Nothing here calls the pairing code or its matching: "can these players all be paired" is
answered by the rank of a random Tutte matrix (Lovász), a different method from the Edmonds
search the engine uses, so a bug in one is not hidden by the same bug in the other. Where a
nearby pairing is at hand (the file's own, for Lim 1's "could a lower player have rested"),
a complete pairing built from it along alternating paths is a proof checked pair by pair,
and the matrix (minutes for 1,000 players, in pure Python) is left for when none is found.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .model import WHITE, Pairing, PlayerState, RoundSpec, allowed_colours, due_colour

_PRIME = 2_147_483_647  # 2**31 - 1


def _legal_opponents(a: PlayerState, b: PlayerState, spec: RoundSpec) -> bool:
    # Restated from LIM.md rule 2 on purpose, not imported from lim.py.
    if b.number in a.opponents or a.number in b.opponents:
        return False
    if spec.double_games:
        return True
    ok_a, ok_b = allowed_colours(a.colours), allowed_colours(b.colours)
    if ("W" in ok_a and "B" in ok_b) or ("B" in ok_a and "W" in ok_b):
        return True
    return spec.is_last and a.score == b.score


def matching_number(n: int, edges: Sequence[tuple[int, int]], seed: int = 12345) -> int:
    """Maximum matching size via the rank of a random Tutte matrix over GF(p).

    Randomised, but with p ~ 2**31 the chance of underestimating is below n/p per call; two
    independent draws are taken and the larger rank kept.
    """
    best = 0
    rng = random.Random(seed)
    for _ in range(2):
        matrix = [[0] * n for _ in range(n)]
        for a, b in edges:
            x = rng.randrange(1, _PRIME)
            matrix[a][b] = x
            matrix[b][a] = _PRIME - x
        best = max(best, _rank_mod_p(matrix) // 2)
    return best


def _rank_mod_p(matrix: list[list[int]]) -> int:
    n = len(matrix)
    rank = 0
    rows = [row[:] for row in matrix]
    for col in range(n):
        pivot = next((r for r in range(rank, n) if rows[r][col]), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        inverse = pow(rows[rank][col], _PRIME - 2, _PRIME)
        pivot_row = rows[rank]
        for r in range(rank + 1, n):
            factor = rows[r][col]
            if factor:
                factor = factor * inverse % _PRIME
                row = rows[r]
                for c in range(col, n):
                    if pivot_row[c]:
                        row[c] = (row[c] - factor * pivot_row[c]) % _PRIME
        rank += 1
    return rank


def can_all_be_paired(players: Sequence[PlayerState], spec: RoundSpec) -> bool:
    """Whether a complete legal pairing exists (one player left out if the number is odd)."""
    n = len(players)
    edges = [
        (i, j)
        for i in range(n)
        for j in range(i + 1, n)
        if _legal_opponents(players[i], players[j], spec)
    ]
    return 2 * matching_number(n, edges) >= n - (n % 2)


def _witness(players: Sequence[PlayerState], spec: RoundSpec, near: Pairing) -> bool:
    """Whether a complete pairing of `players` can be built from `near` (a pairing of nearly
    the same players) by exchanging partners along alternating paths. True only with such a
    pairing in hand, every pair of it checked by the rules above: a proof, found in far less
    than the matrix's time (its rank takes minutes with 1,000 players). False says nothing:
    the search ignores odd cycles, so the matrix must then answer."""
    by_number = {p.number: p for p in players}
    numbers = sorted(by_number)
    allowed = {n: allowed_colours(p.colours) for n, p in by_number.items()}
    legal: dict[int, set[int]] = {n: set() for n in numbers}
    for i, a in enumerate(numbers):
        pa, ok_a = by_number[a], allowed[a]
        for b in numbers[i + 1 :]:
            pb, ok_b = by_number[b], allowed[b]
            # _legal_opponents, with each player's allowed colours computed once.
            if b in pa.opponents or a in pb.opponents:
                continue
            if (
                spec.double_games
                or ("W" in ok_a and "B" in ok_b)
                or ("B" in ok_a and "W" in ok_b)
                or (spec.is_last and pa.score == pb.score)
            ):
                legal[a].add(b)
                legal[b].add(a)
    mate: dict[int, int] = {}
    for g in near.games:
        if g.black in legal.get(g.white, ()) and g.white not in mate and g.black not in mate:
            mate[g.white], mate[g.black] = g.black, g.white
    free = [n for n in numbers if n not in mate]
    while len(free) > len(numbers) % 2:
        root = free[0]
        via: dict[int, int] = {}  # an inner or the last player -> the outer one before it
        seen, queue, end = {root}, [root], None
        while queue and end is None:
            x = queue.pop(0)
            for y in sorted(legal[x]):  # the same search every run
                if y in seen:
                    continue
                if y in mate and mate[y] in seen:
                    continue
                seen.add(y)
                via[y] = x
                if y not in mate:
                    end = y
                    break
                seen.add(mate[y])  # y is inner: its partner goes on looking
                queue.append(mate[y])
        if end is None:
            return False
        current, x = end, via[end]
        while True:  # exchange partners along the path back to the root
            inner = mate.get(x)
            mate[x], mate[current] = current, x
            if x == root:
                break
            current, x = inner, via[inner]  # type: ignore[index]
        free = [n for n in numbers if n not in mate]
    return all(mate[mate[n]] == n and mate[n] in legal[n] for n in mate)


def _may_rest(p: PlayerState) -> bool:
    # LIM.md rule 1, restated: no second bye, no bye after a win by forfeit (FIDE C.04.1).
    return not p.had_bye and not p.won_by_forfeit


def legal_pairing_exists(players: Sequence[PlayerState], spec: RoundSpec) -> bool:
    """Whether some pairing satisfies every hard rule, the bye included."""
    if len(players) % 2 == 0:
        return can_all_be_paired(players, spec)
    for p in players:
        if _may_rest(p) and can_all_be_paired([q for q in players if q is not p], spec):
            return True
    return False


def hard_rule_violations(
    players: Sequence[PlayerState], spec: RoundSpec, pairing: Pairing
) -> list[str]:
    """Every way the pairing breaks LIM.md's absolute rules ("What right means")."""
    problems: list[str] = []
    by_number = {p.number: p for p in players}
    seen: list[int] = [n for g in pairing.games for n in (g.white, g.black)]
    if pairing.bye is not None:
        seen.append(pairing.bye)
    if sorted(seen) != sorted(by_number):
        problems.append("not every player appears exactly once")
    for g in pairing.games:
        white, black = by_number.get(g.white), by_number.get(g.black)
        if white is None or black is None:
            continue
        if g.black in white.opponents or g.white in black.opponents:
            problems.append(f"rematch {g.white}-{g.black}")
        relaxed = spec.double_games or (spec.is_last and white.score == black.score)
        if not relaxed:
            if "W" not in allowed_colours(white.colours):
                problems.append(f"{g.white} cannot have White")
            if "B" not in allowed_colours(black.colours):
                problems.append(f"{g.black} cannot have Black")
    if pairing.bye is not None:
        receiver = by_number.get(pairing.bye)
        if len(players) % 2 == 0:
            problems.append("bye with an even number of players")
        elif receiver is not None:
            if receiver.had_bye:
                problems.append(f"second bye for {receiver.number}")
            if receiver.won_by_forfeit:
                problems.append(f"bye for {receiver.number}, who already won by forfeit")
            # Lim 1: nobody in a lower score group could have rested instead.
            for other in players:
                if other.score < receiver.score and _may_rest(other):
                    rest = [p for p in players if p is not other]
                    if _witness(rest, spec, pairing) or can_all_be_paired(rest, spec):
                        problems.append(
                            f"bye to {receiver.number} while {other.number} scores less"
                        )
                        break
    elif len(players) % 2 == 1:
        problems.append("odd number of players and no bye")
    return problems


@dataclass(frozen=True)
class Quality:
    floaters: int  # pairs whose two players have different scores
    score_difference_sum: int
    score_difference_max: int
    due_colours_not_granted: int


def quality(players: Sequence[PlayerState], pairing: Pairing) -> Quality:
    by_number = {p.number: p for p in players}
    differences = []
    not_granted = 0
    for g in pairing.games:
        white, black = by_number[g.white], by_number[g.black]
        differences.append(abs(white.score - black.score))
        due_white, due_black = due_colour(white.colours), due_colour(black.colours)
        not_granted += due_white is not None and due_white != WHITE
        not_granted += due_black is not None and due_black == WHITE
    return Quality(
        floaters=sum(1 for d in differences if d),
        score_difference_sum=sum(differences),
        score_difference_max=max(differences, default=0),
        due_colours_not_granted=not_granted,
    )
