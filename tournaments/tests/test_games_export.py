"""A tournament's "PGN/PDN of all games": every game, its round (and leg), the
tournament as its Event, each game's URL as its Site; read back by python-chess and
pydraughts."""

from __future__ import annotations

import io
import re
from collections import Counter

import chess.pgn
import pytest
from django.urls import reverse
from draughts.PDN import PDNReader

from games.models import Game
from tournaments.models import Pairing
from tournaments.tests.test_run import make, run

pytestmark = pytest.mark.django_db


def games_of(tournament) -> list[Game]:
    return list(
        Game.objects.filter(event_type__model="tournament", event_id=tournament.pk).order_by("pk")
    )


def test_double_games_have_their_round_and_leg(client):
    tournament = make(4)  # four players: a round robin with return games (RULES 4.5)
    run(tournament)
    tournament.refresh_from_db()
    assert tournament.legs == 2
    response = client.get(reverse("tournaments:games", args=[tournament.pk]))
    assert response["Content-Disposition"].endswith(f'torneo-{tournament.pk}.pgn"')
    text, stream, read = response.content.decode(), None, []
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors
        read.append(game)
    games = games_of(tournament)
    assert len(read) == len(games) == 3 * 2 * 2  # three rounds, two boards, two legs
    expected = {}
    for pairing in Pairing.objects.filter(round__tournament=tournament).select_related("round"):
        expected[pairing.game1_id] = f"{pairing.round.number}.1"
        expected[pairing.game2_id] = f"{pairing.round.number}.2"
    for game, pgn in zip(games, read, strict=True):
        headers = pgn.headers
        assert headers["Site"] == f"http://testserver/games/{game.pk}/"
        assert headers["Event"] == tournament.name
        assert headers["Round"] == expected[game.pk]
        assert headers["Result"] == game.result
        assert headers["White"] == game.white.username
        assert [m.uci() for m in pgn.mainline_moves()] == game.moves
    assert Counter(pgn.headers["Round"] for pgn in read) == {
        f"{n}.{leg}": 2 for n in (1, 2, 3) for leg in (1, 2)
    }
    # The game page's own download says the same round.
    single = client.get(reverse("games:export", args=[games[0].pk])).content.decode()
    assert f'[Round "{expected[games[0].pk]}"]' in single
    assert f'[Event "{tournament.name}"]' in single


def test_a_draughts_tournament_reads_back_with_pydraughts(client):
    tournament = make(5, variant="italian", opening_mode="table1")
    run(tournament)
    text = client.get(reverse("tournaments:games", args=[tournament.pk])).content.decode()
    games = games_of(tournament)
    # Each game read alone: these games end before a move of their own (`run` resigns or
    # agrees a draw at once), and pydraughts 0.6.7 stops reading a file after a game without
    # moves (games/tests/rules/test_game_headers.py).
    texts = re.split(r"\n\n(?=\[Event )", text)
    read = [game for one in texts for game in PDNReader(pdn_text=one).games]
    assert len(read) == len(games) == 10  # five rounds of two games, one player resting
    assert sorted(int(g.tags["Round"]) for g in read) == sorted([1, 2, 3, 4, 5] * 2)
    for game, pdn in zip(games, read, strict=True):
        assert pdn.tags["GameType"] == "22" and pdn.tags["Event"] == tournament.name
        assert pdn.tags["Opening"].startswith(f"F.I.D. {game.opening_number} (")
        assert pdn.game_ending == {"": "*", "0-0": "*"}.get(game.result, game.result)
