"""The chess opening's ECO code and name on the game page and in what a live game pushes
(docs/protocol.md, `state` and `played`)."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings
from django.urls import reverse

from games.services import game_move, game_state
from games.tests.factories import T0, open_game
from live import pushes

pytestmark = pytest.mark.django_db(transaction=True)  # pushes go out on commit


def moved(game, ply: int, move: str, *, remembered: bool) -> dict:
    """Play one move; the `played` delta it pushed."""
    mover = game.white_id if ply % 2 == 0 else game.black_id
    with pushes.collected() as outbox, override_settings(GAMES_IN_MEMORY=remembered):
        game_move(game_id=game.pk, user_id=mover, expected_ply=ply, move=move, at_ms=T0 + ply + 1)
    (text,) = [m["text"] for _g, m in outbox if m["type"] == "game.state"]
    return json.loads(text)


@pytest.mark.parametrize("remembered", [False, True])
def test_a_move_sends_the_name_only_when_it_reaches_a_named_position(remembered):
    game = open_game()
    sent = [
        moved(game, ply, move, remembered=remembered)
        for ply, move in enumerate(["e2e4", "c7c5", "h2h3", "b8c6"])
    ]
    assert sent[0]["chess_opening"] == {
        "eco": "B00",
        "name": "King's Pawn Game",
        "name_it": "Partita di pedone di re",
    }
    assert sent[1]["chess_opening"] == {
        "eco": "B20",
        "name": "Sicilian Defense",
        "name_it": "Difesa siciliana",
    }
    # 2. h3 and 2... Nc6 after it name no position: no news, the game is still a Sicilian.
    assert "chess_opening" not in sent[2] and "chess_opening" not in sent[3]
    game.refresh_from_db()
    # The full state names the game by its last named position.
    assert game_state(game)["chess_opening"] == {
        "eco": "B20",
        "name": "Sicilian Defense",
        "name_it": "Difesa siciliana",
    }


def test_draughts_states_have_no_chess_opening():
    game = open_game(variant_code="italian")
    played = moved(game, 0, "21-17", remembered=False)
    assert "chess_opening" not in played
    game.refresh_from_db()
    assert "chess_opening" not in game_state(game)


def test_the_game_page_shows_eco_and_name(client):
    game = open_game()
    for ply, move in enumerate(["e2e4", "c7c5", "g1f3", "d7d6"]):
        moved(game, ply, move, remembered=False)
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert 'data-testid="chess-opening">' in page
    assert "data-eco>B50</abbr>" in page
    # In Italian where Italian players have the name (games/rules/chess_openings_it.py).
    assert 'lang="it">Difesa siciliana: varianti moderne</strong>' in page


def test_before_a_named_position_the_line_is_hidden_and_draughts_have_none(client):
    game = open_game()
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert 'data-testid="chess-opening" hidden>' in page
    draughts = open_game(variant_code="international")
    page = client.get(reverse("games:game", args=[draughts.pk])).content.decode()
    assert "chess-opening" not in page
