"""Downloading a game's PGN / PDN: headers players' programs know, the clock after
every move, ratings at the start and what the game changed; read back by python-chess and by
pydraughts. Real PostgreSQL; ratings through the ratings app's registered reader."""

from __future__ import annotations

import io

import chess.pgn
import pytest
from django.test import override_settings
from django.urls import reverse
from draughts.PDN import PDNReader

from games import player_ratings
from games.models import Game
from games.rules import variant
from games.services import game_move, game_presence, game_resign
from games.tests.factories import T0, UserFactory, open_game
from ratings.models import Rating

pytestmark = pytest.mark.django_db(transaction=True)  # ratings settle on commit

SICILIAN = ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3"]


def sit(game: Game) -> None:
    for user in (game.white_id, game.black_id):
        game_presence(game_id=game.pk, user_id=user, key=f"socket-{user}", connected=True, at_ms=T0)


def play(game: Game, moves: list[str], *, at: list[int], remembered: bool = False) -> None:
    """The moves at T0 + `at` ms, each by whoever is to move."""
    with override_settings(GAMES_IN_MEMORY=remembered):
        for ply, (move, after_ms) in enumerate(zip(moves, at, strict=True)):
            mover = game.white_id if ply % 2 == 0 else game.black_id
            game_move(
                game_id=game.pk, user_id=mover, expected_ply=ply, move=move, at_ms=T0 + after_ms
            )


def download(client, game: Game) -> tuple[str, object]:
    response = client.get(reverse("games:export", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode(), response


@pytest.mark.parametrize("remembered", [False, True])
def test_every_move_keeps_the_mover_s_clock(remembered):
    """The mover's clock after each move, increment included, decided from a read and from
    memory. Fails if a move does not append it, or appends the opponent's."""
    game = open_game(base_seconds=300, increment_seconds=2)
    sit(game)
    play(game, SICILIAN[:4], at=[1000, 4000, 9000, 10000], remembered=remembered)
    game.refresh_from_db()
    # White's clock runs from the opening (RULES 3): 300 - 1 + 2; Black's from White's move:
    # 300 - 3 + 2; then White 301 - 5 + 2, Black 299 - 1 + 2.
    assert game.clocks == [301_000, 299_000, 298_000, 300_000]
    assert len(game.moves) == 4


def test_a_finished_rated_game_downloads_as_players_know_pgn(client):
    game = open_game(base_seconds=300, increment_seconds=2)
    sit(game)
    play(game, SICILIAN, at=[3000 * (ply + 1) for ply in range(len(SICILIAN))])
    game_resign(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 60_000)
    game.refresh_from_db()
    assert game.settled
    text, response = download(client, game)
    assert response["Content-Disposition"] == f'attachment; filename="circolo-{game.pk}.pgn"'
    pgn = chess.pgn.read_game(io.StringIO(text))
    assert pgn is not None and not pgn.errors
    headers = pgn.headers
    assert list(headers)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    assert headers["Event"] == "Partita valutata"
    assert headers["Site"] == f"http://testserver/games/{game.pk}/"
    assert headers["Date"] == headers["UTCDate"] == game.created_at.strftime("%Y.%m.%d")
    assert headers["Round"] == "-"
    assert (headers["White"], headers["Black"]) == (game.white.username, game.black.username)
    assert headers["Result"] == "1-0" and headers["Termination"] == "Normal"
    assert headers["TimeControl"] == "300+2"
    # Ratings at the start (1500, a new player's) and what the game changed.
    white = Rating.objects.get(player_id=game.white_id, variant="chess")
    black = Rating.objects.get(player_id=game.black_id, variant="chess")
    assert headers["WhiteElo"] == headers["BlackElo"] == "1500"
    assert headers["WhiteRatingDiff"] == f"+{white.value - 1500}" != "+0"
    assert headers["BlackRatingDiff"] == str(black.value - 1500)
    assert headers["ECO"] == "B54"
    assert headers["Opening"] == "Sicilian Defense: Modern Variations, Main Line"
    assert [m.uci() for m in pgn.mainline_moves()] == game.moves == SICILIAN
    assert [node.clock() for node in pgn.mainline()] == [ms // 1000 for ms in game.clocks]
    # Every move 3 s after the one before: each side loses 3 s a move and gains 2.
    assert "1. e4 { [%clk 0:04:59] } 1... c5 { [%clk 0:04:59] } 2. Nf3 { [%clk 0:04:58] }" in (
        " ".join(text.split())
    )


def test_a_game_with_no_moves(client):
    game = open_game(rated=False, base_seconds=600, increment_seconds=0)
    text, _ = download(client, game)
    pgn = chess.pgn.read_game(io.StringIO(text))
    assert list(pgn.mainline_moves()) == []
    headers = pgn.headers
    assert headers["Result"] == "*" and headers["Termination"] == "Unterminated"
    assert headers["Event"] == "Partita amichevole"
    assert headers["TimeControl"] == "600+0"
    assert headers["WhiteElo"] == "1500"  # live: the current rating is the one it started at
    assert "WhiteRatingDiff" not in headers and "ECO" not in headers


def test_a_draughts_game_downloads_as_pdn_with_its_fid_opening(client):
    imposed = ["21-17", "10-14", "23-19"]
    game = open_game(
        variant_code="italian",
        start_fen=variant("italian").replay(imposed)[-1],
        base_seconds=300,
        increment_seconds=0,
        opening_number=1,
        opening_moves=imposed,
    )
    sit(game)
    rules = variant("italian")
    first = rules.legal_moves(game.start_fen)[0]
    second = rules.legal_moves(rules.apply(game.start_fen, first))[0]
    with override_settings(GAMES_IN_MEMORY=False):
        game_move(game_id=game.pk, user_id=game.black_id, expected_ply=0, move=first, at_ms=T0)
        game_move(
            game_id=game.pk, user_id=game.white_id, expected_ply=1, move=second, at_ms=T0 + 4000
        )
    game_resign(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 5000)
    text, response = download(client, game)
    assert response["Content-Disposition"].endswith(f'circolo-{game.pk}.pdn"')
    (read,) = PDNReader(pdn_text=text).games
    assert read.variant == "italian" and read.game_ending == read.tags["Result"] == "0-1"
    assert read.tags["Opening"].startswith("F.I.D. 1 (")
    assert read.tags["Site"] == f"http://testserver/games/{game.pk}/"
    assert read.get_ratings() == ["1500", "1500"]
    # pydraughts 0.6.7 reads a game whose FEN has Black to move with its first move twice
    # (`_PDNGame._read` keeps it, then adds the first move pair again): its bug, not the
    # file's, which numbers the moves "1... a 2. b" as PDN does.
    assert read.moves[-2:] == [first, second]
    assert f"\n\n1... {first} " in text
    assert read.tags["FEN"] == game.start_fen  # the game starts after the imposed moves
    assert f"1... {first} {{[%clk 0:05:00]}} 2. {second} {{[%clk 0:04:56]}}" in text


def test_an_unknown_game_is_not_found(client):
    assert client.get(reverse("games:export", args=[987654])).status_code == 404


def test_the_ratings_at_the_start_are_written_from_the_start_whatever_happens_after(client):
    """A game rated with its event (a round tournament) carries the ratings it opened at before
    the event is rated; a rating that changes later does not change them. Fails if the export
    reads the players' ratings of now."""
    white = UserFactory()
    _player, variant_code, cadence = player_ratings.key(white.pk, "italian", 300, 2)
    Rating.objects.create(
        player_id=white.pk, variant=variant_code, cadence=cadence, value=1620, peak=1620
    )
    game = open_game(white=white, variant_code="italian", base_seconds=300, increment_seconds=2)
    Game.objects.filter(pk=game.pk).update(rated_with_event=True)
    game_resign(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 1_000)
    Rating.objects.filter(player_id=white.pk).update(value=1700)
    text, _ = download(client, Game.objects.get(pk=game.pk))
    assert '[WhiteRating "1620"]' in text and '[BlackRating "1500"]' in text
    assert "RatingDiff" not in text
