"""What a league's pages show (RULES 16.8), read from the database and handed to the pure
rules of `teams.league`: the standings, the cross table of the teams, the rounds with their
matches, the board prizes. Read only (a selector module: it imports no service)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q

from teams import league as rules
from teams.models import Board, League, LeagueRound, LeagueTeam, TeamMatch
from teams.rules import board_points_label


@dataclass(frozen=True)
class TeamRow:
    """A line of the standings: the pure row and the team it is about."""

    row: rules.StandingRow
    team: LeagueTeam


@dataclass(frozen=True)
class CrossCell:
    """One cell of the cross table: the row team's board points against the column team, one
    entry per match finished (two in a double round robin); `own` marks the diagonal."""

    scores: tuple[str, ...] = ()
    own: bool = False


@dataclass(frozen=True)
class RoundView:
    number: int
    starts_at: datetime
    paired: bool
    matches: tuple[TeamMatch, ...]
    bye: LeagueTeam | None


@dataclass(frozen=True)
class PrizeView:
    board: int
    winners: tuple[tuple[str, str, int, str], ...]  # (player, team, games, points)
    percent: str


@dataclass
class LeagueTables:
    league: League
    teams: list[LeagueTeam]
    standings: list[TeamRow] = field(default_factory=list)
    cross: list[tuple[LeagueTeam, list[CrossCell]]] = field(default_factory=list)
    rounds: list[RoundView] = field(default_factory=list)
    prizes: list[PrizeView] = field(default_factory=list)
    prize_minimum: int = 0


def matches_per_team(found: League, teams: int) -> int:
    """RULES 16.8: how many matches one team plays in the league (board prizes' minimum)."""
    if found.system == rules.SWISS:
        return found.rounds
    per_cycle = teams - 1
    return per_cycle * (2 if found.double_round_robin else 1)


def league_tables(found: League) -> LeagueTables:
    """Every table of the league's page, in a handful of queries."""
    teams = list(found.teams.select_related("club").order_by("number", "name", "pk"))
    tables = LeagueTables(league=found, teams=teams)
    rounds = list(
        LeagueRound.objects.filter(league=found).select_related("bye_team").order_by("number")
    )
    matches = list(
        TeamMatch.objects.filter(league_round__league=found)
        .select_related("first_team", "second_team", "league_round")
        .order_by("league_round__number", "pk")
    )
    by_round: dict[int, list[TeamMatch]] = defaultdict(list)
    for match in matches:
        by_round[match.league_round_id].append(match)
    tables.rounds = [
        RoundView(
            number=r.number,
            starts_at=r.starts_at,
            paired=r.paired_at is not None,
            matches=tuple(by_round[r.pk]),
            bye=r.bye_team,
        )
        for r in rounds
    ]
    numbered = [t for t in teams if t.number is not None]
    if not numbered:  # not started: no number, no table yet
        return tables
    by_pk = {t.pk: t for t in numbered}
    by_number = {t.number: t for t in numbered}
    finished = [m for m in matches if m.status == TeamMatch.Status.FINISHED]
    results = [
        rules.MatchResult(
            first=by_pk[m.first_team_id].number,
            second=by_pk[m.second_team_id].number,
            first_points=m.first_points,
            second_points=m.second_points,
        )
        for m in finished
    ]
    byes = [
        rules.swiss_bye(
            by_pk[r.bye_team_id].number, boards=found.boards, double_games=found.legs == 2
        )
        for r in rounds
        if found.system == rules.SWISS and r.bye_team_id in by_pk
    ]
    rows = rules.standings(results, teams=sorted(by_number), byes=byes)
    tables.standings = [TeamRow(row=row, team=by_number[row.team]) for row in rows]

    cells: dict[tuple[int, int], list[str]] = defaultdict(list)
    for m in finished:
        first, second = by_pk[m.first_team_id].number, by_pk[m.second_team_id].number
        cells[(first, second)].append(board_points_label(m.first_points))
        cells[(second, first)].append(board_points_label(m.second_points))
    order = [tr.team for tr in tables.standings]
    tables.cross = [
        (
            team,
            [
                CrossCell(own=True)
                if other.pk == team.pk
                else CrossCell(scores=tuple(cells[(team.number, other.number)]))
                for other in order
            ],
        )
        for team in order
    ]

    tables.prize_minimum = rules.board_prize_minimum(
        matches_per_team=matches_per_team(found, len(numbered)), games_per_board=found.legs
    )
    games = []
    names: dict[int, tuple[str, str]] = {}
    boards = Board.objects.filter(match__in=[m.pk for m in finished]).select_related(
        "first_player", "second_player", "match__first_team", "match__second_team"
    )
    for board in boards.filter(Q(played1=True) | Q(played2=True)):
        for n in range(1, found.legs + 1):
            first, second = board.points(n)
            played = getattr(board, f"played{n}")
            if first is None:
                continue
            for player, points, team in (
                (board.first_player, first, board.match.first_team),
                (board.second_player, second, board.match.second_team),
            ):
                if player is None:
                    continue
                names[player.pk] = (player.username, team.name)
                games.append(rules.BoardGame(board.number, player.pk, points, played))
    prizes = rules.board_prizes(games, minimum_games=max(1, tables.prize_minimum))
    tables.prizes = [
        PrizeView(
            board=prize.board,
            winners=tuple(
                (*names[w.player], w.games, board_points_label(w.points)) for w in prize.winners
            ),
            percent=f"{float(prize.winners[0].share) * 100:.0f}%",
        )
        for prize in prizes
    ]
    return tables
