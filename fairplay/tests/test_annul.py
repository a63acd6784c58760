"""Annulling a player's results (RULES 15.5): the staff only, before the event is rated (a
running tournament); the opponents score their games as wins, the annulled player nothing,
and no game of theirs is rated; refusals save nothing."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from accounts.models import User
from accounts.tests.factories import UserFactory
from arena.models import Arena
from arena.tests.factories import ArenaFactory
from events.pairing import model
from events.services import EventError
from fairplay import services
from fairplay.models import Review
from fairplay.tests.factories import finished_game
from games.models import Game
from ratings.models import RatingChange, RatingPeriod
from ratings.performance import performance
from tournaments.models import Participant, Tournament
from tournaments.selectors import (
    annulled_results,
    engine_tournament,
    final_standings,
    run_standings,
)
from tournaments.tests.factories import tick
from tournaments.tests.test_run import T0, make, run

pytestmark = pytest.mark.django_db


def test_annulled_results_give_the_opponents_the_game():
    games = [
        model.GameResult(1, 1, 2, 2, 0),  # the annulled player (1) won
        model.GameResult(2, 3, 1, 1, 1),  # drew
        model.GameResult(3, 1, 4, 0, 2, played=False),  # lost by forfeit
        model.GameResult(3, 5, 6, 0, 0, played=False),  # others' double absence
        model.GameResult(4, 7, 1, 0, 0, played=False),  # a double absence with 1
    ]
    byes = [model.Bye(5, 1), model.Bye(4, 2)]
    kept, kept_byes = annulled_results(games, byes, {1})
    assert [(g.white_points, g.black_points, g.played) for g in kept] == [
        (0, 2, True),  # the game stays played: colours and meetings are the board's (Lim)
        (2, 0, True),
        (0, 2, False),
        (0, 0, False),
        (0, 0, False),  # nobody's game stays nobody's
    ]
    assert [(b.player, b.points) for b in kept_byes] == [(1, 0), (2, 2)]


def test_an_annulled_player_scores_nothing_and_no_game_of_theirs_is_rated():
    tournament = make(8)
    tick(T0)  # started: round 1 is live
    tournament.refresh_from_db()
    cheat = Participant.objects.filter(tournament=tournament).order_by("number").first()
    staff = UserFactory(is_staff=True)
    services.review_annul(kind="tournament", event=tournament, player_id=cheat.player_id, by=staff)
    assert Review.objects.get(player_id=cheat.player_id).annulled_at is not None
    # Twice changes nothing.
    services.review_annul(kind="tournament", event=tournament, player_id=cheat.player_id, by=staff)
    run(tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    state = engine_tournament(tournament)
    theirs = [g for g in state.games if cheat.number in (g.white, g.black)]
    assert theirs  # they stayed on the table (RULES 4.2) and played their games
    for g in theirs:
        mine, other = (
            (g.white_points, g.black_points)
            if g.white == cheat.number
            else (g.black_points, g.white_points)
        )
        assert (mine, other) == (0, model.WIN_POINTS) or (mine, other) == (0, 0)
    standings = {s.player: s for s in final_standings(tournament)}
    assert standings[cheat.number].points == 0
    cheat.refresh_from_db()
    assert cheat.points == 0 and cheat.annulled
    # Rated as one period without any game of theirs, for either side (RULES 15.5, 7.1).
    period = RatingPeriod.objects.get(kind=RatingPeriod.Kind.TOURNAMENT, source_id=tournament.pk)
    changes = {c.rating.player_id: c for c in RatingChange.objects.filter(period=period)}
    assert cheat.player_id not in changes
    finished = Game.objects.filter(
        event_type__model="tournament", event_id=tournament.pk, status="finished"
    )
    for player_id, change in changes.items():
        rated = [
            g
            for g in finished
            if player_id in (g.white_id, g.black_id)
            and cheat.player_id not in (g.white_id, g.black_id)
            and g.white_sat
            and g.black_sat
            and g.result in ("1-0", "0-1", "1/2-1/2")
        ]
        assert change.games == len(rated)
    # The performances are over the same games: the annulled player has none, and a game
    # against them counts in no opponent's (RULES 4.10, 15.5).
    starts = dict(
        Participant.objects.filter(tournament=tournament).values_list("player_id", "start_rating")
    )
    rows = {r.username: r for r in run_standings(tournament)}
    assert rows[cheat.player.username].performance is None
    met_the_cheat = 0
    for player_id in changes:
        opponents, halves = [], 0
        for g in finished:
            if player_id not in (g.white_id, g.black_id) or not (g.white_sat and g.black_sat):
                continue
            if g.result not in ("1-0", "0-1", "1/2-1/2"):
                continue
            if cheat.player_id in (g.white_id, g.black_id):
                met_the_cheat += 1
                continue
            white = g.white_id == player_id
            opponents.append(starts[g.black_id if white else g.white_id])
            halves += {"1-0": 2 if white else 0, "0-1": 0 if white else 2}.get(g.result, 1)
        username = User.objects.get(pk=player_id).username
        assert rows[username].performance == performance(opponents, Decimal(halves) / 2)
    assert met_the_cheat  # the case this checks was there


def test_who_may_annul_and_when(client):
    tournament = make(8)
    tick(T0)
    tournament.refresh_from_db()
    player = tournament.participants.order_by("number").first().player
    url = reverse("fairplay:annul", args=["tournament", tournament.pk, player.pk])
    # The organizer reads the report, but only the staff annul.
    client.force_login(tournament.opened_by)
    assert client.post(url).status_code == 403
    with pytest.raises(PermissionDenied):
        services.review_annul(
            kind="tournament", event=tournament, player_id=player.pk, by=tournament.opened_by
        )
    staff = UserFactory(is_staff=True)
    # Not a player of it: refused, nothing saved.
    with pytest.raises(EventError):
        services.review_annul(kind="tournament", event=tournament, player_id=staff.pk, by=staff)
    assert not Review.objects.exists()
    # The staff, from the report: done, and said on the standings.
    client.force_login(staff)
    report = client.get(reverse("fairplay:report", args=["tournament", tournament.pk]))
    assert report.status_code == 200
    assert client.post(url).status_code == 302
    assert Participant.objects.get(tournament=tournament, player=player).annulled
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert page.count('data-testid="annulled"') == 1
    # Once it is rated (finished), no more.
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    other = tournament.participants.order_by("number")[1].player
    with pytest.raises(EventError):
        services.review_annul(kind="tournament", event=tournament, player_id=other.pk, by=staff)
    assert not Participant.objects.get(tournament=tournament, player=other).annulled


def test_an_arena_has_no_annulment():
    arena = ArenaFactory(status=Arena.Status.RUNNING)
    a, b = UserFactory(), UserFactory()
    finished_game(arena, a, b, [3000] * 5, [3000] * 5)
    with pytest.raises(EventError):
        services.review_annul(
            kind="arena", event=arena, player_id=a.pk, by=UserFactory(is_staff=True)
        )
    assert not Review.objects.exists()
