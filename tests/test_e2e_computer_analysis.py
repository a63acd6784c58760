"""End to end in Chromium, with the suite's real analysis worker and Stockfish (RULES 14): a
player asks for the computer analysis of a finished chess game from its page, the analysis
board learns by the site socket that it is done (no reload), and shows the accuracy, the
evaluation bar, the graph, the blunder marked with the engine's better move, and the PGN with
`[%eval]`; then the free analysis board: a pasted PGN, a symbol and a comment on a move, a
variation promoted, the file exported, the engine asked about the position on screen. With
`SCREENSHOTS=1` (and `ANALYSIS_SHOTS=dir`), the pages at 1280 and 390 px."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import chess.pgn
import pytest
from playwright.sync_api import expect

from accounts.tests.factories import UserFactory
from games.models import Game
from games.services import game_move
from games.tests.factories import open_game
from tests.browser import click_chess, session_cookie, shoot

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]

SHOTS = Path(
    os.environ.get("ANALYSIS_SHOTS")
    or Path(__file__).resolve().parent.parent / "var" / "shots-computer"
)
DESK, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}
SCHOLAR = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]  # 3...Nf6?? 4.Qxf7#


def shots(page, name: str) -> None:
    if os.environ.get("SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, SHOTS / f"{name}-1280.png", full_page=True)
    page.set_viewport_size(PHONE)
    shoot(page, SHOTS / f"{name}-390.png", full_page=True)
    page.set_viewport_size(DESK)


def mated(white, black) -> Game:
    game = open_game(white=white, black=black, rated=False, at_ms=int(time.time() * 1000))
    Game.objects.filter(pk=game.pk).update(white_sat=True, black_sat=True)
    for ply, move in enumerate(SCHOLAR):
        mover = game.white_id if ply % 2 == 0 else game.black_id
        game_move(game_id=game.pk, user_id=mover, expected_ply=ply, move=move)
    game.refresh_from_db()
    assert not game.is_live
    return game


def test_a_computer_analysis_asked_for_arrives_and_the_free_board(browser, site):
    white, black = UserFactory(username="ca_bianco"), UserFactory(username="ca_nero")
    game = mated(white, black)
    context = browser.new_context(locale="it-IT", viewport=DESK)
    context.set_default_timeout(20_000)
    context.add_cookies([session_cookie(site, black.username)])
    page = context.new_page()
    try:
        page.goto(f"{site}/games/{game.pk}/")
        page.get_by_test_id("computer-analysis-ask").click()
        expect(page).to_have_url(f"{site}/games/{game.pk}/analysis/")
        panel = page.get_by_test_id("computer-analysis")
        # Queued or running, then done: told by the site socket, the panel re-read in place.
        expect(panel).to_have_attribute("data-state", "done", timeout=90_000)
        expect(page.get_by_test_id("accuracy")).to_contain_text("Precisione del nero")
        expect(page.get_by_test_id("eval-bar")).to_be_visible()
        expect(page.get_by_test_id("eval-graph").locator("svg circle.mark-blunder")).to_have_count(
            1
        )
        blunder = page.get_by_test_id("tree").locator(".mv.mark-blunder")
        expect(blunder).to_have_text("Cf6??")
        blunder.click()
        line = page.get_by_test_id("computer-line")
        expect(line).to_contain_text("Errore grave (??).")
        expect(line).to_contain_text("Meglio:")
        expect(line).to_contain_text("Valutazione #1")
        shots(page, "computer-analysis")
        # A click on the graph's start goes to the start position.
        graph = page.get_by_test_id("eval-graph")
        box = graph.bounding_box()
        page.mouse.click(box["x"] + 2, box["y"] + box["height"] / 2)
        expect(page.get_by_test_id("fen")).to_have_text(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        )
        with page.expect_download() as caught:
            page.get_by_test_id("computer-pgn").click()
        read = chess.pgn.read_game(io.StringIO(Path(caught.value.path()).read_text()))
        nodes = list(read.mainline())
        assert nodes[5].eval().white().mate() == 1 and chess.pgn.NAG_BLUNDER in nodes[5].nags

        # The free board: a pasted game, a symbol and a comment, a variation promoted.
        page.get_by_test_id("nav-analysis").first.click()
        expect(page).to_have_url(f"{site}/analysis/")
        page.get_by_test_id("paste-text").fill("1. e4 e5 2. Nf3 *")
        page.get_by_test_id("paste-submit").click()
        tree = page.get_by_test_id("tree")
        expect(tree).to_contain_text("2. Cf3")
        tree.get_by_role("button", name="1. e4").click()
        page.get_by_role("button", name="!", exact=True).click()
        page.get_by_test_id("move-comment").fill("il centro")
        expect(tree).to_contain_text("1. e4! il centro")
        tree.get_by_role("button", name="e5", exact=True).click()
        page.keyboard.press("ArrowLeft")
        click_chess(page, "c7", "white")
        click_chess(page, "c5", "white")
        expect(tree.get_by_test_id("variation")).to_have_text("1… c5")
        page.get_by_test_id("promote").click()
        expect(tree.get_by_test_id("variation")).to_contain_text("1… e5 2. Cf3")
        page.get_by_test_id("engine-ask").click()
        expect(page.get_by_test_id("engine-answer")).to_contain_text("Meglio:", timeout=60_000)
        shots(page, "free-board")
        with page.expect_download() as caught:
            page.get_by_test_id("export").click()
        read = chess.pgn.read_game(io.StringIO(Path(caught.value.path()).read_text()))
        first = read.next()
        assert first.nags == {chess.pgn.NAG_GOOD_MOVE} and first.comment == "il centro"
        assert [m.uci() for m in read.mainline_moves()] == ["e2e4", "c7c5"]
    finally:
        context.close()
