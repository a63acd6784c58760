"""Swiss pairing of one round by the Lim system (`docs/lim.md`; FIDE C.04.4.3).

The procedure follows LIM.md rule by rule: bye (1), score groups paired from the top down and
from the bottom up, median last (3), floaters chosen by rule 5, incoming floaters first (6),
top half against bottom half (7), exchanges in the order of rule 8, a blocked median group
cracked by rule 9, colours by rule 10.

Rule 8.3 is read as written: an opponent is acceptable only if the players left *in the
group* can still all be paired, checked exactly with a maximum matching of the group
(`matching.MatchingState`). Because the check is exact, a scrutinised player always finds an
acceptable opponent once the floaters are chosen, and earlier pairs never need reopening
(8.2). Two readings are ours:

- The round-wide guard of 8.3 (rule 11). Before a group's pairing is taken, a round-wide
  matching checks that the rest of the round can still be paired. Whatever pairs a group
  makes, it takes the same players out of the round, so only who floats matters to the rest:
  if the guard refuses, the group's next choice of floaters in the order of rule 5 is tried
  (up to `FLOATER_CHOICES`), and if none passes the group is paired by the round-wide choice
  (each opponent accepted only if the round stays pairable; a player left without one floats,
  8.5). "The rest of the round" counts the players of the two groups beside the median as
  unpaired, because rule 9 may still undo their pairing: those two groups are paired by the
  group alone, and every other group keeps the rest of the round pairable.
- Rule 9, cracking: "undo the pairing of the group" undoes all of that group's pairs (its
  residents and the floaters it had received join the median group as floaters), the nearest
  group first on the side the rule names, the other side when that one has nothing left,
  counted again after each undo. Because of the guard, undoing the two groups beside the
  median always makes it pairable, so pairing never gives up while a legal pairing exists.

`pair_round(..., reading=ROUND_READING)` keeps the round-wide reading (8.3 over the whole round
for every pair; rule 9 then never runs) so that the benchmark can set the two readings' figures
side by side (docs/benchmarks.md, `make bench-pairing`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from events.matching import MatchingState

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
    return colours_with_rule(a, b, spec, at_or_above_median)[0]


def colours_with_rule(
    a: PlayerState, b: PlayerState, spec: RoundSpec, at_or_above_median: bool
) -> tuple[Game, str, str]:
    """`assign_colours`, with the rule that decided and in what way (for the trace)."""
    if b.number < a.number:
        a, b = b, a  # a is the higher-ranked
    legal = [c for c in (WHITE, BLACK) if spec.double_games or _colour_ok(a, b, c)]
    if len(legal) == 1:
        return _game(a, b, legal[0]), "Lim 10.1", "limits"  # the absolute limits decide
    due_a, due_b = due_colour(a.colours), due_colour(b.colours)
    if due_a is None and due_b is None:
        # Lim 10.5: #1's colour by lot; odd pairing numbers of the top half get the same.
        colour = spec.first_colour if a.number % 2 == 1 else opposite(spec.first_colour)
        return _game(a, b, colour), "Lim 10.5", "lot"
    if due_a is None:
        return _game(a, b, opposite(due_b)), "Lim 10.2", "due"  # type: ignore[arg-type]
    if due_b is None or due_a != due_b:
        return _game(a, b, due_a), "Lim 10.2", "due"  # each gets the colour due
    # Lim 10.4: both due the same colour. The latest *round* in which both played and had
    # different colours decides; a round in which either had no game (bye, absence) is skipped,
    # so histories are compared round by round, not game by game.
    by_round_a, by_round_b = a.colours_by_round(), b.colours_by_round()
    for key in sorted(by_round_a.keys() & by_round_b.keys(), reverse=True):
        if by_round_a[key] != by_round_b[key]:
            return _game(a, b, opposite(by_round_a[key])), "Lim 10.4", "history"
    # Same histories: the higher-ranked gets it at or above the median, the lower below it.
    colour = due_a if at_or_above_median else opposite(due_a)
    return _game(a, b, colour), "Lim 10.4", "rank"


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


# -- the two readings of rule 8.3 ------------------------------------------------------------------

GROUP_READING = "group"  # LIM.md 8.3 as written: the group, rule 9, the round-wide guard
ROUND_READING = "round"  # 8.3 over the whole round, kept only so the benchmark can compare

# Lim 8.3 guard: how many choices of floaters, in the order of rule 5, are tried for one group
# before the round-wide choice pairs it instead.
FLOATER_CHOICES = 64
FLOATER_REMOVALS = 4000  # and how many removals may be tried while looking for them


@dataclass(frozen=True)
class Step:
    """One decision of the pairing as the engine takes it, for "why this pairing" (an arbiter's
    or a player's reading: `tournaments.why` words it). `players` are pairing numbers."""

    kind: str  # "order", "bye", "skip", "float", "pair", "crack", "guard", "colour"
    rule: str  # the LIM.md rule that decided it: "Lim 1", "Lim 4d", "Lim 8.1", ...
    players: tuple[int, ...] = ()
    score: int | None = None  # the score group it happened in
    detail: str = ""  # what kind of decision, in a word (see each `note` call)

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "rule": self.rule,
            "players": list(self.players),
            "score": self.score,
            "detail": self.detail,
        }


@dataclass
class PairingNotes:
    """What happened while pairing a round (pass one to `pair_round`): the counts the benchmark
    prints and, when `trace` is a list, every decision in the order it was taken."""

    cracked_groups: int = 0  # Lim 9: pairings of groups beside the median undone
    guard_fallbacks: int = 0  # Lim 8.3: groups paired by the round-wide choice instead
    trace: list[Step] | None = None

    def note(self, kind: str, rule: str, players=(), score=None, detail: str = "") -> None:
        if self.trace is not None:
            self.trace.append(Step(kind, rule, tuple(players), score, detail))


class _PairedGroup:
    """A side group's pairs, until the median is paired (rule 9 may still undo them)."""

    __slots__ = ("score", "pairs")

    def __init__(self, score: int, pairs: list[tuple[int, int]]) -> None:
        self.score = score
        self.pairs = pairs  # indices into the round's player list


Pair = tuple[int, int]


class _RoundPairer:
    """The state of pairing one round; indices refer to `players` sorted by number."""

    def __init__(
        self,
        players: Sequence[PlayerState],
        spec: RoundSpec,
        reading: str = GROUP_READING,
        notes: PairingNotes | None = None,
    ) -> None:
        if reading not in (GROUP_READING, ROUND_READING):
            raise ValueError(f"unknown reading {reading!r}")
        self.players = sorted(players, key=lambda p: p.number)
        self.spec = spec
        self.reading = reading
        self.notes = notes if notes is not None else PairingNotes()
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
        # The round-wide matching of every player not yet paired (Lim 1 and the 8.3 guard).
        self.everyone = MatchingState(neighbours, range(n), self.neighbour_sets)
        self.guard = self.everyone
        self.due = [due_colour(p.colours) for p in self.players]  # Lim 10.2
        self._floater_traits: dict[int, tuple] = {}
        # For the trace: each choice of floaters (rule 5's order) -> the rule that decided
        # each of its floaters, in the order they were chosen.
        self._floater_rules: dict[frozenset[int], list[str]] = {}

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

        detail = "round-one" if self.spec.number == 1 else "lowest"
        for i in sorted(range(len(players)), key=key):
            # Hard rule: at most one bye each, and none for a player who already won because
            # an opponent did not show up (Lim 1); the others must still all pair.
            p = players[i]
            if p.may_get_bye and self.everyone.try_remove(i):
                self.notes.note("bye", "Lim 1", (p.number,), p.score, detail)
                return i
            why = "had-bye" if p.had_bye else "forfeit-win" if p.won_by_forfeit else "rest"
            self.notes.note("skip", "Lim 1", (p.number,), p.score, why)
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
        self.notes.note("order", "Lim 3", (), median, " ".join(f"{s}{d[0]}" for s, d in order))
        sides = {
            DOWN: [(s, tuple(by_score[s])) for s, _ in order[:-1] if s > median],
            UP: [(s, tuple(by_score[s])) for s, _ in order[:-1] if s < median],
        }
        median_residents = tuple(by_score.get(median, ()))
        round_wide = self.reading == ROUND_READING

        # Top group down to the one just above the median (floaters go down), then the bottom
        # group up to the one just below it (floaters go up).
        paired: dict[str, list[_PairedGroup]] = {DOWN: [], UP: []}
        incoming: list[int] = []
        for direction, groups in sides.items():
            floaters: list[int] = []
            for k, (score, residents) in enumerate(groups):
                beside_median = k == len(groups) - 1
                receiving = median_residents if beside_median else groups[k + 1][1]
                # Lim 8.3 guard: a group's pairing must leave the rest of the round pairable.
                # The groups beside the median are not guarded: rule 9 may still undo their
                # pairing, so their players count as unpaired for the guard.
                pairs, floaters = self.pair_group(
                    list(residents) + floaters,
                    floaters,
                    direction,
                    receiving,
                    score,
                    guarded=round_wide or not beside_median,
                )
                paired[direction].append(_PairedGroup(score, pairs))
            incoming += floaters

        # The median group last, downwards (Lim 3); Lim 9 first makes it pairable.
        members = list(median_residents) + incoming
        if not round_wide:
            members, incoming = self.crack_until_pairable(members, incoming, paired)
        median_pairs, _ = self.pair_group(
            members, incoming, DOWN, (), median, guarded=round_wide, final=True
        )

        games = [
            self._game(a, b, at_or_above_median=group.score >= median)
            for direction in (DOWN, UP)
            for group in paired[direction]
            for a, b in group.pairs
        ]
        games += [self._game(a, b, at_or_above_median=True) for a, b in median_pairs]
        if self.notes.trace is not None:
            self._note_colours(paired, median_pairs, median)
        bye = None if bye_index is None else self.players[bye_index].number
        return Pairing(games=tuple(games), bye=bye)

    def _note_colours(
        self, paired: dict[str, list[_PairedGroup]], median_pairs: list[Pair], median: int
    ) -> None:
        """The trace's colour of every game, with the rule of Lim 10 that gave it."""
        groups = [(g.score, g.pairs) for d in (DOWN, UP) for g in paired[d]]
        for score, pairs in [*groups, (median, median_pairs)]:
            for a, b in pairs:
                game, rule, detail = colours_with_rule(
                    self.players[a], self.players[b], self.spec, score >= median
                )
                self.notes.note("colour", rule, (game.white, game.black), score, detail)

    # -- Lim 9: a blocked median group -------------------------------------------------------

    def crack_until_pairable(
        self, members: list[int], incoming: list[int], paired: dict[str, list[_PairedGroup]]
    ) -> tuple[list[int], list[int]]:
        """While the median group cannot be paired, undo the pairing of the group beside it.

        Lim 9: if more players floated down into it than up, undo the group just below,
        otherwise the group just above (the next one out once that one is undone, the other
        side when a side has nothing left); its players join the median group as floaters.
        The guard (see `pair`) left the groups beside the median unguarded and every other
        pairing round-pairable, so undoing those two groups always makes the median pairable.
        """
        median = self.spec.median_score
        members, incoming = list(members), list(incoming)
        while not MatchingState(self.neighbours, members, self.neighbour_sets).is_perfect():
            down = sum(1 for i in members if self.players[i].score > median)
            up = sum(1 for i in members if self.players[i].score < median)
            sides = (UP, DOWN) if down > up else (DOWN, UP)
            group = next(
                (g for side in sides for g in reversed(paired[side]) if g.pairs),
                None,
            )
            if group is None:  # cannot happen: the guard keeps the round pairable
                raise AssertionError("median group cannot be completed")
            freed = [i for pair in group.pairs for i in pair]
            group.pairs = []
            members += freed
            incoming += freed
            self.notes.cracked_groups += 1
            numbers = [self.players[i].number for i in freed]
            self.notes.note("crack", "Lim 9", numbers, group.score)
        return members, incoming

    # -- one score group ---------------------------------------------------------------------

    def pair_group(
        self,
        members: list[int],
        incoming: list[int],
        direction: str,
        receiving: Sequence[int],
        group_score: int,
        guarded: bool,
        final: bool = False,
    ) -> tuple[list[Pair], list[int]]:
        """Pair one score group (Lim 4-8); return its pairs and the players who float on."""
        group = MatchingState(self.neighbours, members, self.neighbour_sets)
        guard = self.guard if guarded else None
        if final:
            return self._pair_greedy(
                group, members, [], incoming, direction, group_score, guard, final
            )
        choices = self._floater_choices(group, members, incoming, direction, receiving)
        floating, group_first = next(choices)
        if self.reading == ROUND_READING:
            return self._pair_greedy(
                group_first, members, floating, incoming, direction, group_score, guard, final
            )
        chosen: MatchingState | None = group_first
        if guard is not None:
            # Lim 8.3 guard. Whatever pairs the group makes, it takes the same players out of
            # the round: only who floats matters to the rest. So the group's next pairing in
            # the order of the rules is its next choice of floaters in the order of rule 5.
            chosen = None
            candidates = itertools.chain([(floating, group_first)], choices)
            for choice, group_after in itertools.islice(candidates, FLOATER_CHOICES):
                guard_after = guard.copy()
                if all(guard_after.try_pair(a, b) for a, b in group_after.pairs()):
                    floating, chosen, self.guard = choice, group_after, guard_after
                    break
            if chosen is None:
                # None keeps the rest of the round pairable: the round-wide choice.
                self.notes.guard_fallbacks += 1
                self.notes.note("guard", "Lim 8.3", (), group_score)
                self._note_floaters(floating, members, incoming, direction, group_score)
                return self._pair_greedy(
                    group_first, members, floating, incoming, direction, group_score, guard, final
                )
        self._note_floaters(floating, members, incoming, direction, group_score)
        # Lim 6-8 within the group: the players who stay have a perfect matching, so every
        # scrutinised player finds an acceptable opponent and nobody floats by rule 8.5.
        return self._pair_greedy(
            chosen, members, floating, incoming, direction, group_score, None, final
        )

    def _note_floaters(
        self,
        floating: list[int],
        members: list[int],
        incoming: list[int],
        direction: str,
        group_score: int,
    ) -> None:
        """The trace's floaters of a group: why each leaves it (Lim 4) and, when the group only
        had to be made even, the rule of 5 that chose that player (or 8.3: the guard set the
        rules' own choice aside), in the order they were chosen."""
        if self.notes.trace is None:
            return
        rules = dict(zip(floating, self._floater_rules.get(frozenset(floating), ()), strict=False))
        for i in floating:
            p, others = self.players[i], [m for m in members if m != i]
            if not others:
                rule, detail = "Lim 4d", "alone"  # alone in the group: it floats to pair
            elif self.neighbour_sets[i].isdisjoint(others):
                met_all = all(self.players[m].number in p.opponents for m in others)
                rule, detail = ("Lim 4a", "met-all") if met_all else ("Lim 4b", "colours")
            else:
                kind = self._floater_traits.get(i, (0,))[0]
                rule, detail = rules.get(i, "Lim 5.3"), "even-" + "dcba"[kind]
            moving = "came-" if i in incoming else ""
            self.notes.note(
                "float", rule, (p.number,), group_score, f"{direction} {moving}{detail}"
            )

    def _floater_choices(
        self,
        group: MatchingState,
        members: list[int],
        incoming: list[int],
        direction: str,
        receiving: Sequence[int],
    ) -> Iterator[tuple[list[int], MatchingState]]:
        """Lim 4 (a)-(d) and 5: the choices of floaters, best first, each with the group's
        matching of the players who stay (a perfect one).

        Lim 5.1: as many pairs inside the group as possible, so exactly the players no maximum
        matching needs can float; players with no compatible opponent here (4a-c) have no edge
        in the group graph and are always among them. Each floater is the first in the order
        of rule 5 whose removal keeps the pairs; the first choice yielded is the rules' own,
        the next ones take a later candidate at the deepest step first. `group` is not changed.
        """
        incoming_set = set(incoming)
        excess = len(members) - 2 * group.size
        self._floater_traits = {}
        self._floater_rules = {}
        tracing = self.notes.trace is not None
        seen: set[frozenset[int]] = set()
        budget = [FLOATER_REMOVALS]

        def choose(
            group: MatchingState, unpaired: set[int], floating: list[int], rules: list[str]
        ) -> Iterator[tuple[list[int], MatchingState]]:
            if len(floating) == excess:
                key = frozenset(floating)
                if key not in seen:  # the same players chosen in another order
                    seen.add(key)
                    if tracing:
                        self._floater_rules[key] = rules
                    yield floating, group
                return
            keys = self._floater_keys(unpaired, incoming_set, direction, receiving)
            order = sorted(unpaired, key=keys.__getitem__)
            passed_one = False  # a removable candidate before this one was set aside
            for at, candidate in enumerate(order):
                budget[0] -= 1
                if budget[0] < 0:
                    return
                after = group.copy()
                if after.try_remove(candidate):  # Lim 5.1: never at the cost of a pair
                    rule = ""
                    if tracing:
                        rule = (
                            "Lim 8.3"
                            if passed_one
                            else self._deciding_rule(group, unpaired, keys, order, at)
                        )
                    yield from choose(
                        after, unpaired - {candidate}, [*floating, candidate], [*rules, rule]
                    )
                    passed_one = True

        return choose(group, set(members), [], [])

    def _deciding_rule(
        self,
        group: MatchingState,
        unpaired: set[int],
        keys: dict[int, tuple],
        order: Sequence[int],
        at: int,
    ) -> str:
        """Which rule of 5 made `order[at]` (the first who may float, 5.1) the floater: the
        first step of rule 5 (3 to 6) such that the steps after it alone would not have chosen
        this player. (The lowest-ranked floats down by 5.6; 5.5 may override that, 5.4 both,
        5.3 all three.) Only players who may float are compared; one with no opponent left in
        the group floats anyway (Lim 4), so is no alternative."""
        chosen = order[at]
        others = [
            other
            for other in order[at + 1 :]
            if not self.neighbour_sets[other].isdisjoint(unpaired)
            and group.copy().try_remove(other)
        ]
        if not others:
            return "Lim 5.1"  # nobody else could leave without costing the group a pair
        for step, rule in enumerate(_FLOATER_RULES):
            later = [keys[chosen][step + 1 :]] + [keys[o][step + 1 :] for o in others]
            if (
                step + 1 == len(_FLOATER_RULES)
                or min(later) != later[0]
                or later.count(later[0]) > 1
            ):
                return rule  # the steps after this one alone would not have chosen it
        return _FLOATER_RULES[-1]

    def _floater_first(self, incoming: Iterable[int], group_score: int) -> list[int]:
        """Lim 6: incoming floaters first. At or above the median downfloaters before
        upfloaters, below it the reverse; then higher score, then rank."""
        players = self.players
        at_or_above = group_score >= self.spec.median_score

        def priority(i: int) -> tuple:
            came_down = players[i].score > group_score
            first = came_down if at_or_above else not came_down
            return (not first, -players[i].score, players[i].number)

        return sorted(incoming, key=priority)

    @staticmethod
    def _proposal(rest: Sequence[int], direction: str) -> tuple[int, list[int], list[int]]:
        """Lim 7 and 8.1: who is scrutinised, the order of their opponents, the bottom half."""
        half = len(rest) // 2
        if direction == DOWN:
            # Lim 8.1: #1 tries N+1, ..., 2N, then N, N-1, ..., 2.
            bottom = list(rest[half:])
            return rest[0], bottom + list(rest[half - 1 : 0 : -1]), bottom
        # Mirror (Lim 8, pairing upwards): the last tries N, ..., 1, then N+1, ..., 2N-1.
        bottom = list(rest[: len(rest) - half][::-1])
        return rest[-1], bottom + list(rest[len(rest) - half : -1]), bottom

    def _candidates(
        self, player: int, order: Sequence[int], prefer_from: Sequence[int]
    ) -> list[int]:
        """Lim 10.3: among the opponents in `order`, those of `prefer_from` due the other
        colour first."""
        due = self.due[player]
        if due is None or self.spec.double_games:
            return list(order)
        first = [c for c in prefer_from if self.due[c] == opposite(due)]
        chosen = set(first)
        return first + [c for c in order if c not in chosen]

    def _pair_greedy(
        self,
        group: MatchingState,
        members: list[int],
        floating: list[int],
        incoming: list[int],
        direction: str,
        group_score: int,
        guard: MatchingState | None,
        final: bool,
    ) -> tuple[list[Pair], list[int]]:
        """The round-wide choice: each opponent in the order of rules 6-8, accepted only if the
        group keeps its pairs and `guard` the round pairable; a player who finds none floats
        (Lim 8.5). The whole pairing under the round-wide reading, and the fallback of the guard
        under LIM.md's."""
        players = self.players
        floating = list(floating)
        chosen_floaters = list(floating)
        unpaired = sorted(i for i in members if i not in floating)
        paired: set[int] = set()
        pairs: list[Pair] = []

        def float_on(player: int) -> None:
            # Lim 8.5: a player who finds no opponent floats, replacing the player who would
            # otherwise have floated to make the group even: that one comes back.
            nonlocal unpaired
            if final:  # cannot happen: the guard keeps the median group pairable
                raise AssertionError("median group could not be completed")
            floating.append(player)
            group.remove(player)
            paired.add(player)
            self.notes.note("float", "Lim 8.5", (players[player].number,), group_score, direction)
            if chosen_floaters:
                back = chosen_floaters.pop()
                floating.remove(back)
                group.add(back)
                unpaired = sorted([*unpaired, back])

        for f in self._floater_first((i for i in incoming if i in unpaired), group_score):
            if f in paired:
                continue
            others = [i for i in unpaired if i not in paired and i != f]
            order = others if players[f].score > group_score else list(reversed(others))
            opponent = self._first_acceptable(f, order, group, order, guard)
            if opponent is None:
                float_on(f)
                continue
            pairs.append((f, opponent))
            paired.update((f, opponent))
            self._note_pair(f, opponent, order, order, group_score, "Lim 6")

        while True:
            rest = [i for i in unpaired if i not in paired]
            if len(rest) < 2:
                if rest:
                    if final:
                        raise AssertionError("median group left a player unpaired")
                    floating.append(rest[0])
                break
            player, order, bottom = self._proposal(rest, direction)
            opponent = self._first_acceptable(player, order, group, bottom, guard)
            if opponent is None:
                float_on(player)
                continue
            pairs.append((player, opponent))
            paired.update((player, opponent))
            self._note_pair(player, opponent, order, bottom, group_score, "Lim 7")
        return pairs, floating

    def _note_pair(
        self,
        player: int,
        opponent: int,
        order: Sequence[int],
        bottom: Sequence[int],
        group_score: int,
        rule: str,
    ) -> None:
        """The trace's pair: the proposal itself (Lim 6 for a floater, 7 otherwise), the
        opponent due the other colour preferred (Lim 10.3), or an exchange (Lim 8.1): a
        transposition within the lower half, or an exchange with the upper one. The proposed
        opponent, when passed over, is named after the pair with why (Lim 2: they may not
        meet; Lim 8.3: the rest could not have been paired)."""
        if self.notes.trace is None:
            return
        players = self.players
        proposed = order[0]
        numbers = (players[player].number, players[opponent].number)
        if opponent == proposed:
            self.notes.note("pair", rule, numbers, group_score, "proposed")
            return
        passed = players[proposed].number
        why = "incompatible" if proposed not in self.neighbour_sets[player] else "rest"
        due = self.due[player]
        colour_first = (
            due is not None
            and not self.spec.double_games
            and self.due[opponent] == opposite(due)
            and self.due[proposed] != opposite(due)
        )
        if colour_first and proposed in self.neighbour_sets[player]:
            kind, step_rule = "colour", "Lim 10.3"
        elif rule == "Lim 6":
            kind, step_rule = "floater", "Lim 6"
        else:
            kind = "transposition" if opponent in bottom else "exchange"
            step_rule = "Lim 8.1"
        self.notes.note("pair", step_rule, (*numbers, passed), group_score, f"{kind} {why}")

    def _first_acceptable(
        self,
        player: int,
        order: Sequence[int],
        group: MatchingState,
        prefer_from: Sequence[int],
        guard: MatchingState | None,
    ) -> int | None:
        """Lim 8.3/8.4 and 10.3: the first acceptable opponent, one due the other colour first."""
        for candidate in self._candidates(player, order, prefer_from):
            if self._try_pair(player, candidate, group, guard):
                return candidate
        return None

    def _try_pair(self, a: int, b: int, group: MatchingState, guard: MatchingState | None) -> bool:
        """Commit a-b if the group keeps its pairs and the guard the round pairable."""
        if b not in self.neighbour_sets[a]:
            return False
        group_before = group.copy()
        if not group.try_pair(a, b):
            return False
        if guard is None or guard.try_pair(a, b):
            return True
        group.alive, group.mate, group.size = (
            group_before.alive,
            group_before.mate,
            group_before.size,
        )
        return False

    def _game(self, a: int, b: int, at_or_above_median: bool) -> Game:
        return assign_colours(self.players[a], self.players[b], self.spec, at_or_above_median)

    # -- Lim 5: which player floats ------------------------------------------------------------

    def _floater_keys(
        self, unpaired: set[int], incoming: set[int], direction: str, receiving: Sequence[int]
    ) -> dict[int, tuple]:
        """Each unpaired player's place in rule 5's order (`_FLOATER_RULES` names each part)."""
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

        return {i: key(i) for i in unpaired}


# The rule behind each part of a floater's key in `_floater_keys`, in order.
_FLOATER_RULES = ("Lim 5.3", "Lim 5.4", "Lim 5.5", "Lim 5.6")


def score_group_order(scores: Iterable[int], median: int) -> list[tuple[int, str]]:
    """Lim 3: top group down to just above the median, bottom group up to just below it,
    then the median group (possibly empty: the virtual median) last, downwards."""
    distinct = set(scores)
    above = [(s, DOWN) for s in sorted(distinct, reverse=True) if s > median]
    below = [(s, UP) for s in sorted(distinct) if s < median]
    return above + below + [(median, DOWN)]


def pair_round(
    players: Sequence[PlayerState],
    spec: RoundSpec,
    *,
    reading: str = GROUP_READING,
    notes: PairingNotes | None = None,
) -> Pairing:
    """Pair one Swiss round by the Lim system. Raises NoLegalPairing (Lim 11).

    `reading=ROUND_READING` pairs with rule 8.3 read over the whole round; it exists only so
    that `bench/pairing.py` can print the quality figures of both. `notes`, if given, is filled
    in with what happened (rule 9 cracks, guard fallbacks).
    """
    if len({p.number for p in players}) != len(players):
        raise ValueError("pairing numbers must be unique")
    if not players:
        return Pairing(games=())
    return _RoundPairer(players, spec, reading, notes).pair()
