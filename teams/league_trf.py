"""A league's TRF (RULES 16.8): its games as a FIDE TRF-16 file of individuals, with one `013`
team record per team, written by the pairing engine's writer (events.pairing.trf) and read back
by its reader. Read only.

The file's players are every player who sat at a board of the league, team after team in
league-number order, and in each team by the board they played most (then the lowest board,
then the name): a team's `013` line lists them in that order. A board won by forfeit against an
empty board is a full-point bye of its player ("F": the points without an opponent); a game not
played between two named players (a second game lost because a player was busy) keeps both
players, marked not played. **Decision**: with double games each match's two games are two
rounds of the file (round r's first game is round 2r − 1, its second round 2r), since a TRF-16
round holds one game a player.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from events.pairing.model import BYE_FULL, Bye, Entrant, GameResult, Tournament
from events.pairing.model import Team as FileTeam
from events.pairing.trf import TEAM_NAME_COLUMNS, write_trf
from games.models import Game
from teams import rules
from teams.models import Board, League, TeamMatch


def league_tournament(found: League) -> Tournament:
    teams = list(found.teams.exclude(number=None).order_by("number"))
    boards = list(
        Board.objects.filter(
            match__league_round__league=found, match__status=TeamMatch.Status.FINISHED
        )
        .select_related("match__league_round", "first_player", "second_player")
        .order_by("match__league_round__number", "match_id", "number")
    )
    # Who played for which team, on which boards.
    seen: dict[int, Counter] = defaultdict(Counter)
    names: dict[int, str] = {}
    team_of: dict[int, int] = {}
    for board in boards:
        for player, team_id in (
            (board.first_player, board.match.first_team_id),
            (board.second_player, board.match.second_team_id),
        ):
            if player is not None:
                seen[player.pk][board.number] += 1
                names[player.pk] = player.username
                team_of.setdefault(player.pk, team_id)
    number: dict[int, int] = {}
    file_teams = []
    for team in teams:
        players = [p for p in seen if team_of[p] == team.pk]
        players.sort(key=lambda p: (-max(seen[p].values()), min(seen[p]), names[p].lower(), p))
        for player in players:
            number[player] = len(number) + 1
        if players:
            file_teams.append(
                FileTeam(name=_file_name(team, teams), players=tuple(number[p] for p in players))
            )
    legs = found.legs
    games = {g.pk: g for g in Game.objects.filter(pk__in=_game_ids(boards))}
    results: list[GameResult] = []
    byes: list[Bye] = []
    for board in boards:
        league_round = board.match.league_round.number
        for n in range(1, legs + 1):
            first, second = board.points(n)
            if first is None:
                continue
            file_round = (league_round - 1) * legs + n
            a, b = board.first_player_id, board.second_player_id
            if a is None or b is None:
                present = a if a is not None else b
                if present is not None:
                    byes.append(Bye(file_round, number[present], BYE_FULL, max(first, second)))
                continue
            game = games.get(getattr(board, f"game{n}_id"))
            if game is not None:
                white, black = game.white_id, game.black_id
            else:  # RULES 16.3: the colours the game would have had
                white, black = (a, b) if rules.first_club_white(board.number, n) else (b, a)
            points = {a: first, b: second}
            results.append(
                GameResult(
                    round=file_round,
                    white=number[white],
                    black=number[black],
                    white_points=points[white],
                    black_points=points[black],
                    played=bool(getattr(board, f"played{n}")),
                )
            )
    return Tournament(
        entrants=tuple(Entrant(number=n, name=names[p]) for p, n in number.items()),
        total_rounds=found.rounds * legs,
        games=tuple(sorted(results, key=lambda g: (g.round, g.white))),  # the reader's order
        byes=tuple(sorted(byes, key=lambda b: (b.round, b.player))),
        name=f"{found.name} {found.season}",
        rounds_held=max([r.round for r in results] + [b.round for b in byes] + [0]),
        teams=tuple(file_teams),
    )


def _file_name(team, teams) -> str:
    """The team's name in the `013` line's 32 columns (TEAM_NAME_COLUMNS). Decision: a longer
    name is cut, and if two cut names would be the same, each ends with its league number."""
    cut = team.name[:TEAM_NAME_COLUMNS].rstrip()
    if any(o.pk != team.pk and o.name[:TEAM_NAME_COLUMNS].rstrip() == cut for o in teams):
        tail = f" ({team.number})"
        cut = team.name[: TEAM_NAME_COLUMNS - len(tail)].rstrip() + tail
    return cut


def _game_ids(boards) -> list[int]:
    return [g for b in boards for g in (b.game1_id, b.game2_id) if g is not None]


def league_trf(found: League) -> str:
    """The file's text; a league with double games writes each game as a round (module)."""
    return write_trf(league_tournament(found))
