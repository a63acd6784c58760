"""A league as its pages show it (RULES 16.8), built through the services: four clubs, the
league opened and started by the first club's president, round 1 played to its end, one match
of round 2 played, the rest to play. For the page tests, the accessibility walk and the
screenshots."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

from django.utils import timezone

from accounts.tests.factories import UserFactory
from clubs.tests.factories import club_with
from games import services as games
from ratings.tests.factories import RatingFactory
from teams import leagues, services
from teams.leagues import LeagueData
from teams.models import Board, League, TeamMatch
from teams.tests.factories import Side

CLUBS = (
    ("Circolo Scacchistico Milanese", "CSM", "Milano", "MI"),
    ("Società Scacchistica Torinese", "SST", "Torino", "TO"),
    ("Accademia Scacchi Genova", "ASG", "Genova", "GE"),
    ("Circolo Bolognese Scacchi", "CBS", "Bologna", "BO"),
)


def league_sides(prefix: str = "lega") -> list[Side]:
    """Four clubs, each a president and three members rated in chess blitz."""
    sides = []
    for k, (name, short, city, province) in enumerate(CLUBS):
        captain = UserFactory(username=f"{prefix}_{short.lower()}_pres")
        players = [UserFactory(username=f"{prefix}_{short.lower()}_{i}") for i in range(1, 4)]
        for i, player in enumerate(players):
            RatingFactory(
                player=player, variant="chess", cadence="blitz", value=2000 - 90 * i - 25 * k
            )
        club = club_with(
            president=captain,
            members=players,
            name=name,
            short_name=short,
            city=city,
            province=province,
        )
        sides.append(Side(club=club, captain=captain, players=players))
    return sides


def league_data(sides, **fields) -> LeagueData:
    return LeagueData(
        name=fields.pop("name", "Campionato del Nord"),
        season=fields.pop("season", "2026/27"),
        club_ids=[s.club.pk for s in sides],
        boards=fields.pop("boards", 2),
        variant="chess",
        base_seconds=180,
        increment_seconds=2,
        first_round_at=fields.pop("first_round_at", timezone.now() + timedelta(days=3)),
        round_gap=timedelta(days=7),
        **fields,
    )


def finish(game, result: str) -> None:
    at_ms = game.clock_since_ms + 5000
    if result == "1/2-1/2":
        games.game_draw_offer(game_id=game.pk, user_id=game.white_id, at_ms=at_ms)
        games.game_draw_accept(game_id=game.pk, user_id=game.black_id, at_ms=at_ms)
    else:
        loser = game.black_id if result == "1-0" else game.white_id
        games.game_resign(game_id=game.pk, user_id=loser, at_ms=at_ms)


def play(match: TeamMatch, by_club: dict, results: list[str]) -> None:
    """Both line-ups (each club's first players), the start, every board's game ended."""
    for club_id in (match.first_club_id, match.second_club_id):
        side = by_club[club_id]
        services.lineup_set(
            match_id=match.pk,
            by=side.captain,
            player_ids=[p.pk for p in side.players[: match.boards]],
        )
    services.match_start(match_id=match.pk, now=match.starts_at)
    for board, result in zip(
        Board.objects.filter(match=match).select_related("game1").order_by("number"),
        results,
        strict=True,
    ):
        finish(board.game1, result)
        services.match_game_finished(game_id=board.game1_id)


def played_league(prefix: str = "lega") -> SimpleNamespace:
    sides = league_sides(prefix)
    by_club = {s.club.pk: s for s in sides}
    league = leagues.league_create(by=sides[0].captain, data=league_data(sides))
    for side in sides:
        team = league.teams.get(club=side.club)
        leagues.team_set(
            league_id=league.pk,
            team_id=team.pk,
            by=side.captain,
            name=f"{side.club.city} A",
            player_ids=[p.pk for p in side.players],
        )
    leagues.league_start(league_id=league.pk, by=sides[0].captain)
    league.refresh_from_db()
    matches = TeamMatch.objects.filter(league_round__league=league).order_by(
        "league_round__number", "pk"
    )
    first, second, third = list(matches[:3])
    play(first, by_club, ["1-0", "1/2-1/2"])
    play(second, by_club, ["0-1", "0-1"])
    play(third, by_club, ["1-0", "1/2-1/2"])
    league.refresh_from_db()
    assert league.status == League.Status.RUNNING
    return SimpleNamespace(league=league, sides=sides, by_club=by_club)
