"""Swiss pairing of one round by the Lim system (`spec/LIM.md`; FIDE C.04.4.3).

The procedure follows LIM.md rule by rule: bye (1), score groups paired from the top down and
from the bottom up, median last (3), floaters chosen by rule 5, incoming floaters first (6),
top half against bottom half (7), exchanges in the order of rule 8, colours by rule 10.

One reading is ours and deliberate. Rule 8.3 says an opponent is acceptable only if "the
players left can still all be paired"; we read "the players left" as every unpaired player of
the round, not only those of the group, and check it exactly with a maximum matching
(`matching.MatchingState`). Every committed pair therefore keeps a complete legal pairing
possible, so the median group can always be completed and the cracking of rule 9 is never
needed; and the engine can never give up while a legal pairing exists (rule 11).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .matching import MatchingState
from .model import (
    BLACK,
    WHITE,
    Game,
    Pairing,
    PlayerState,
    RoundSpec,
    allowed_colours,
    due_colour,
    opposite,
)

DOWN = "down"
UP = "up"


class NoLegalPairing(Exception):
    """Lim 11: no pairing satisfies the absolute rules; the tournament ends here."""


def compatible(a: PlayerState, b: PlayerState, spec: RoundSpec) -> bool:
    """Lim 2: never met, and some colour assignment respects both players' limits."""
    return _compatible(a, b, _colour_mask(a.colours), _colour_mask(b.colours), spec)


def _compatible(a: PlayerState, b: PlayerState, mask_a: int, mask_b: int, spec: RoundSpec) -> bool:
    if b.number in a.opponents or a.number in b.opponents or a.number == b.number:
        return False  # Lim 2: a rematch is never allowed, in any round
    if spec.double_games:
        return True  # RULES 4.5: one White and one Black each, colours never constrain
    if (mask_a & _WHITE_BIT and mask_b & _BLACK_BIT) or (
        mask_a & _BLACK_BIT and mask_b & _WHITE_BIT
    ):
        return True
    # Lim 2: in the last round, equal scores who have not met may break the colour limits.
    return spec.is_last and a.score == b.score


def assign_colours(
    a: PlayerState, b: PlayerState, spec: RoundSpec, at_or_above_median: bool
) -> Game:
    """Lim 10: who has White. a and b may come in any order."""
    if b.number < a.number:
        a, b = b, a  # a is the higher-ranked
    legal = [c for c in (WHITE, BLACK) if spec.double_games or _colour_ok(a, b, c)]
    if len(legal) == 1:
        return _game(a, b, legal[0])  # Lim 10.1: the absolute limits decide
    due_a, due_b = due_colour(a.colours), due_colour(b.colours)
    if due_a is None and due_b is None:
        # Lim 10.5: #1's colour by lot; odd pairing numbers of the top half get the same.
        colour = spec.first_colour if a.number % 2 == 1 else opposite(spec.first_colour)
        return _game(a, b, colour)
    if due_a is None:
        return _game(a, b, opposite(due_b))  # type: ignore[arg-type]  (both None handled)
    if due_b is None or due_a != due_b:
        return _game(a, b, due_a)  # Lim 10.2: each gets the colour due
    # Lim 10.4: both due the same colour. The latest *round* in which both played and had
    # different colours decides; a round in which either had no game (bye, absence) is skipped,
    # so histories are compared round by round, not game by game.
    by_round_a, by_round_b = a.colours_by_round(), b.colours_by_round()
    for key in sorted(by_round_a.keys() & by_round_b.keys(), reverse=True):
        if by_round_a[key] != by_round_b[key]:
            return _game(a, b, opposite(by_round_a[key]))
    # Same histories: the higher-ranked gets it at or above the median, the lower below it.
    return _game(a, b, due_a if at_or_above_median else opposite(due_a))


_WHITE_BIT, _BLACK_BIT = 1, 2


def _colour_mask(colours: str) -> int:
    allowed = allowed_colours(colours)
    return (_WHITE_BIT if WHITE in allowed else 0) | (_BLACK_BIT if BLACK in allowed else 0)


def _colour_ok(a: PlayerState, b: PlayerState, colour_of_a: str) -> bool:
    return colour_of_a in allowed_colours(a.colours) and opposite(colour_of_a) in allowed_colours(
        b.colours
    )


def _game(a: PlayerState, b: PlayerState, colour_of_a: str) -> Game:
    return Game(a.number, b.number) if colour_of_a == WHITE else Game(b.number, a.number)


@dataclass(frozen=True)
class _Group:
    score: int
    residents: tuple[int, ...]  # indices into the round's player list


class _RoundPairer:
    """The state of pairing one round; indices refer to `players` sorted by number."""

    def __init__(self, players: Sequence[PlayerState], spec: RoundSpec) -> None:
        self.players = sorted(players, key=lambda p: p.number)
        self.spec = spec
        n = len(self.players)
        neighbours: list[list[int]] = [[] for _ in range(n)]
        # Lim 2, with each player's allowed colours computed once.
        masks = [_colour_mask(p.colours) for p in self.players]
        for i in range(n):
            a, mask_a = self.players[i], masks[i]
            for j in range(i + 1, n):
                if _compatible(a, self.players[j], mask_a, masks[j], spec):
                    neighbours[i].append(j)
                    neighbours[j].append(i)
        self.neighbours = neighbours
        self.neighbour_sets = [frozenset(ns) for ns in neighbours]
        self.everyone = MatchingState(neighbours, range(n), self.neighbour_sets)
        self.due = [due_colour(p.colours) for p in self.players]  # Lim 10.2
        self._floater_traits: dict[int, tuple] = {}
        self.games: list[Game] = []

    # -- Lim 1: the bye --------------------------------------------------------------------

    def choose_bye(self) -> int | None:
        players = self.players
        if len(players) % 2 == 0:
            if not self.everyone.is_perfect():
                raise NoLegalPairing("no pairing respects rule 2")
            return None
        if 2 * self.everyone.size < len(players) - 1:
            raise NoLegalPairing("no pairing respects rule 2")
        if self.spec.number == 1:
            # Lim 1 (FIDE 7.1): in round 1 the lowest-rated; unrated counts lowest, then rank.
            def key(i: int) -> tuple:
                rating = players[i].rating
                return (rating is not None, rating or 0, -players[i].number)
        else:
            # Lim 1: lowest score group first, lowest-ranked in it first.
            def key(i: int) -> tuple:
                return (players[i].score, -players[i].number)

        for i in sorted(range(len(players)), key=key):
            # Hard rule: at most one bye each; the others must still all pair.
            if players[i].may_get_bye and self.everyone.try_remove(i):
                return i
        raise NoLegalPairing("nobody can take the bye while the rest still pair")

    # -- Lim 3: order of the score groups ----------------------------------------------------

    def pair(self) -> Pairing:
        bye_index = self.choose_bye()
        median = self.spec.median_score
        by_score: dict[int, list[int]] = {}
        for i, p in enumerate(self.players):
            if i != bye_index:
                by_score.setdefault(p.score, []).append(i)
        order = score_group_order(by_score, median)
        upper = [_Group(s, tuple(by_score[s])) for s, direction in order[:-1] if s > median]
        lower = [_Group(s, tuple(by_score[s])) for s, direction in order[:-1] if s < median]
        median_residents = tuple(by_score.get(median, ()))

        # Top group down to the one just above the median; floaters go down.
        down_floaters: list[int] = []
        for k, group in enumerate(upper):
            receiving = upper[k + 1].residents if k + 1 < len(upper) else median_residents
            members = list(group.residents) + down_floaters
            down_floaters = self.pair_group(
                members, down_floaters, DOWN, receiving, final=False, group_score=group.score
            )
        # Bottom group up to the one just below the median; floaters go up.
        up_floaters: list[int] = []
        for k, group in enumerate(lower):
            receiving = lower[k + 1].residents if k + 1 < len(lower) else median_residents
            members = list(group.residents) + up_floaters
            up_floaters = self.pair_group(
                members, up_floaters, UP, receiving, final=False, group_score=group.score
            )
        # The median group last, downwards (Lim 3); with global feasibility it always pairs.
        members = list(median_residents) + down_floaters + up_floaters
        self.pair_group(
            members, down_floaters + up_floaters, DOWN, (), final=True, group_score=median
        )

        bye = None if bye_index is None else self.players[bye_index].number
        return Pairing(games=tuple(self.games), bye=bye)

    # -- one score group ---------------------------------------------------------------------

    def pair_group(
        self,
        members: list[int],
        incoming: list[int],
        direction: str,
        receiving: Sequence[int],
        final: bool,
        group_score: int,
    ) -> list[int]:
        """Pair what can be paired in this group; return the players who float on."""
        players = self.players
        group = MatchingState(self.neighbours, members, self.neighbour_sets)
        floating: list[int] = []
        incoming_set = set(incoming)
        # Lim 10.4 needs the side of the median the pairing is made on.
        at_or_above = group_score >= self.spec.median_score

        if not final:
            # Lim 4 (a)-(d) and 5.1: as many pairs inside the group as possible; whoever cannot
            # be part of them floats. Players with no compatible opponent here (4a-c) have no
            # edge in the group graph, so they are always among the removable ones.
            unpaired_set = set(members)
            excess = len(members) - 2 * group.size
            self._floater_traits: dict[int, tuple] = {}
            for _ in range(excess):
                order = self._floater_order(unpaired_set, incoming_set, direction, receiving)
                for candidate in order:
                    if group.try_remove(candidate):  # Lim 5.1: never at the cost of a pair
                        floating.append(candidate)
                        unpaired_set.discard(candidate)
                        break
        chosen_floaters = list(floating)

        unpaired = sorted(i for i in members if i not in floating)
        paired: set[int] = set()

        # Lim 6: incoming floaters first. At or above the median downfloaters before
        # upfloaters, below it the reverse; then higher score, then rank.
        def floater_priority(i: int) -> tuple:
            came_down = players[i].score > group_score
            first = came_down if at_or_above else not came_down
            return (not first, -players[i].score, players[i].number)

        for f in sorted((i for i in incoming if i in unpaired), key=floater_priority):
            if f in paired:
                continue
            came_down = players[f].score > group_score
            others = [i for i in unpaired if i not in paired and i != f]
            # A downfloater takes the highest-ranked, an upfloater the lowest-ranked.
            order = others if came_down else list(reversed(others))
            opponent = self._first_acceptable(f, order, group, prefer_from=order)
            if opponent is None:
                if final:  # cannot happen: the global matching guarantees an opponent
                    raise AssertionError("median group could not be completed")
                floating.append(f)  # Lim 5 / 8.5: floats on, replacing the even-maker
                group.remove(f)
                paired.add(f)
                if chosen_floaters:
                    back = chosen_floaters.pop()
                    floating.remove(back)
                    group.add(back)
                    unpaired = sorted([*unpaired, back])
                continue
            self._commit(f, opponent, at_or_above)
            paired.update((f, opponent))

        # Lim 7 and 8: the residents, top half against bottom half, with exchanges.
        while True:
            rest = [i for i in unpaired if i not in paired]
            if len(rest) < 2:
                if rest:
                    if final:
                        raise AssertionError("median group left a player unpaired")
                    floating.append(rest[0])
                break
            half = len(rest) // 2
            if direction == DOWN:
                # Lim 8.1: #1 tries N+1, ..., 2N, then N, N-1, ..., 2.
                player = rest[0]
                bottom = rest[half:]
                order = bottom + rest[half - 1 : 0 : -1]
            else:
                # Mirror (Lim 8, pairing upwards): the last tries N, ..., 1, then N+1, ..., 2N-1.
                player = rest[-1]
                bottom = rest[: len(rest) - half][::-1]
                order = bottom + rest[len(rest) - half : -1]
            opponent = self._first_acceptable(player, order, group, prefer_from=bottom)
            if opponent is None:
                if final:
                    raise AssertionError("median group could not be completed")
                # Lim 8.5: a player who finds no opponent floats, replacing the player who
                # would otherwise have floated to make the group even: that one comes back.
                floating.append(player)
                group.remove(player)
                paired.add(player)
                if chosen_floaters:
                    back = chosen_floaters.pop()
                    floating.remove(back)
                    group.add(back)
                    unpaired = sorted([*unpaired, back])
                continue
            self._commit(player, opponent, at_or_above)
            paired.update((player, opponent))
        return floating

    def _first_acceptable(
        self, player: int, order: Sequence[int], group: MatchingState, prefer_from: Sequence[int]
    ) -> int | None:
        """Lim 8.3/8.4 and 10.3: the first acceptable opponent, one due the other colour first."""
        due = self.due[player]
        if due is not None and not self.spec.double_games:
            for candidate in prefer_from:
                if self.due[candidate] == opposite(due):
                    if self._try_pair(player, candidate, group):
                        return candidate
        for candidate in order:
            if self._try_pair(player, candidate, group):
                return candidate
        return None

    def _try_pair(self, a: int, b: int, group: MatchingState) -> bool:
        """Lim 8.3: acceptable only if the group keeps its pairs and the round stays pairable."""
        if b not in self.neighbour_sets[a]:
            return False
        group_before = group.copy()
        if not group.try_pair(a, b):
            return False
        if self.everyone.try_pair(a, b):
            return True
        group.alive, group.mate, group.size = (
            group_before.alive,
            group_before.mate,
            group_before.size,
        )
        return False

    def _commit(self, a: int, b: int, at_or_above_median: bool) -> None:
        game = assign_colours(self.players[a], self.players[b], self.spec, at_or_above_median)
        self.games.append(game)

    # -- Lim 5: which player floats ------------------------------------------------------------

    def _floater_order(
        self, unpaired: set[int], incoming: set[int], direction: str, receiving: Sequence[int]
    ) -> list[int]:
        players, due = self.players, self.due
        due_white = sum(1 for i in unpaired if due[i] == WHITE)
        due_black = sum(1 for i in unpaired if due[i] == BLACK)

        def key(i: int) -> tuple:
            static = self._floater_traits.get(i)
            if static is None:
                has_opponent = not self.neighbour_sets[i].isdisjoint(receiving)
                # Lim 5.3: d (resident, opponent below), c (resident, none), b, a (incoming).
                kind = (2 if i in incoming else 0) + (0 if has_opponent else 1)
                # Lim 5.6: the lowest-ranked floats down, the highest-ranked up.
                rank = -players[i].number if direction == DOWN else players[i].number
                static = self._floater_traits[i] = (kind, players[i].floated_last_round, rank)
            kind, floated, rank = static
            # Lim 5.5: prefer the removal that balances the numbers due White and due Black.
            balance = abs((due_white - (due[i] == WHITE)) - (due_black - (due[i] == BLACK)))
            # Lim 5.4: avoid a player who floated in the previous round.
            return (kind, floated, balance, rank)

        return sorted(unpaired, key=key)


def score_group_order(scores: Iterable[int], median: int) -> list[tuple[int, str]]:
    """Lim 3: top group down to just above the median, bottom group up to just below it,
    then the median group (possibly empty: the virtual median) last, downwards."""
    distinct = set(scores)
    above = [(s, DOWN) for s in sorted(distinct, reverse=True) if s > median]
    below = [(s, UP) for s in sorted(distinct) if s < median]
    return above + below + [(median, DOWN)]


def pair_round(players: Sequence[PlayerState], spec: RoundSpec) -> Pairing:
    """Pair one Swiss round by the Lim system. Raises NoLegalPairing (Lim 11)."""
    if len({p.number for p in players}) != len(players):
        raise ValueError("pairing numbers must be unique")
    if not players:
        return Pairing(games=())
    return _RoundPairer(players, spec).pair()
