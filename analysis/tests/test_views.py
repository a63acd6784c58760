"""The analysis's pages (analysis/views.py): the panel and its request on a game's analysis
board, the button on the game page, the annotated PGN; the free analysis board: pasted FEN,
PGN and PDN (malformed, enormous, impossible: a 400 that says why, never a 500), its export
with symbols and comments, and its question to the engine (RULES 14)."""

from __future__ import annotations

import io
import json

import chess.pgn
import pytest
from django.urls import reverse
from draughts.PDN import PDNReader

from accounts.tests.factories import UserFactory
from analysis import paste, views
from analysis.models import GameAnalysis
from analysis.tests.test_services import SCHOLAR, played
from games.rules import variant
from games.tests.factories import open_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def quick_engine(settings):
    settings.ANALYSIS_NODES = 40_000
    settings.ANALYSIS_BOARD_NODES = 40_000
    views._buckets.clear()


def test_the_analysis_board_offers_the_request_to_a_player_only(client):
    game = played(SCHOLAR)
    url = reverse("games:analysis", args=[game.pk])
    page = client.get(url).content.decode()
    assert 'data-testid="computer-analysis"' in page
    assert 'data-testid="computer-analysis-ask"' not in page  # a guest
    client.force_login(game.white)
    page = client.get(url).content.decode()
    assert 'data-testid="computer-analysis-ask"' in page
    game_page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert 'data-testid="computer-analysis-ask"' in game_page


def test_a_live_games_page_holds_the_request_for_its_end(client):
    """Open through the game's end, a player's page offers the analysis without a reload: it
    holds a place that re-reads the button on `game-ended`; a spectator's holds none."""
    game = open_game(variant_code="chess", rated=False)
    page_url = reverse("games:game", args=[game.pk])
    button_url = reverse("analysis:button", args=[game.pk])
    client.force_login(game.white)
    page = client.get(page_url).content.decode()
    assert 'data-testid="computer-analysis-later"' in page
    assert f'hx-get="{button_url}"' in page and 'hx-trigger="game-ended from:body"' in page
    assert 'data-testid="computer-analysis-ask"' not in page
    # Still live when asked (a race with the end): the place is held again.
    assert 'data-testid="computer-analysis-later"' in client.get(button_url).content.decode()
    client.force_login(UserFactory())
    assert 'data-testid="computer-analysis-later"' not in client.get(page_url).content.decode()

    ended = played(SCHOLAR)
    client.force_login(ended.black)
    answer = client.get(reverse("analysis:button", args=[ended.pk])).content.decode()
    assert 'data-testid="computer-analysis-ask"' in answer
    assert client.post(reverse("analysis:button", args=[ended.pk])).status_code == 405
    assert client.get(reverse("analysis:button", args=[999_999])).status_code == 404


def test_asking_from_the_page_runs_it_and_the_panel_shows_it(
    client, django_capture_on_commit_callbacks
):
    game = played(SCHOLAR)
    client.force_login(game.black)
    url = reverse("analysis:panel", args=[game.pk])
    with django_capture_on_commit_callbacks(execute=True):
        asked = client.post(url, HTTP_HX_REQUEST="true")
    assert 'data-state="queued"' in asked.content.decode()  # the run follows the commit
    response = client.get(url, HTTP_HX_REQUEST="true")  # as the push makes the page do
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-state="done"' in html and 'data-testid="accuracy"' in html
    data = json.loads(
        html.split('id="computer-analysis-data" type="application/json">')[1].split("<")[0]
    )
    assert data["moves"][5]["mark"] == "blunder"
    pgn = client.get(reverse("analysis:pgn", args=[game.pk]))
    assert pgn.status_code == 200 and "[%eval" in pgn.content.decode()
    # Asked again: nothing new, the analysis as it is.
    again = client.post(url, HTTP_HX_REQUEST="true")
    assert 'data-state="done"' in again.content.decode()
    assert GameAnalysis.objects.count() == 1


def test_the_request_without_htmx_goes_back_to_the_board(client, settings):
    game = played(SCHOLAR)
    client.force_login(game.white)
    url = reverse("analysis:panel", args=[game.pk])
    response = client.post(url)
    assert response.status_code == 302
    assert response["Location"] == reverse("games:analysis", args=[game.pk])
    # Refused (no engine): the same, with the reason said on the page.
    settings.STOCKFISH_PATH = "/nonexistent/stockfish"
    other = played(SCHOLAR)
    client.force_login(other.white)
    response = client.post(reverse("analysis:panel", args=[other.pk]), follow=True)
    assert "non è disponibile" in response.content.decode()


def test_without_engine_the_panel_says_it_is_unavailable(client, settings):
    settings.STOCKFISH_PATH = "/nonexistent/stockfish"
    game = played(SCHOLAR)
    client.force_login(game.white)
    page = client.get(reverse("games:analysis", args=[game.pk])).content.decode()
    assert 'data-testid="computer-unavailable"' in page
    assert 'data-testid="computer-analysis-ask"' not in page


def test_the_annotated_pgn_waits_for_the_analysis(client):
    game = played(SCHOLAR)
    assert client.get(reverse("analysis:pgn", args=[game.pk])).status_code == 404
    live_game_panel = client.get(reverse("analysis:panel", args=[999_999]))
    assert live_game_panel.status_code == 404


# --- the free analysis board ------------------------------------------------------------------

BOARD = reverse("analysis:board")


def page_line(response) -> list[dict]:
    html = response.content.decode()
    raw = html.split('id="analysis-page" type="application/json">')[1].split("</script>")[0]
    return json.loads(raw)["line"]


def test_the_free_board_starts_from_any_variant(client):
    response = client.get(BOARD, {"variant": "international"})
    assert response.status_code == 200
    assert page_line(response)[0]["fen"] == variant("international").start_fen()
    assert client.get(BOARD, {"variant": "nonsense"}).status_code == 200  # chess, then


def test_a_pasted_fen_pgn_and_pdn_are_read(client):
    fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
    line = page_line(client.post(BOARD, {"variant": "chess", "text": fen}))
    assert line[0]["fen"] == fen and len(line) == 1
    pgn = (
        '[Event "x"]\n[White "a"]\n\n1. e4 {a comment} e5 (1... c5) 2. Nf3 Nc6 3. Bb5 a6?! 1/2-1/2'
    )
    line = page_line(client.post(BOARD, {"variant": "chess", "text": pgn}))
    assert [n.get("move") for n in line[1:]] == ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
    italian = variant("italian")
    first = italian.legal_moves(italian.start_fen())[0]
    pdn = f'[GameType "22"]\n\n1. {first} *'
    line = page_line(client.post(BOARD, {"variant": "italian", "text": pdn}))
    assert line[1]["move"] == first


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "empty"),
        ("x" * (paste.MAX_PASTE + 1), "too_long"),
        ("not a position at all", "position"),
        ("8/8/8/8/8/8/8/8 w - - 0 1", "position"),  # no kings: impossible
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w - - 0 1", "position"),  # two kings
        ("1. e4 e5 2. Ke3 Ke6 3. Qxh8", "move"),
        ("1. e4 {never closed", "move"),
    ],
)
def test_bad_pastes_are_refused_with_a_reason(client, text, code):
    response = client.post(BOARD, {"variant": "chess", "text": text})
    assert response.status_code == 400
    assert 'data-testid="paste-error"' in response.content.decode()
    with pytest.raises(paste.BadPaste) as bad:
        paste.read_paste("chess", text[: paste.MAX_PASTE + 1])
    assert bad.value.code == code


def test_too_many_moves_are_refused():
    moves = "1. " + " ".join(["Nf3 Nf6 Ng1 Ng8"] * 130)
    with pytest.raises(paste.BadPaste) as bad:
        paste.read_paste("chess", moves)
    assert bad.value.code == "too_many"


def test_the_free_export_writes_symbols_comments_and_variations(client):
    tree = [
        {"move": "e2e4", "nags": [1], "comment": "il centro {sempre}"},
        {"move": "e7e5", "variations": [[{"move": "c7c5", "nags": [5]}]]},
    ]
    start = variant("chess").start_fen()
    response = client.post(
        reverse("analysis:board_export"),
        {"variant": "chess", "start": start, "tree": json.dumps(tree)},
    )
    assert response.status_code == 200
    game = chess.pgn.read_game(io.StringIO(response.content.decode()))
    first = game.next()
    assert first.nags == {1} and first.comment == "il centro (sempre)"
    assert first.variations[1].move.uci() == "c7c5" and first.variations[1].nags == {5}
    # Draughts: PDN with the symbols, read back by pydraughts' reader.
    italian = variant("italian")
    move = italian.legal_moves(italian.start_fen())[0]
    response = client.post(
        reverse("analysis:board_export"),
        {
            "variant": "italian",
            "start": italian.start_fen(),
            "tree": json.dumps([{"move": move, "nags": [2], "comment": "debole"}]),
        },
    )
    text = response.content.decode()
    assert response.status_code == 200 and "$2" in text and "{debole}" in text
    (read,) = PDNReader(pdn_text=text).games
    assert read.moves == [move]


@pytest.mark.parametrize(
    ("form", "status"),
    [
        ({"variant": "chess", "start": "garbage", "tree": "[]"}, 400),
        ({"variant": "nope", "start": "", "tree": "[]"}, 400),
        ({"variant": "chess", "start": variant("chess").start_fen(), "tree": "{"}, 400),
        (
            {
                "variant": "chess",
                "start": variant("chess").start_fen(),
                "tree": json.dumps([{"move": "e2e4", "nags": [99]}]),
            },
            400,
        ),
        (
            {
                "variant": "chess",
                "start": variant("chess").start_fen(),
                "tree": json.dumps([{"move": "e2e4", "comment": "x" * 501}]),
            },
            400,
        ),
        ({"variant": "chess", "start": variant("chess").start_fen(), "tree": '["e2e5"]'}, 400),
    ],
)
def test_a_bad_free_export_is_refused(client, form, status):
    assert client.post(reverse("analysis:board_export"), form).status_code == status


def ask_engine(client, fen):
    return client.post(
        reverse("analysis:engine_ask"), json.dumps({"fen": fen}), content_type="application/json"
    )


def test_the_engine_answers_the_position_on_screen(client):
    response = ask_engine(client, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    assert response.status_code == 202
    token = response.json()["token"]  # the task ran inline here, as the worker would
    answer = client.get(reverse("analysis:engine_answer", args=[token])).json()
    assert answer["state"] == "done" and answer["text"] == "#1"
    assert answer["best"][0] == "Ta8#"  # Italian letters by default
    assert client.get(reverse("analysis:engine_answer", args=["nope"])).status_code == 404


def test_the_engine_question_refuses_bad_positions_no_engine_and_floods(client, settings):
    assert ask_engine(client, "8/8/8/8/8/8/8/8 w - - 0 1").status_code == 400
    assert ask_engine(client, "x" * 500).status_code == 400
    bad_json = client.post(reverse("analysis:engine_ask"), "{", content_type="application/json")
    assert bad_json.status_code == 400
    settings.STOCKFISH_PATH = "/nonexistent/stockfish"
    assert ask_engine(client, variant("chess").start_fen()).status_code == 503
    # Four at once, then one every five seconds (ENGINE_BUDGET).
    answers = [ask_engine(client, variant("chess").start_fen()).status_code for _ in range(3)]
    assert 429 in answers
