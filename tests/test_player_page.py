"""The player page's recent games, from that player's side: outcome, opponent and their rating,
the game's rating change, the event."""

from __future__ import annotations

import re

import pytest
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse
from django.utils import translation

from arena.tests.factories import ArenaFactory
from games.models import Game
from games.services import (
    challenge_accept,
    challenge_create,
    game_draw_accept,
    game_draw_offer,
    game_resign,
)
from games.services.due import game_settle
from games.tests.factories import T0, UserFactory, open_game
from tournaments.tests.factories import TournamentFactory

pytestmark = pytest.mark.django_db


def row_of(page: str, game: Game) -> str:
    start = page.index(">", page.index(f'data-testid="recent-game-{game.pk}"')) + 1
    return page[start : page.index("</tr>", start)]


def seated(game: Game) -> Game:
    """Both players sat at the board (RULES 3: a game one never sat at is never rated)."""
    Game.objects.filter(pk=game.pk).update(white_sat=True, black_sat=True)
    return game


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def finished(game: Game, *, loser, settle: bool = True, at_ms: int | None = T0 + 1) -> Game:
    game_resign(game_id=seated(game).pk, user_id=loser.pk, at_ms=at_ms)
    if settle:
        game_settle(game_id=game.pk)  # what the worker does: rates it
    return Game.objects.get(pk=game.pk)


def in_event(game: Game, event) -> None:
    Game.objects.filter(pk=game.pk).update(
        event_type=ContentType.objects.get_for_model(event), event_id=event.pk
    )


@pytest.fixture
def games():
    anna, bruno, carla = (UserFactory(username=n) for n in ("anna", "bruno", "carla"))
    challenge = challenge_create(
        challenger_id=anna.pk,
        variant_code="chess",
        base_seconds=180,
        increment_seconds=2,
        color="white",
        rated=True,
        opponent_id=bruno.pk,
    )
    accepted = challenge_accept(challenge_id=challenge.pk, user_id=bruno.pk)  # opened now
    won = finished(accepted, loser=bruno, at_ms=None)
    lost = finished(open_game(white=carla, black=anna), loser=anna)  # quick pairing: no challenge
    drawn = open_game(white=anna, black=carla, variant_code="italian")
    game_draw_offer(game_id=seated(drawn).pk, user_id=anna.pk, at_ms=T0 + 1)
    game_draw_accept(game_id=drawn.pk, user_id=carla.pk, at_ms=T0 + 2)
    game_settle(game_id=drawn.pk)
    arena_game = finished(open_game(white=bruno, black=anna), loser=bruno)
    arena = ArenaFactory(name="Arena del mercoledì")
    in_event(arena_game, arena)
    friendly = finished(open_game(white=anna, black=bruno, rated=False), loser=bruno)
    tournament_game = open_game(white=anna, black=carla)
    Game.objects.filter(pk=tournament_game.pk).update(rated_with_event=True)
    tournament_game = finished(tournament_game, loser=carla, settle=False)
    tournament = TournamentFactory(name="Coppa d'inverno")
    in_event(tournament_game, tournament)
    live = open_game(white=bruno, black=anna)
    return {
        "anna": anna,
        "won": won,
        "lost": lost,
        "drawn": drawn,
        "arena_game": arena_game,
        "arena": arena,
        "friendly": friendly,
        "tournament_game": tournament_game,
        "tournament": tournament,
        "live": live,
    }


def test_recent_games_say_the_outcome_opponent_change_and_event(client, games) -> None:
    with translation.override("it"):
        page = client.get(reverse("player", args=["anna"])).content.decode()

    won = text(row_of(page, games["won"]))
    assert won.startswith("+ Vinta 1-0")
    assert "bruno 1500" in won  # the opponent at the rating they played at
    assert "+15" in won and "Sfida" in won
    assert "Scacchi · 3+2 ·" in won

    lost = text(row_of(page, games["lost"]))
    # Anna had 1515 after her first win: against carla at 1500 she loses a little more.
    assert lost.startswith("− Persa 1-0") and "carla 1500" in lost
    assert re.search(r"−1\d\b", lost) and "Partita veloce" in lost

    drawn = text(row_of(page, games["drawn"]))
    assert drawn.startswith("= Patta ½-½") and "Dama italiana" in drawn
    assert "1/2" not in row_of(page, games["drawn"])  # people read ½-½, not the PGN form

    arena_row = row_of(page, games["arena_game"])
    assert text(arena_row).startswith("+ Vinta 0-1")
    assert f'href="{games["arena"].get_absolute_url()}"' in arena_row
    assert "Arena del mercoledì" in arena_row

    assert "amichevole" in text(row_of(page, games["friendly"]))
    tournament_row = row_of(page, games["tournament_game"])
    assert "con il torneo" in text(tournament_row)
    assert "Coppa d&#x27;inverno" in tournament_row or "Coppa d'inverno" in tournament_row
    assert "in corso" in text(row_of(page, games["live"]))
    # The opponent's name links to their page.
    assert f'href="{reverse("player", args=["bruno"])}"' in row_of(page, games["won"])


def test_recent_games_are_from_the_other_players_side_on_their_page(client, games) -> None:
    with translation.override("it"):
        page = client.get(reverse("player", args=["bruno"])).content.decode()
    won = text(row_of(page, games["won"]))
    assert won.startswith("− Persa 1-0") and "anna 1500" in won and "−15" in won


def test_recent_games_in_english(client, games) -> None:
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    page = client.get(reverse("player", args=["anna"])).content.decode()
    assert text(row_of(page, games["won"])).startswith("+ Won 1-0")
    assert "Challenge" in text(row_of(page, games["won"]))
    assert text(row_of(page, games["drawn"])).startswith("= Drawn ½-½")


def test_the_player_page_queries_do_not_grow_with_games(
    client, games, django_assert_num_queries
) -> None:
    url = reverse("player", args=["anna"])
    # The player, presence, their ratings and history (2), the games with players and
    # challenge, their tournaments and arenas (2), the current ratings, the games' own
    # changes, and for games rated with a tournament their events and its period (2), and the
    # player's club (the badge beside the name, RULES 12.9).
    with django_assert_num_queries(12) as captured:
        client.get(url)
    before = len(captured.captured_queries)
    finished(games["live"], loser=games["anna"])
    for _ in range(3):
        finished(open_game(white=games["anna"], black=UserFactory()), loser=games["anna"])
    with django_assert_num_queries(before):
        page = client.get(url).content.decode()
    assert page.count('data-testid="recent-game-') == 10
