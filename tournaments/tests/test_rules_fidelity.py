"""An arbiter's cases (RULES 4.7, 4.9, 7.1, 7.3), each set up as the arbiter met it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games import services as games
from games.models import Game
from games.models import Status as GameStatus
from tournaments import running
from tournaments.models import Pairing, Tournament
from tournaments.tests.factories import tick
from tournaments.tests.test_run import T0, live_games, make, ms

pytestmark = pytest.mark.django_db


def sit_and(game: Game, at, outcome: str) -> None:
    for user_id in (game.white_id, game.black_id):
        games.game_presence(
            game_id=game.pk,
            user_id=user_id,
            connected=True,
            key=f"s{game.pk}{user_id}",
            at_ms=ms(at),
        )
    if outcome == "draw":
        games.game_draw_offer(game_id=game.pk, user_id=game.white_id, at_ms=ms(at))
        games.game_draw_accept(game_id=game.pk, user_id=game.black_id, at_ms=ms(at))
    else:
        loser = game.black_id if outcome == "white" else game.white_id
        games.game_resign(game_id=game.pk, user_id=loser, at_ms=ms(at))


def test_art_11_protects_every_player_level_with_the_winner(monkeypatch):
    """A 5-player round robin where A and B finish level on points: the Berger number ranks one
    of them first, but both are first for Art. 11 (before: only rank 1 was protected)."""
    tournament = make(5)
    tick(T0)
    tournament.refresh_from_db()
    assert tournament.format == "round_robin"
    by_number = {p.number: p.player_id for p in tournament.participants.all()}
    a, b = by_number[1], by_number[2]
    captured = {}
    real = running.end.tournament_rate
    monkeypatch.setattr(
        running.end,
        "tournament_rate",
        lambda tournament: captured.update(t=tournament) or real(tournament=tournament),
    )
    now = T0
    for _ in range(20):
        for game in live_games(tournament):
            players = {game.white_id, game.black_id}
            if players == {a, b}:
                sit_and(game, now, "draw")
            elif a in players or b in players:
                sit_and(game, now, "white" if game.white_id in (a, b) else "black")
            else:
                sit_and(game, now, "white")
        now += timedelta(minutes=1)
        tick(now)
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
    assert tournament.status == Tournament.Status.FINISHED
    points = dict(tournament.participants.values_list("player_id", "points"))
    assert points[a] == points[b] == max(points.values())
    ranks = dict(tournament.participants.values_list("player_id", "rank"))
    assert sorted((ranks[a], ranks[b])) == [1, 2]  # the tiebreaks still order them
    assert captured["t"].first_place == frozenset({a, b})


def test_no_second_game_opens_after_the_announced_end():
    """RULES 4.9: a double pairing whose first game ends after the announced end does not open
    its second game; that game is scored 0-0, unplayed (before: it opened in the grace)."""
    tournament = make(4, base_seconds=1800)  # four players: double games (RULES 4.4)
    tick(T0)
    tournament.refresh_from_db()
    assert tournament.legs == 2
    end = T0 + timedelta(minutes=10)  # a short announced end, so the clocks outlast it
    Tournament.objects.filter(pk=tournament.pk).update(announced_end=end)
    early, late = live_games(tournament)
    sit_and(early, T0 + timedelta(minutes=1), "white")
    tick(T0 + timedelta(minutes=1))  # before the end: its second game opens
    assert Pairing.objects.get(game1=early).game2_id is not None
    sit_and(late, end + timedelta(minutes=1), "black")  # game 1 resigned at end + 1 min
    tick(end + timedelta(minutes=1))
    pairing = Pairing.objects.get(game1=late)
    assert pairing.game2_id is None
    assert (pairing.white_points2, pairing.black_points2, pairing.played2) == (0, 0, False)
    assert (pairing.white_points1, pairing.black_points1) == (0, 2)


def test_a_game_nobody_sat_at_closes_0_0_at_the_end_of_the_grace():
    """RULES 4.7 case 3 vs 4.9: nobody sat, still open at end + grace: 0-0 unplayed, not a
    1-1 draw (before: drawn and marked played)."""
    tournament = make(8, base_seconds=1800)
    tick(T0)
    end = T0 + timedelta(minutes=1)  # a short announced end, so the clocks outlast the grace
    Tournament.objects.filter(pk=tournament.pk).update(announced_end=end, next_due_at=end)
    tournament.refresh_from_db()
    games_open = live_games(tournament)
    sat, nobody = games_open[0], games_open[1]
    for user_id in (sat.white_id, sat.black_id):
        games.game_presence(
            game_id=sat.pk, user_id=user_id, connected=True, key=f"k{user_id}", at_ms=ms(T0)
        )
    for game in games_open[2:]:
        sit_and(game, T0, "white")
    tick(tournament.announced_end + running.GRACE)
    sat.refresh_from_db()
    nobody.refresh_from_db()
    assert (sat.result, sat.reason) == ("1/2-1/2", "event_end")
    assert (nobody.result, nobody.reason) == ("0-0", "both_absent")
    pairing = Pairing.objects.get(game1=nobody)
    assert (pairing.white_points1, pairing.black_points1, pairing.played1) == (0, 0, False)
    assert Pairing.objects.get(game1=sat).played1 is True


def test_four_players_force_double_games_and_so_restore_rating():
    """RULES 7.3 Decision: created casual for a class-3 table draw without double games, a
    tournament that starts with four players plays double games and becomes rated, no floor."""
    tournament = make(4, variant="italian", opening_mode="table3", rated=False)
    Tournament.objects.filter(pk=tournament.pk).update(rated_switched_off=True)
    tick(T0)
    tournament.refresh_from_db()
    assert tournament.legs == 2
    assert (tournament.rated, tournament.rated_switched_off, tournament.floor) == (
        True,
        False,
        None,
    )
    assert tournament.rated_by_double_games
    assert all(g.rated and g.rated_with_event for g in live_games(tournament))
    # Five players: no forced double games, the tournament stays casual.
    other = make(5, variant="italian", opening_mode="table3", rated=False)
    Tournament.objects.filter(pk=other.pk).update(rated_switched_off=True)
    tick(T0)
    other.refresh_from_db()
    assert (other.rated, other.rated_by_double_games) == (False, False)
    assert not any(g.rated for g in Game.objects.filter(event_id=other.pk, status=GameStatus.LIVE))


def test_the_page_says_the_tournament_became_rated(client):
    tournament = make(4, variant="italian", opening_mode="table3", rated=False)
    Tournament.objects.filter(pk=tournament.pk).update(rated_switched_off=True)
    tick(T0)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'data-testid="rated-on-notice"' in page
