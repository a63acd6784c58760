"""After a game: "Nuovo avversario" (games.services.after), on PostgreSQL, and the
draw offer declined told to the offerer."""

from __future__ import annotations

import json

import pytest
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from games.models import Challenge, ChallengeStatus, Game, PoolEntry
from games.services import (
    MAX_OPEN_CHALLENGES,
    GameNotFound,
    Malformed,
    NoDrawOffer,
    NoNewOpponent,
    NotAPlayer,
    PlayerBusy,
    Pool,
    TooManyChallenges,
    challenge_create,
    game_draw_decline,
    game_draw_offer,
    game_resign,
    group_name,
    new_opponent_seek,
    pool_join,
    rematch_offer,
)
from games.tests.factories import T0, UserFactory, open_game
from live import pushes

pytestmark = pytest.mark.django_db


def finished_game(*, base_seconds=300, increment_seconds=0, rated=True, variant_code="chess"):
    game = open_game(
        base_seconds=base_seconds,
        increment_seconds=increment_seconds,
        rated=rated,
        variant_code=variant_code,
    )
    game_resign(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 1000)
    game.refresh_from_db()
    return game


def test_after_a_pool_game_both_players_are_paired_again_in_the_same_pool():
    """A 5+0 rated game (a quick-pairing cell): each player waits again in that pool; the
    second one's click finds the first waiting and opens their new game at once."""
    game = finished_game()
    first = new_opponent_seek(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 2000)
    assert first.pool == Pool("chess", 300, 0, True) and first.game is None
    entry = PoolEntry.objects.get(player_id=game.white_id)
    assert (entry.variant, entry.base_seconds, entry.increment_seconds, entry.rated) == (
        "chess",
        300,
        0,
        True,
    )
    assert not Challenge.objects.exists()
    second = new_opponent_seek(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 3000)
    assert second.game is not None and second.game.is_live
    assert {second.game.white_id, second.game.black_id} == {game.white_id, game.black_id}
    assert (second.game.base_seconds, second.game.increment_seconds, second.game.rated) == (
        300,
        0,
        True,
    )
    assert not PoolEntry.objects.exists()


def test_a_casual_game_goes_back_to_the_casual_pool_of_its_variant():
    game = finished_game(rated=False, variant_code="italian", base_seconds=180, increment_seconds=2)
    found = new_opponent_seek(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 2000)
    assert found.pool == Pool("italian", 180, 2, False)
    # Someone waiting in the rated pool of the same time is another pool: no game.
    rated_one = UserFactory()
    assert pool_join(player_id=rated_one.pk, pool=Pool("italian", 180, 2, True)) is None
    assert PoolEntry.objects.get(player_id=game.black_id).rated is False


def test_a_custom_time_control_posts_the_same_open_challenge_once():
    game = finished_game(base_seconds=420, increment_seconds=3, rated=False)
    found = new_opponent_seek(game_id=game.pk, user_id=game.white_id)
    challenge = found.challenge
    assert found.pool is None and found.game is None and challenge is not None
    assert (
        challenge.variant,
        challenge.base_seconds,
        challenge.increment_seconds,
        challenge.rated,
        challenge.color,
        challenge.opponent_id,
        challenge.status,
    ) == ("chess", 420, 3, False, "random", None, ChallengeStatus.OPEN)
    # A second click (or a double one) keeps that challenge: nothing more is posted.
    again = new_opponent_seek(game_id=game.pk, user_id=game.white_id)
    assert again.challenge == challenge and Challenge.objects.count() == 1
    assert not PoolEntry.objects.exists()


def test_a_custom_time_control_with_too_many_challenges_open_is_refused():
    game = finished_game(base_seconds=420, increment_seconds=3)
    for minutes in range(1, MAX_OPEN_CHALLENGES + 1):
        challenge_create(
            challenger_id=game.white_id,
            variant_code="chess",
            base_seconds=60 * minutes,
            increment_seconds=1,
            color="random",
            rated=True,
        )
    with pytest.raises(TooManyChallenges):
        new_opponent_seek(game_id=game.pk, user_id=game.white_id)
    assert Challenge.objects.count() == MAX_OPEN_CHALLENGES


def test_refusals_change_nothing():
    live_game = open_game(base_seconds=300, increment_seconds=0)
    with pytest.raises(NoNewOpponent):  # still being played
        new_opponent_seek(game_id=live_game.pk, user_id=live_game.white_id)
    with pytest.raises(Malformed):
        new_opponent_seek(game_id="12", user_id=live_game.white_id)
    with pytest.raises(Malformed):
        new_opponent_seek(game_id=True, user_id=live_game.white_id)
    with pytest.raises(GameNotFound):
        new_opponent_seek(game_id=999_999_999, user_id=live_game.white_id)

    game = finished_game()
    with pytest.raises(NotAPlayer):
        new_opponent_seek(game_id=game.pk, user_id=UserFactory().pk)
    # RULES 1: a player already at another board may not wait for a third; their pending
    # rematch offer stays as it was.
    offer, _none = rematch_offer(game_id=game.pk, user_id=game.white_id)
    busy = open_game(white=game.white, base_seconds=300, increment_seconds=0)
    with pytest.raises(PlayerBusy):
        new_opponent_seek(game_id=game.pk, user_id=game.white_id)
    assert not PoolEntry.objects.exists()
    assert Challenge.objects.get(pk=offer.pk).status == ChallengeStatus.OPEN
    game_resign(game_id=busy.pk, user_id=busy.white_id, at_ms=T0 + 5000)

    # Never after a tournament or arena game: the event pairs its players itself.
    event_game = finished_game()
    Game.objects.filter(pk=event_game.pk).update(
        event_type=ContentType.objects.get_for_model(Game), event_id=1
    )
    with pytest.raises(NoNewOpponent):
        new_opponent_seek(game_id=event_game.pk, user_id=event_game.white_id)
    assert not PoolEntry.objects.exists()


def test_looking_elsewhere_answers_the_rematches_pending():
    """One's own rematch offer is withdrawn, the opponent's declined (their page says so)."""
    game = finished_game()
    mine, _none = rematch_offer(game_id=game.pk, user_id=game.white_id)
    new_opponent_seek(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 2000)
    assert Challenge.objects.get(pk=mine.pk).status == ChallengeStatus.CANCELLED

    other = finished_game()
    theirs, _none = rematch_offer(game_id=other.pk, user_id=other.black_id)
    new_opponent_seek(game_id=other.pk, user_id=other.white_id, at_ms=T0 + 2000)
    assert Challenge.objects.get(pk=theirs.pk).status == ChallengeStatus.DECLINED


def test_a_declined_draw_offer_is_told_after_the_state_without_it(
    django_capture_on_commit_callbacks,
):
    game = open_game()
    game_draw_offer(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 100)
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        declined = game_draw_decline(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 200)
    mine = [m for group, m in outbox if group == group_name(game.pk)]
    assert [m["type"] for m in mine] == ["game.state", "game.draw_declined"]
    told = json.loads(mine[1]["text"])
    assert told == {
        "type": "draw_declined",
        "game": game.pk,
        "version": declined.version,
        "ply": 0,
        "offer": "white",
    }
    assert json.loads(mine[0]["text"])["version"] == declined.version
    # Nothing pending: refused, and nobody is told anything.
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(NoDrawOffer):
            game_draw_decline(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 300)
    assert outbox == []


# --- the pages ---------------------------------------------------------------------------


def grid(client, variant_code="chess", **headers) -> str:
    response = client.get(
        reverse("games:lobby") + f"?pool_variant={variant_code}",
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="quick-pairing",
        **headers,
    )
    assert response.status_code == 200
    return response.content.decode()


def cell(html: str, tc: str) -> str:
    start = html.index(f'data-testid="pool-{tc}"')
    return html[start : html.index("</button>", start)]


def test_each_cell_says_who_waits_and_how_many_games_are_played(client, django_assert_num_queries):
    viewer = UserFactory()
    client.force_login(viewer)
    for _ in range(2):
        open_game(base_seconds=300, increment_seconds=0)  # two 5+0 games of chess
    open_game(base_seconds=300, increment_seconds=0, variant_code="italian")  # another variant
    finished_game()  # over: not counted
    pool_join(player_id=UserFactory().pk, pool=Pool("chess", 180, 2, True))
    pool_join(player_id=UserFactory().pk, pool=Pool("chess", 180, 2, False))  # casual too
    # The session, the viewer, their wait, who waits, the games played: a fixed number.
    with django_assert_num_queries(5):
        html = grid(client)
    assert "2 in gioco" in cell(html, "5+0") and "in attesa" not in cell(html, "5+0")
    assert "2 in attesa" in cell(html, "3+2") and "in gioco" not in cell(html, "3+2")
    assert "in gioco" not in cell(html, "1+0") and "in attesa" not in cell(html, "1+0")
    italian = grid(client, "italian")
    assert "1 in gioco" in cell(italian, "5+0")
    # More games and waits cost no more queries.
    for _ in range(5):
        open_game(base_seconds=60, increment_seconds=0)
    pool_join(player_id=UserFactory().pk, pool=Pool("chess", 600, 0, True))
    with django_assert_num_queries(5):
        html = grid(client)
    assert "5 in gioco" in cell(html, "1+0") and "1 in attesa" in cell(html, "10+0")
    client.cookies["django_language"] = "en"  # the language switch
    english = grid(client)
    assert "5 playing" in cell(english, "1+0") and "2 waiting" in cell(english, "3+2")


def test_the_challenge_notice_says_rated_or_casual_and_the_colour_given(client):
    anna, bruno = UserFactory(), UserFactory()
    for color, rated in (("white", True), ("random", False)):
        challenge_create(
            challenger_id=anna.pk,
            opponent_id=bruno.pk,
            variant_code="italian",
            base_seconds=300,
            increment_seconds=0,
            color=color,
            rated=rated,
        )
    client.force_login(bruno)
    notices = client.get(reverse("games:notices")).content.decode()
    # Newest first: the casual one at random, then the rated one where Anna has White.
    casual_one, rated_one = notices.split('data-testid="challenge-notice"')[1:]
    assert "amichevole" in casual_one and "colore a caso" in casual_one
    assert "valida per il punteggio" in rated_one and "giochi col nero" in rated_one
    client.cookies["django_language"] = "en"  # the language switch
    english = client.get(reverse("games:notices")).content.decode()
    assert "you play Black" in english and "rated" in english and "casual" in english
    client.cookies["django_language"] = "it"
    # The lobby's list says the same: the colour the viewer would play.
    lobby = client.get(reverse("games:lobby")).content.decode()
    assert "giochi col nero" in lobby and "colore a caso" in lobby
    client.force_login(anna)  # her own challenge: the colour she plays
    assert "giochi col bianco" in client.get(reverse("games:lobby")).content.decode()


def test_the_box_after_a_game_offers_both_and_new_opponent_goes_to_the_lobby(client):
    game = finished_game()
    client.force_login(game.white)
    box = client.get(reverse("games:rematch", args=[game.pk])).content.decode()
    assert 'data-testid="rematch-offer"' in box and 'data-testid="new-opponent"' in box
    url = reverse("games:new_opponent", args=[game.pk])
    response = client.post(url, HTTP_HX_REQUEST="true")
    assert response["HX-Redirect"] == reverse("games:lobby")
    assert PoolEntry.objects.filter(player=game.white).exists()
    lobby = client.get(reverse("games:lobby")).content.decode()
    assert 'data-testid="pool-waiting"' in lobby and "Scacchi 5+0" in lobby
    # The opponent's click finds them waiting: straight to the new board.
    client.force_login(game.black)
    response = client.post(url, HTTP_HX_REQUEST="true")
    new_game = Game.objects.get(status="live")
    assert response["HX-Redirect"] == reverse("games:game", args=[new_game.pk])


def test_new_opponent_refused_says_why_and_changes_nothing(client):
    game = finished_game()
    url = reverse("games:new_opponent", args=[game.pk])
    assert client.post(url).status_code == 302  # a guest: to the log-in page
    client.force_login(game.white)
    assert client.get(url).status_code == 405
    open_game(white=game.white)  # at another board now
    box = client.post(url, HTTP_HX_REQUEST="true").content.decode()
    assert 'data-testid="new-opponent-error"' in box and "partita in corso" in box
    assert 'data-testid="new-opponent"' in box
    assert not PoolEntry.objects.exists() and not Challenge.objects.exists()
    # Without htmx: back to the game with the message.
    response = client.post(url, follow=True)
    assert response.redirect_chain[-1][0] == reverse("games:game", args=[game.pk])
    assert "partita in corso" in response.content.decode()
    stranger = UserFactory()
    client.force_login(stranger)
    response = client.post(url, HTTP_HX_REQUEST="true")
    assert response["HX-Redirect"] == reverse("games:game", args=[game.pk])
    assert not PoolEntry.objects.exists()
    assert client.post(reverse("games:new_opponent", args=[999_999_999])).status_code == 404
