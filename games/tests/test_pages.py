"""Challenges, lobby, game page, export, notices, player page, admin."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import Challenge, ChallengeStatus, Game
from games.services import (
    ChallengeGone,
    Malformed,
    NotAPlayer,
    PlayerBusy,
    challenge_accept,
    challenge_cancel,
    challenge_create,
    game_move,
)
from games.tests.factories import PASSWORD, UserFactory, open_game

pytestmark = pytest.mark.django_db


def post_challenge(user, **overrides):
    data = dict(
        challenger_id=user.pk,
        variant_code="chess",
        base_seconds=180,
        increment_seconds=2,
        color="white",
        rated=True,
    )
    data.update(overrides)
    return challenge_create(**data)


def test_challenge_accept_opens_game_with_colours():
    anna, bruno = UserFactory(), UserFactory()
    challenge = post_challenge(anna, color="black")
    game = challenge_accept(challenge_id=challenge.pk, user_id=bruno.pk)
    assert (game.white_id, game.black_id, game.base_seconds) == (bruno.pk, anna.pk, 180)
    challenge.refresh_from_db()
    assert (challenge.status, challenge.game_id) == (ChallengeStatus.ACCEPTED, game.pk)
    with pytest.raises(ChallengeGone):
        challenge_accept(challenge_id=challenge.pk, user_id=UserFactory().pk)


def test_challenge_rules():
    anna, bruno, carla = UserFactory(), UserFactory(), UserFactory()
    with pytest.raises(Malformed):
        post_challenge(anna, base_seconds=181 * 60)
    with pytest.raises(Malformed):
        post_challenge(anna, base_seconds=0, increment_seconds=0)
    with pytest.raises(Malformed):
        post_challenge(anna, opponent_id=anna.pk)
    addressed = post_challenge(anna, opponent_id=bruno.pk)
    with pytest.raises(NotAPlayer):
        challenge_accept(challenge_id=addressed.pk, user_id=carla.pk)
    with pytest.raises(NotAPlayer):
        challenge_accept(challenge_id=addressed.pk, user_id=anna.pk)
    assert challenge_cancel(challenge_id=addressed.pk, user_id=bruno.pk).status == "declined"
    # One board at a time: a challenge cannot start while a player is in a live game.
    challenge_accept(challenge_id=post_challenge(anna).pk, user_id=bruno.pk)
    with pytest.raises(PlayerBusy):
        challenge_accept(challenge_id=post_challenge(carla).pk, user_id=bruno.pk)


def test_lobby_create_accept_and_game_page(client):
    anna, bruno = UserFactory(), UserFactory()
    assert client.get(reverse("games:lobby")).status_code == 200
    client.login(username=anna.username, password=PASSWORD)
    response = client.post(
        reverse("games:lobby"),
        {
            "variant": "italian",
            "preset": "custom",
            "base_minutes": "7",
            "increment_seconds": "3",
            "color": "white",
            "rated": "on",
            "opponent": "",
        },
    )
    assert response.status_code == 302
    challenge = Challenge.objects.get()
    assert (challenge.variant, challenge.base_seconds, challenge.increment_seconds) == (
        "italian",
        420,
        3,
    )
    client.logout()
    client.login(username=bruno.username, password=PASSWORD)
    page = client.get(reverse("games:lobby"))
    assert f"accept-{challenge.pk}" in page.content.decode()
    response = client.post(reverse("games:challenge_accept", args=[challenge.pk]))
    game = Game.objects.get()
    assert response.url == reverse("games:game", args=[game.pk])
    page = client.get(response.url).content.decode()
    assert 'id="game-state"' in page and 'data-my-color="black"' in page
    # htmx poll of the waiting challenger follows to the board.
    client.logout()
    client.login(username=anna.username, password=PASSWORD)
    poll = client.get(reverse("games:lobby") + "?follow=1", HTTP_HX_REQUEST="true")
    assert poll["HX-Redirect"] == reverse("games:game", args=[game.pk])
    game_move(game_id=game.pk, user_id=anna.pk, expected_ply=0, move="22-18")
    export = client.get(reverse("games:export", args=[game.pk]))
    assert "22-18" in export.content.decode()
    player = client.get(reverse("player", args=[anna.username])).content.decode()
    assert 'data-testid="recent-games"' in player and f"/games/{game.pk}/" in player


def test_notices_show_challenges_addressed_to_you(client):
    anna, bruno = UserFactory(), UserFactory()
    post_challenge(anna, opponent_id=bruno.pk)
    client.login(username=bruno.username, password=PASSWORD)
    assert "challenge-notice" in client.get(reverse("games:notices")).content.decode()
    assert "challenge-notices" in client.get(reverse("home")).content.decode()


def test_admin_lists_and_shows_games(admin_client):
    anna, bruno = UserFactory(), UserFactory()
    game = challenge_accept(challenge_id=post_challenge(anna).pk, user_id=bruno.pk)
    game_move(game_id=game.pk, user_id=anna.pk, expected_ply=0, move="e2e4")
    listing = admin_client.get(reverse("admin:games_game_changelist") + f"?q={anna.username}")
    assert listing.status_code == 200 and str(game.pk) in listing.content.decode()
    detail = admin_client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert "1. e4" in detail


def test_missing_game_is_404(client):
    assert client.get(reverse("games:game", args=[999999])).status_code == 404


def test_game_pages_in_english(client):
    """The games app's own catalogue (games/locale/en) translates its pages."""
    anna, bruno = UserFactory(), UserFactory()
    post_challenge(anna, opponent_id=bruno.pk, variant_code="english")
    client.login(username=bruno.username, password=PASSWORD)
    client.cookies["django_language"] = "en"
    notices = client.get(reverse("games:notices"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"{anna.username} challenges you: English draughts" in notices
    assert ">Accept<" in notices and ">Decline<" in notices
    lobby = client.get(reverse("games:lobby"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Post a challenge" in lobby and "Lancia una sfida" not in lobby


def test_lobby_query_count_does_not_grow_with_challenges_or_games(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    viewer = UserFactory()
    client.force_login(viewer)

    def queries(n: int) -> int:
        for _ in range(n):
            challenger = UserFactory()
            challenge_create(
                challenger_id=challenger.pk,
                variant_code="chess",
                base_seconds=300,
                increment_seconds=0,
                color="random",
                rated=True,
            )
            open_game()
        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse("games:lobby")).status_code == 200
        with CaptureQueriesContext(connection) as refetch:  # the list's htmx re-fetch
            response = client.get(reverse("games:lobby") + "?follow=1", HTTP_HX_REQUEST="true")
            assert response.status_code == 200
        return len(captured), len(refetch)

    few, many = queries(2), queries(10)
    assert few == many
    assert few[1] < few[0]  # the re-fetch reads only the list


def test_a_player_keeps_only_a_few_challenges_open(client):
    """One account could post 10,000 open challenges; a few at most, with a message."""
    from games.services import MAX_OPEN_CHALLENGES, TooManyChallenges

    user = UserFactory()
    kwargs = dict(
        challenger_id=user.pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        color="random",
        rated=True,
    )
    for _ in range(MAX_OPEN_CHALLENGES):
        challenge_create(**kwargs)
    with pytest.raises(TooManyChallenges):
        challenge_create(**kwargs)
    client.force_login(user)
    response = client.post(
        reverse("games:lobby"), {"variant": "chess", "preset": "5+0", "color": "random"}
    )
    assert response.status_code == 200 and "sfide aperte" in response.content.decode()
    assert Challenge.objects.filter(challenger=user).count() == MAX_OPEN_CHALLENGES
    challenge_cancel(
        challenge_id=Challenge.objects.filter(challenger=user).first().pk, user_id=user.pk
    )
    challenge_create(**kwargs)  # room again


def test_a_deactivated_account_cannot_be_challenged(client):
    from games.services import OpponentUnavailable

    user, gone = UserFactory(), UserFactory(is_active=False)
    with pytest.raises(OpponentUnavailable):
        challenge_create(
            challenger_id=user.pk,
            opponent_id=gone.pk,
            variant_code="chess",
            base_seconds=300,
            increment_seconds=0,
            color="random",
            rated=True,
        )
    client.force_login(user)
    response = client.post(
        reverse("games:lobby"),
        {"variant": "chess", "preset": "5+0", "color": "random", "opponent": gone.username},
    )
    assert response.status_code == 200 and "opponent" in response.context["form"].errors
    assert not Challenge.objects.exists()


def test_a_deleted_opponent_is_named_in_the_recent_games_but_not_linked(client):
    """A deleted account's page is a 404: the tombstone is written, not linked to it."""
    from accounts.services import user_delete
    from games.services import game_resign

    anna, gone = UserFactory(), UserFactory()
    game = open_game(white=anna, black=gone)
    game_resign(game_id=game.pk, user_id=gone.pk)
    gone = user_delete(user_id=gone.pk)
    page = client.get(reverse("player", args=[anna.username])).content.decode()
    assert gone.username in page
    assert reverse("player", args=[gone.username]) not in page
    assert client.get(reverse("player", args=[gone.username])).status_code == 404
