"""A league of team matches (RULES 16.8) as plain Python (STYLE 1): which system a league
plays, its round-robin calendar, what the Lim pairing of a Swiss of teams sees, its standings
and its board prizes. Nothing here reads the
database; teams are their league numbers (1..n, drawn by lot at the start, as Berger numbers,
RULES 5.1).

The round robin is the FSI Berger table of the field (events.pairing.berger), read team for
team; the Swiss hands Lim (events.pairing.lim) the teams as `SwissTeam`s, field for field its
`PlayerState`. The callers (teams.leagues) build the one and pass the other.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from events.pairing.model import PlayerState
from teams.rules import MATCH_WIN, WIN, match_points

TEAMS_MIN = 3  # RULES 16.8
TEAMS_MAX = 16
ROUND_ROBIN_MAX = 10  # RULES 16.8: more than 10 teams play a Swiss
ROUND_ROBIN, SWISS = "round_robin", "swiss"


def league_system(teams: int) -> str:
    """RULES 16.8: a round robin for 3 to 10 teams, a Swiss of teams for 11 to 16."""
    if not TEAMS_MIN <= teams <= TEAMS_MAX:
        raise ValueError(f"a league has {TEAMS_MIN} to {TEAMS_MAX} teams, not {teams}")
    return ROUND_ROBIN if teams <= ROUND_ROBIN_MAX else SWISS


def swiss_rounds(teams: int) -> int:
    """RULES 16.8: a Swiss of teams plays the rounds of an individual Swiss of the same field
    (RULES 4.4: ⌈log₂ n⌉ + 2), 6 for 11 to 16 teams."""
    if league_system(teams) != SWISS:
        raise ValueError(f"{teams} teams play a round robin, not a Swiss")
    return math.ceil(math.log2(teams)) + 2


# --- The round robin -------------------------------------------------------------------------


class TableRound(Protocol):
    """One row of a Berger table, as events.pairing.berger.BergerRound gives it: the pairs
    (the first number has White) and who rests."""

    @property
    def number(self) -> int: ...

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]: ...

    @property
    def bye(self) -> int | None: ...


@dataclass(frozen=True)
class Fixture:
    """A match of the calendar: `first` is the first-named team (the home team, White on
    board 1, RULES 16.3), `second` the other."""

    first: int
    second: int


@dataclass(frozen=True)
class LeagueRound:
    number: int
    cycle: int  # 1, or 2 in the second cycle of a double round robin
    fixtures: tuple[Fixture, ...]
    bye: int | None  # RULES 16.8: the team with no match this round (odd count), scoring nothing


def round_robin(
    table: Sequence[TableRound], *, teams: int, double: bool
) -> tuple[LeagueRound, ...]:
    """RULES 16.8: the calendar of a round-robin league of `teams` teams from the Berger table
    of that field: each pair of the table is a match whose first number is the first-named
    team; the team meeting the missing number rests. In a double round robin the second cycle
    replays the first round by round with the two teams of every match swapped (FSI: "nel
    secondo girone il Bianco e' da attribuirsi al secondo di ogni coppia di numeri")."""
    if league_system(teams) != ROUND_ROBIN:
        raise ValueError(f"{teams} teams play a Swiss, not a round robin")
    expected_rounds = teams - 1 if teams % 2 == 0 else teams
    if len(table) != expected_rounds:
        raise ValueError(f"the table has {len(table)} rounds, {teams} teams need {expected_rounds}")
    met: set[frozenset[int]] = set()
    for row in table:
        numbers = [n for pair in row.pairs for n in pair] + (
            [row.bye] if row.bye is not None else []
        )
        if sorted(numbers) != list(range(1, teams + 1)):
            raise ValueError(f"round {row.number} of the table does not seat every team once")
        met.update(frozenset(pair) for pair in row.pairs)
    if len(met) != teams * (teams - 1) // 2:
        raise ValueError("the table pairs some teams twice")

    first_cycle = tuple(
        LeagueRound(
            number=index,
            cycle=1,
            fixtures=tuple(Fixture(first, second) for first, second in row.pairs),
            bye=row.bye,
        )
        for index, row in enumerate(table, start=1)
    )
    if not double:
        return first_cycle
    second_cycle = tuple(
        LeagueRound(
            number=len(table) + r.number,
            cycle=2,
            fixtures=tuple(Fixture(f.second, f.first) for f in r.fixtures),
            bye=r.bye,
        )
        for r in first_cycle
    )
    return first_cycle + second_cycle


# --- Standings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchResult:
    """A finished match of the league: the two teams and their board points (RULES 16.5)."""

    first: int
    second: int
    first_points: int
    second_points: int
    # RULES 16.8: False when no board was played (every board empty on one side or both): it
    # scores, but for the Swiss pairing it is no meeting and gives no colour (lim.md rule 2).
    played: bool = True


@dataclass(frozen=True)
class ByeScore:
    """What a team scores for a round with no match: nothing in a round robin (no ByeScore is
    passed), `swiss_bye` in a Swiss. Never an opponent for any tiebreak (RULES 16.8)."""

    team: int
    match_points: int
    board_points: int


def swiss_bye(team: int, *, boards: int, double_games: bool) -> ByeScore:
    """RULES 16.8: a Swiss bye is a won match (2 match points, as the individual bye is a win,
    RULES 4.6) with the board points of a drawn one: 1 a game on every board."""
    games = 2 if double_games else 1
    return ByeScore(team=team, match_points=MATCH_WIN, board_points=boards * games)


@dataclass(frozen=True)
class StandingRow:
    place: int
    team: int
    played: int  # matches, byes not counted
    won: int
    drawn: int
    lost: int
    match_points: int  # byes included
    board_points: int  # byes included
    # RULES 16.8: match points among the teams level on match and board points, when every two
    # of them have met; None when the team is level with nobody or that group has not all met.
    direct_encounter: int | None
    buchholz: int
    sonneborn_berger: int


def standings(
    results: Sequence[MatchResult], *, teams: Sequence[int], byes: Sequence[ByeScore] = ()
) -> list[StandingRow]:
    """RULES 16.8: the teams in order of match points, board points, direct encounter,
    Buchholz, Sonneborn-Berger, then the league number (the lower first)."""
    known = set(teams)
    mp: dict[int, int] = dict.fromkeys(teams, 0)
    bp: dict[int, int] = dict.fromkeys(teams, 0)
    record: dict[int, list[int]] = {team: [0, 0, 0] for team in teams}  # won, drawn, lost
    # Per team, one entry per match: (opponent, own match points, own board points).
    matches: dict[int, list[tuple[int, int, int]]] = {team: [] for team in teams}
    for result in results:
        if result.first == result.second or not {result.first, result.second} <= known:
            raise ValueError(f"a match between {result.first} and {result.second}")
        first_mp, second_mp = match_points(result.first_points, result.second_points)
        for team, opponent, own_mp, own_bp in (
            (result.first, result.second, first_mp, result.first_points),
            (result.second, result.first, second_mp, result.second_points),
        ):
            mp[team] += own_mp
            bp[team] += own_bp
            record[team][(MATCH_WIN - own_mp)] += 1  # 2 -> won, 1 -> drawn, 0 -> lost
            matches[team].append((opponent, own_mp, own_bp))
    for bye in byes:
        if bye.team not in known:
            raise ValueError(f"a bye for {bye.team}, not in the league")
        mp[bye.team] += bye.match_points
        bp[bye.team] += bye.board_points

    # RULES 16.8: Buchholz, the final match points of every opponent met, once per match.
    buchholz = {team: sum(mp[opp] for opp, _, _ in matches[team]) for team in teams}
    # RULES 16.8: Sonneborn-Berger, every match's own board points times the opponent's final
    # match points.
    sonneborn_berger = {
        team: sum(own_bp * mp[opp] for opp, _, own_bp in matches[team]) for team in teams
    }

    direct: dict[int, int | None] = dict.fromkeys(teams)
    level: dict[tuple[int, int], list[int]] = defaultdict(list)
    for team in teams:
        level[(mp[team], bp[team])].append(team)
    for group in level.values():
        if len(group) < 2:
            continue
        members = set(group)
        encounters = {
            team: [(opp, own_mp) for opp, own_mp, _ in matches[team] if opp in members]
            for team in group
        }
        # RULES 16.8: only when every two of them have met.
        if all(members - {team} <= {opp for opp, _ in encounters[team]} for team in group):
            for team in group:
                direct[team] = sum(own_mp for _, own_mp in encounters[team])

    def key(team: int) -> tuple[int, int, int, int, int, int]:
        de = direct[team] if direct[team] is not None else 0
        return (-mp[team], -bp[team], -de, -buchholz[team], -sonneborn_berger[team], team)

    return [
        StandingRow(
            place=place,
            team=team,
            played=len(matches[team]),
            won=record[team][0],
            drawn=record[team][1],
            lost=record[team][2],
            match_points=mp[team],
            board_points=bp[team],
            direct_encounter=direct[team],
            buchholz=buchholz[team],
            sonneborn_berger=sonneborn_berger[team],
        )
        for place, team in enumerate(sorted(teams, key=key), start=1)
    ]


# --- The Swiss of teams: what the Lim pairing sees ---------------------------------------------


@dataclass(frozen=True)
class SwissRound:
    """A round of a Swiss of teams already played: its matches and the team with the bye."""

    matches: tuple[MatchResult, ...]
    bye: int | None = None


@dataclass(frozen=True)
class SwissTeam:
    """RULES 16.8: a team as the Lim pairing of the next round sees it, field for field what
    events.pairing.model.PlayerState takes (a caller above both floors builds one from
    the other); `team` is its league number, everything else speaks pairing numbers. The
    round's RoundSpec says single games even with double games: a team's colour is its first
    board's first game's, so colours do constrain (RULES 16.8)."""

    number: int  # pairing number: 1 is the best-seeded team
    team: int
    score: int  # match points, byes included (2 a won match: the engine's units)
    colours: str  # "W" first-named, "B" second-named, per match played, oldest first
    opponents: frozenset[int]  # pairing numbers of the teams met over the boards
    had_bye: bool
    floated_last_round: bool  # met a team with a different score in the last round
    colour_rounds: tuple[int, ...]  # the round of each entry of `colours`
    won_by_forfeit: bool  # Lim 1: won a match nobody played on the other side


def swiss_teams(rounds: Sequence[SwissRound], *, seeding: Sequence[int]) -> tuple[SwissTeam, ...]:
    """RULES 16.8: every team's state before the next round of a Swiss of teams. `seeding` is
    the league numbers in pairing-number order (the average rating of the N best-rated members,
    then the name: the caller's). Scores are match points (Lim 3's score groups); the colour of
    a match is the first board's, White for the first-named team (RULES 16.3); a match not
    played is no meeting and has no colour (lim.md rule 2)."""
    if len(set(seeding)) != len(seeding):
        raise ValueError("a team twice in the seeding")
    number = {team: index for index, team in enumerate(seeding, start=1)}
    score = dict.fromkeys(seeding, 0)
    colours: dict[int, list[tuple[int, str]]] = {team: [] for team in seeding}
    opponents: dict[int, set[int]] = {team: set() for team in seeding}
    had_bye: set[int] = set()
    won_by_forfeit: set[int] = set()
    floated: set[int] = set()
    for index, round_ in enumerate(rounds, start=1):
        before = dict(score)
        floated = set()
        seated = [t for m in round_.matches for t in (m.first, m.second)]
        seated += [round_.bye] if round_.bye is not None else []
        if not set(seated) <= set(seeding) or len(set(seated)) != len(seated):
            raise ValueError(f"round {index} seats a team twice or a team not in the league")
        for match in round_.matches:
            first_mp, second_mp = match_points(match.first_points, match.second_points)
            score[match.first] += first_mp
            score[match.second] += second_mp
            if not match.played:
                if first_mp == MATCH_WIN:
                    won_by_forfeit.add(match.first)
                elif second_mp == MATCH_WIN:
                    won_by_forfeit.add(match.second)
                continue
            colours[match.first].append((index, "W"))
            colours[match.second].append((index, "B"))
            opponents[match.first].add(number[match.second])
            opponents[match.second].add(number[match.first])
            if before[match.first] != before[match.second]:
                floated |= {match.first, match.second}
        if round_.bye is not None:
            score[round_.bye] += MATCH_WIN  # RULES 16.8: the Swiss bye is a won match
            had_bye.add(round_.bye)
    return tuple(
        SwissTeam(
            number=number[team],
            team=team,
            score=score[team],
            colours="".join(colour for _, colour in colours[team]),
            opponents=frozenset(opponents[team]),
            had_bye=team in had_bye,
            floated_last_round=team in floated,
            colour_rounds=tuple(r for r, _ in colours[team]),
            won_by_forfeit=team in won_by_forfeit,
        )
        for team in seeding
    )


def player_states(teams: Sequence[SwissTeam]) -> list[PlayerState]:
    """The teams as Lim's pairing takes its players (events.pairing.lim.pair_round)."""
    return [
        PlayerState(
            number=t.number,
            score=t.score,
            colours=t.colours,
            opponents=t.opponents,
            had_bye=t.had_bye,
            floated_last_round=t.floated_last_round,
            colour_rounds=t.colour_rounds,
            won_by_forfeit=t.won_by_forfeit,
        )
        for t in teams
    ]


# --- Board prizes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardGame:
    """One game of a player on a board number of the league; `played` False for a forfeit
    (RULES 16.4), which counts for nobody's board prize."""

    board: int
    player: Hashable
    points: int  # the player's board points for the game: 2, 1 or 0 (RULES 16.5)
    played: bool = True


@dataclass(frozen=True)
class BoardScore:
    player: Hashable
    games: int
    points: int

    @property
    def share(self) -> Fraction:
        """The percentage as a fraction of the points a game could give (2 a game)."""
        return Fraction(self.points, WIN * self.games)


@dataclass(frozen=True)
class BoardPrize:
    board: int
    winners: tuple[BoardScore, ...]  # more than one when shared (RULES 16.8)


def board_prize_minimum(*, matches_per_team: int, games_per_board: int) -> int:
    """RULES 16.8: half the games a board of one team plays in the league, rounded up."""
    return math.ceil(matches_per_team * games_per_board / 2)


def board_prizes(games: Sequence[BoardGame], *, minimum_games: int) -> list[BoardPrize]:
    """RULES 16.8: per board number, the best percentage among the players with at least
    `minimum_games` games played on that board (each board counted apart); level
    percentages go to more games played, then the prize is shared. Boards where nobody
    reaches the minimum have no prize."""
    if minimum_games < 1:
        raise ValueError("a board prize needs at least one game")
    totals: dict[tuple[int, Hashable], list[int]] = defaultdict(lambda: [0, 0])
    for game in games:
        if not game.played:
            continue
        entry = totals[(game.board, game.player)]
        entry[0] += 1
        entry[1] += game.points
    by_board: dict[int, list[BoardScore]] = defaultdict(list)
    for (board, player), (count, points) in totals.items():
        if count >= minimum_games:
            by_board[board].append(BoardScore(player=player, games=count, points=points))
    prizes = []
    for board in sorted(by_board):
        best = max((score.share, score.games) for score in by_board[board])
        winners = tuple(s for s in by_board[board] if (s.share, s.games) == best)
        prizes.append(BoardPrize(board=board, winners=winners))
    return prizes
