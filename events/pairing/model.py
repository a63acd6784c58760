"""The tournament as the engine sees it: small frozen dataclasses, no Django.

Scores are integers in the platform's own units (RULES 4.6): win 2, draw 1, loss 0 per game;
a pairing-allocated bye is worth a win (2, or 4 with double games).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

WHITE = "W"
BLACK = "B"
WIN_POINTS = 2
DRAW_POINTS = 1
MAX_PLAYERS = 200  # RULES 4.1: a tournament has 4 to 200 seats


def opposite(colour: str) -> str:
    return BLACK if colour == WHITE else WHITE


# -- colour rules shared by the pairing and by the independent checker ------------------------


def allowed_colours(colours: str) -> frozenset[str]:
    """Colours a player may receive next (Lim 2 / 10.1, the absolute limits).

    Never the same colour three times in a row, never three more games with one colour than
    with the other.
    """
    allowed = set()
    for colour in (WHITE, BLACK):
        history = colours + colour
        if len(history) >= 3 and history[-1] == history[-2] == history[-3]:
            continue
        if abs(history.count(WHITE) - history.count(BLACK)) >= 3:
            continue
        allowed.add(colour)
    return frozenset(allowed)


def due_colour(colours: str) -> str | None:
    """Lim 10.2: the colour had fewer times; if balanced, the opposite of the last one."""
    if not colours:
        return None
    whites, blacks = colours.count(WHITE), colours.count(BLACK)
    if whites != blacks:
        return WHITE if whites < blacks else BLACK
    return opposite(colours[-1])


# -- one round's input and output --------------------------------------------------------------


@dataclass(frozen=True)
class PlayerState:
    """A player as the pairing of the next round sees them."""

    number: int  # pairing number: 1 is the top-ranked player (RULES 5.2)
    score: int = 0  # in platform units, byes included
    colours: str = ""  # colours of games actually played, oldest first ("WBW")
    # Lim 2: everybody met over the board. A pairing not played (a forfeit, a 0-0 double
    # absence) is no meeting: those two may be paired again (docs/lim.md rule 2).
    opponents: frozenset[int] = frozenset()
    had_bye: bool = False
    floated_last_round: bool = False  # met an opponent with a different score last round
    rating: int | None = None
    # Lim 10.4: the round of each entry of `colours` (a round without a game has none; with
    # double games a round appears twice). Empty means rounds 1, 2, 3... with none missed.
    colour_rounds: tuple[int, ...] = ()
    # Lim 1 (FIDE C.04.1): already scored a win because the opponent did not show up.
    won_by_forfeit: bool = False

    def __post_init__(self) -> None:
        if self.colour_rounds and len(self.colour_rounds) != len(self.colours):
            raise ValueError("colour_rounds must give one round per colour")

    @property
    def may_get_bye(self) -> bool:
        """Lim 1: neither a bye already nor a win because an opponent did not show up."""
        return not self.had_bye and not self.won_by_forfeit

    def colours_by_round(self) -> dict[tuple[int, int], str]:
        """Lim 10.4: (round, game of that round) -> colour, for the games actually played."""
        rounds = self.colour_rounds or range(1, len(self.colours) + 1)
        keyed: dict[tuple[int, int], str] = {}
        seen: dict[int, int] = {}
        for round_number, colour in zip(rounds, self.colours, strict=True):
            leg = seen[round_number] = seen.get(round_number, 0) + 1
            keyed[(round_number, leg)] = colour
        return keyed


@dataclass(frozen=True)
class RoundSpec:
    number: int  # the round being paired, 1-based
    total_rounds: int
    first_colour: str = WHITE  # Lim 10.5: the lot for #1 in round 1
    double_games: bool = False  # RULES 4.5: colours never constrain

    @property
    def is_last(self) -> bool:
        return self.number == self.total_rounds

    @property
    def median_score(self) -> int:
        # Lim 3: the number of rounds played, i.e. half the maximum possible score.
        per_round = 2 * WIN_POINTS if self.double_games else WIN_POINTS
        return (self.number - 1) * per_round // 2


@dataclass(frozen=True)
class Game:
    white: int
    black: int


@dataclass(frozen=True)
class Pairing:
    games: tuple[Game, ...]
    bye: int | None = None


# -- a whole tournament -------------------------------------------------------------------------

BYE_PAIRING_ALLOCATED = "pab"  # the Lim bye, worth a win
BYE_FULL = "full"  # a requested full-point bye (TRF "F")
BYE_HALF = "half"  # TRF "H"
BYE_ZERO = "zero"  # absent, nothing scored (TRF "Z" or blank)


@dataclass(frozen=True)
class Entrant:
    number: int  # pairing / Berger number, 1-based
    name: str = ""
    rating: int | None = None


@dataclass(frozen=True)
class GameResult:
    round: int
    white: int
    black: int
    white_points: int  # per game: 2, 1 or 0 (a forfeit win scores 2)
    black_points: int
    played: bool = True  # False for a forfeit or a 0-0 double absence (RULES 4.7)
    leg: int = 1  # 1 or 2 with double games (RULES 4.5)


@dataclass(frozen=True)
class Bye:
    round: int
    player: int
    kind: str = BYE_PAIRING_ALLOCATED
    points: int = WIN_POINTS


@dataclass(frozen=True)
class Team:
    """A team of the file (a league of team matches, RULES 16.8): its name and the start ranks
    of its players (`Entrant.number`) in its board order, board 1 first. TRF-16's `013` line."""

    name: str
    players: tuple[int, ...]


@dataclass(frozen=True)
class Tournament:
    entrants: tuple[Entrant, ...]
    total_rounds: int
    games: tuple[GameResult, ...] = ()
    byes: tuple[Bye, ...] = ()
    first_colour: str = WHITE
    double_games: bool = False
    # Players announced absent for the next round (TRF "0000 - Z/H/F" after the last round).
    absent_next: frozenset[int] = field(default_factory=frozenset)
    name: str = ""
    # Rounds held, including any in which nobody played (everyone absent or on a requested
    # bye): such a round still counts for the median (Lim 3) and the next round's number.
    rounds_held: int = 0
    # The teams, in their order (TRF `013` lines); none in a tournament of individuals.
    teams: tuple[Team, ...] = ()

    @property
    def rounds_played(self) -> int:
        """The rounds held so far: `rounds_held`, or the last round with a game or a bye.
        (Every bye listed is of a round held: announced absences are `absent_next`.)"""
        rounds = [g.round for g in self.games] + [b.round for b in self.byes]
        return max(rounds + [self.rounds_held])

    @property
    def bye_points(self) -> int:
        return 2 * WIN_POINTS if self.double_games else WIN_POINTS

    def next_round_spec(self) -> RoundSpec:
        return RoundSpec(
            number=self.rounds_played + 1,
            total_rounds=self.total_rounds,
            first_colour=self.first_colour,
            double_games=self.double_games,
        )

    def scores_after(self, last_round: int) -> dict[int, int]:
        scores = {e.number: 0 for e in self.entrants}
        for g in self.games:
            if g.round <= last_round:
                scores[g.white] += g.white_points
                scores[g.black] += g.black_points
        for b in self.byes:
            if b.round <= last_round:
                scores[b.player] += b.points
        return scores

    def player_states(self) -> list[PlayerState]:
        """The players to pair in the next round, absentees left out."""
        played = self.rounds_played
        scores = self.scores_after(played)
        before_last = self.scores_after(played - 1)
        colours: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
        opponents: dict[int, set[int]] = defaultdict(set)
        floated: set[int] = set()
        won_by_forfeit: set[int] = set()
        for g in self.games:
            if g.played:
                # Lim 2 (FIDE C.04.1 b): only a game played is a meeting.
                opponents[g.white].add(g.black)
                opponents[g.black].add(g.white)
                colours[g.white].append((g.round, g.leg, WHITE))
                colours[g.black].append((g.round, g.leg, BLACK))
            elif g.white_points != g.black_points:
                # Lim 1 (FIDE C.04.1): a win because the opponent did not show up (RULES 4.7);
                # a 0-0 double absence is nobody's win.
                won_by_forfeit.add(g.white if g.white_points > g.black_points else g.black)
            if g.round == played and before_last[g.white] != before_last[g.black]:
                # Lim 5.4 (3.10): a float is a game against a different score; not a bye.
                floated.update((g.white, g.black))
        had_bye = {b.player for b in self.byes if b.kind in (BYE_PAIRING_ALLOCATED, BYE_FULL)}
        states = []
        for e in sorted(self.entrants, key=lambda e: e.number):
            if e.number in self.absent_next:
                continue
            played_games = sorted(colours[e.number])
            states.append(
                PlayerState(
                    number=e.number,
                    score=scores[e.number],
                    colours="".join(c for _, _, c in played_games),
                    opponents=frozenset(opponents[e.number]),
                    had_bye=e.number in had_bye,
                    floated_last_round=e.number in floated,
                    rating=e.rating,
                    colour_rounds=tuple(r for r, _, _ in played_games),
                    won_by_forfeit=e.number in won_by_forfeit,
                )
            )
        return states

    def with_round(
        self, pairing: Pairing, results: dict[Game, tuple[int, int]], round_number: int
    ) -> Tournament:
        """A copy with one more round: `results` gives (white_points, black_points)."""
        games = list(self.games)
        for game in pairing.games:
            white_points, black_points = results[game]
            games.append(
                GameResult(round_number, game.white, game.black, white_points, black_points)
            )
        byes = list(self.byes)
        if pairing.bye is not None:
            byes.append(Bye(round_number, pairing.bye, BYE_PAIRING_ALLOCATED, self.bye_points))
        return Tournament(
            entrants=self.entrants,
            total_rounds=self.total_rounds,
            games=tuple(games),
            byes=tuple(byes),
            first_colour=self.first_colour,
            double_games=self.double_games,
            name=self.name,
            rounds_held=max(self.rounds_played, round_number),
            teams=self.teams,
        )
