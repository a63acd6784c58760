"""What the game page shows besides the board: the imposed opening and how moves
are numbered, every position for navigation, ratings and their change, the claim, rematches,
and the list of games to watch."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games.models import Challenge, ChallengeStatus
from games.selectors import opening_shown
from games.services import (
    ChallengeGone,
    game_move,
    game_open,
    game_presence,
    game_resign,
    game_state,
    rematch_offer,
)
from games.services.due import game_settle
from games.tests.factories import T0, UserFactory, open_game

pytestmark = pytest.mark.django_db


def page_data(client, game) -> dict:
    html = client.get(reverse("games:game", args=[game.pk])).content.decode()
    start = html.index('<script id="game-page" type="application/json">') + len(
        '<script id="game-page" type="application/json">'
    )
    return json.loads(html[start : html.index("</script>", start)])


def test_an_imposed_opening_is_named_written_and_numbered_from():
    """Italian from a drawn opening (23-19 11-15 28-23, Black to move): the imposed moves are
    listed and numbered from 1, so Black's moves fall in Black's column (not an empty list,
    then Black's moves in White's column)."""
    from games.rules import variant

    rules = variant("italian")
    moves = ["23-19", "11-15", "28-23"]
    fen = rules.start_fen()
    for move in moves:
        fen = rules.apply(fen, move)
    game = open_game(
        variant_code="italian", start_fen=fen, opening_number=None, opening_moves=moves
    )
    shown = opening_shown(game)
    assert shown.name == "3 mosse a caso"
    assert [it for it, _en in shown.notation] == moves
    assert (shown.first_number, shown.offset) == (1, 0)  # 1. 23-19 11-15 2. 28-23 (Black)
    table = open_game(
        variant_code="italian", start_fen=fen, opening_number=103, opening_moves=moves
    )
    assert opening_shown(table).name == "Apertura n. 103 della tabella F.I.D., classe PARI"
    # Without its moves (a position given with Black to move): "1. … 6-11".
    bare = open_game(variant_code="italian", start_fen=fen)
    assert (opening_shown(bare).offset, opening_shown(bare).notation) == (1, [])
    assert game_state(game)["opening"] == {"number": None, "moves": moves}


def test_the_page_has_every_position_and_the_ratings(client):
    game = open_game(base_seconds=300, increment_seconds=0)
    game_move(game_id=game.pk, user_id=game.white_id, expected_ply=0, move="e2e4", at_ms=T0 + 1)
    data = page_data(client, game)
    assert len(data["positions"]) == 2 and data["positions"][1].startswith(
        "rnbqkbnr/pppppppp/8/8/4P3"
    )
    assert data["ratings"]["white"] == {"rating": 1500, "delta": None}
    positions = client.get(reverse("games:positions", args=[game.pk])).json()["positions"]
    assert positions == data["positions"]


@pytest.mark.django_db(transaction=True)
def test_the_rating_change_is_shown_once_the_game_is_rated(client):
    game = open_game(base_seconds=300, increment_seconds=0)
    for user in (game.white_id, game.black_id):
        game_presence(game_id=game.pk, user_id=user, key=f"s{user}", connected=True, at_ms=T0)
    game_resign(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 1)
    game_settle(game_id=game.pk)  # what the worker does after the game ends
    ratings = client.get(reverse("games:ratings", args=[game.pk])).json()
    assert ratings["white"]["rating"] == 1500 and ratings["white"]["delta"] > 0
    assert ratings["black"]["delta"] == -ratings["white"]["delta"]


def test_a_draw_claim_is_offered_only_when_the_rules_allow_one():
    game = open_game()
    assert game_state(game)["draw_claimable"] is False
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"]
    for ply, move in enumerate(shuffle):
        user = game.white_id if ply % 2 == 0 else game.black_id
        game = game_move(game_id=game.pk, user_id=user, expected_ply=ply, move=move, at_ms=T0 + ply)
        # Threefold repetition comes with the eighth ply, for White to claim.
        assert game_state(game)["draw_claimable"] is (ply == 7)


def test_rematch_offer_answer_and_both_asking():
    anna, bruno = UserFactory(), UserFactory()
    game = open_game(white=anna, black=bruno, rated=False)
    with pytest.raises(ChallengeGone):  # not while it is played
        rematch_offer(game_id=game.pk, user_id=anna.pk)
    game_resign(game_id=game.pk, user_id=anna.pk, at_ms=T0 + 1)
    offer, started = rematch_offer(game_id=game.pk, user_id=anna.pk)
    assert started is None and offer.opponent_id == bruno.pk and offer.color == "black"
    assert (offer.variant, offer.base_seconds, offer.rated) == ("chess", 60, False)
    assert rematch_offer(game_id=game.pk, user_id=anna.pk) == (offer, None)  # no second one
    # Bruno asks too: that is a yes, and the new game has the colours swapped.
    same, new_game = rematch_offer(game_id=game.pk, user_id=bruno.pk)
    assert same == offer and (new_game.white_id, new_game.black_id) == (bruno.pk, anna.pk)
    assert Challenge.objects.get(pk=offer.pk).status == ChallengeStatus.ACCEPTED


def test_no_rematch_for_an_event_game(client):
    from django.contrib.contenttypes.models import ContentType

    game = open_game()
    game_resign(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 1)
    game.event_type = ContentType.objects.get_for_model(game)
    game.event_id = game.pk
    game.save()
    with pytest.raises(ChallengeGone):
        rematch_offer(game_id=game.pk, user_id=game.white_id)
    client.force_login(game.white)
    assert client.get(reverse("games:rematch", args=[game.pk])).content == b""


def test_the_rematch_box_offers_answers_and_follows(client):
    anna, bruno = UserFactory(), UserFactory()
    game = open_game(white=anna, black=bruno)
    game_resign(game_id=game.pk, user_id=bruno.pk, at_ms=T0 + 1)
    url = reverse("games:rematch", args=[game.pk])
    client.force_login(anna)
    assert 'data-testid="rematch-offer"' in client.get(url).content.decode()
    assert 'data-testid="rematch-waiting"' in client.post(url, {"action": "offer"}).content.decode()
    client.force_login(bruno)
    box = client.get(url).content.decode()
    assert 'data-testid="rematch-offered-to-me"' in box and anna.username in box
    # The notices everywhere else show it; on the game's own page it is in the box.
    notices = reverse("games:notices")
    assert "challenge-notice" in client.get(notices).content.decode()
    assert "challenge-notice" not in client.get(f"{notices}?rematch_of={game.pk}").content.decode()
    response = client.post(url, {"action": "accept"}, HTTP_HX_REQUEST="true")
    new_game = Challenge.objects.get(rematch_of=game).game
    assert response["HX-Redirect"] == reverse("games:game", args=[new_game.pk])
    client.force_login(anna)
    follow = client.get(url + "?follow=1", HTTP_HX_REQUEST="true")
    assert follow["HX-Redirect"] == reverse("games:game", args=[new_game.pk])


def test_the_watch_page_lists_games_with_ratings_and_events(client, django_assert_max_num_queries):
    games = [open_game(variant_code=v) for v in ("chess", "italian", "english")]
    finished = open_game()
    game_resign(game_id=finished.pk, user_id=finished.white_id, at_ms=T0 + 1)
    with django_assert_max_num_queries(8):
        page = client.get(reverse("games:watch")).content.decode()
    for game in games:
        assert f'data-testid="live-game-{game.pk}"' in page
        assert reverse("games:game", args=[game.pk]) in page
    assert f'data-testid="live-game-{finished.pk}"' not in page
    assert "1500" in page
    italian = client.get(reverse("games:watch") + "?variant=italian").content.decode()
    assert f"live-game-{games[1].pk}" in italian and f"live-game-{games[0].pk}" not in italian


def test_cancel_goes_back_only_to_a_page_of_this_site(client):
    anna = UserFactory()
    client.force_login(anna)

    def cancel(next_url):
        from games.services import challenge_create

        challenge = challenge_create(
            challenger_id=anna.pk,
            variant_code="chess",
            base_seconds=60,
            increment_seconds=0,
            color="random",
            rated=True,
        )
        url = reverse("games:challenge_cancel", args=[challenge.pk])
        return client.post(url, {"next": next_url})["Location"]

    assert cancel("/tournaments/") == "/tournaments/"
    assert cancel("https://evil.example/phish") == reverse("games:lobby")
    assert cancel("//evil.example/") == reverse("games:lobby")
    # Seen in `make attack`: these answered 500 (read as a view name, a split or non-Latin-1
    # header, a lone surrogate); they go to the lobby like any other foreign target.
    for hostile in ("home", "foo bar", "/a\nSet-Cookie: x=1", "/\\evil.example", "/a\u202eb",
                    "/a\x00b", "N\x1dP"):  # fmt: skip
        assert cancel(hostile) == reverse("games:lobby"), hostile
    assert cancel("/players/Zoë/") == "/players/Zo%C3%AB/"  # a path of ours, encoded


def test_game_open_records_the_opening():
    white, black = UserFactory(), UserFactory()
    game = game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code="chess",
        base_seconds=60,
        increment_seconds=0,
        rated=False,
        opening_number=None,
        opening_moves=["e2e4"],
        start_fen="rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    )
    assert game.opening_moves == ["e2e4"]
    shown = opening_shown(game)
    assert shown.name == "1 mossa a caso" and shown.notation == [["e4", "e4"]]
