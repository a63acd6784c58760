"""End to end in Chromium: the analysis board of a finished chess game (opened from its game
page) and of a finished Italian draughts game (opened from the player's games): step back, a
variation played (a legal move accepted by the server, an illegal one refused at once), back to
the main line with the variation kept, the FEN copied, the PGN / PDN downloaded with the
variation, read back with python-chess and pydraughts, and (chess) the variation deleted. With
`SCREENSHOTS=1`, the page at 1280 and 390 px in var/shots-analysis/."""

from __future__ import annotations

import io
import os
import re
import time
from pathlib import Path

import chess.pgn
import pytest
from draughts.PDN import PDNReader
from playwright.sync_api import expect

from accounts.tests.factories import UserFactory
from games.models import Game
from games.rules import variant
from games.services import game_move, game_resign
from games.tests.factories import open_game
from tests.browser import click_chess, draughts_move, shoot

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]

SHOTS = Path(__file__).resolve().parent.parent / "var" / "shots-analysis"
DESK, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}


@pytest.fixture
def page_it(browser, site):
    context = browser.new_context(locale="it-IT", viewport=DESK)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def finished(variant_code: str, moves: list[str], white=None) -> Game:
    """A game of `moves`, then White resigned."""
    game = open_game(
        variant_code=variant_code, rated=False, white=white, at_ms=int(time.time() * 1000)
    )
    Game.objects.filter(pk=game.pk).update(white_sat=True, black_sat=True)
    for ply, move in enumerate(moves):
        mover = game.white_id if ply % 2 == 0 else game.black_id
        game_move(game_id=game.pk, user_id=mover, expected_ply=ply, move=move)
    game_resign(game_id=game.pk, user_id=game.white_id)
    game.refresh_from_db()
    return game


def copied(page) -> str:
    page.get_by_test_id("copy-fen").click()
    expect(page.get_by_test_id("notice")).to_have_text("FEN copiata.")
    return page.evaluate("navigator.clipboard.readText()")


def download(page) -> str:
    with page.expect_download() as caught:
        page.get_by_test_id("export").click()
    return Path(caught.value.path()).read_text()


def shots(page, name: str) -> None:
    shoot(page, SHOTS / f"{name}-1280.png", full_page=True)
    if os.environ.get("SCREENSHOTS"):
        page.set_viewport_size(PHONE)
        shoot(page, SHOTS / f"{name}-390.png", full_page=True)
        page.set_viewport_size(DESK)


def test_a_chess_game_analysed_with_a_variation(page_it, site):
    rules = variant("chess")
    moves = ["e2e4", "e7e5", "g1f3", "b8c6"]
    game = finished("chess", moves)
    positions = rules.replay(moves)
    page = page_it
    page.goto(f"{site}/games/{game.pk}/")
    page.get_by_test_id("analyse").click()
    expect(page).to_have_url(f"{site}/games/{game.pk}/analysis/")
    page.get_by_test_id("board").locator("cg-board").wait_for()
    expect(page.get_by_test_id("fen")).to_have_text(game.fen)  # the game's end first
    tree = page.get_by_test_id("tree")
    expect(tree).to_contain_text("2. Cf3 Cc6")  # Italian letters (RULES 2)

    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("fen")).to_have_text(positions[2])
    # A square the bishop cannot reach: chessground keeps it where it stands (the legal
    # destinations are the server's); then 2. d4, which the server plays.
    click_chess(page, "f1", "white")
    click_chess(page, "f4", "white")
    expect(page.get_by_test_id("fen")).to_have_text(positions[2])
    click_chess(page, "d2", "white")
    click_chess(page, "d4", "white")
    expect(page.get_by_test_id("fen")).to_have_text(rules.apply(positions[2], "d2d4"))
    expect(tree.get_by_test_id("variation")).to_have_text("2. d4")
    # The server refuses a move the board would not offer (sent by hand, with the page's token).
    status = page.evaluate(
        """async () => (await fetch(document.getElementById('analysis').dataset.moveUrl, {
            method: 'POST', headers: {'Content-Type': 'application/json', 'X-CSRFToken':
            document.querySelector('[name=csrfmiddlewaretoken]').value},
            body: JSON.stringify({variant: 'chess', fen: document.getElementById('fen').value,
                                  move: 'e8e6'})})).status"""
    )
    assert status == 400
    assert copied(page) == rules.apply(positions[2], "d2d4")
    shots(page, "chess")

    page.get_by_test_id("main-line").click()
    expect(page.get_by_test_id("fen")).to_have_text(positions[2])
    page.keyboard.press("End")
    expect(page.get_by_test_id("fen")).to_have_text(game.fen)
    expect(tree.get_by_test_id("variation")).to_have_text("2. d4")  # kept

    read = chess.pgn.read_game(io.StringIO(download(page)))
    assert [m.uci() for m in read.mainline_moves()] == moves
    after_e5 = read.variations[0].variations[0]
    assert [v.move.uci() for v in after_e5.variations] == ["g1f3", "d2d4"]

    # Into the variation again, then deleted: the main line stays.
    tree.get_by_test_id("variation").get_by_role("button").click()
    page.get_by_test_id("delete-variation").click()
    expect(page.get_by_test_id("fen")).to_have_text(positions[2])
    expect(tree.get_by_test_id("variation")).to_have_count(0)
    expect(tree).to_contain_text("2. Cf3 Cc6")


def test_an_italian_draughts_game_analysed_from_the_player_s_games(page_it, site):
    rules = variant("italian")
    anna = UserFactory(username="anna_analisi")
    moves = ["23-20", "12-15", "27-23", "11-14"]  # no capture: Black has seven moves at ply 4
    game = finished("italian", moves, white=anna)
    positions = rules.replay(moves)
    page = page_it
    page.goto(f"{site}/@/{anna.username}/")
    page.get_by_test_id(f"recent-game-{game.pk}").get_by_test_id("analyse").click()
    expect(page).to_have_url(f"{site}/games/{game.pk}/analysis/")
    expect(page.get_by_test_id("fen")).to_have_text(game.fen)

    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("fen")).to_have_text(positions[3])
    legal = rules.legal_moves(positions[3])  # Black to move
    mover = int(legal[0].split("-")[0])
    # A square no move of the piece reaches: refused at once, from the position's legal moves
    # as the server listed them (no request: the browser would log its refusal as an error).
    console_errors = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    taken = {
        int(n.lstrip("K")) for part in positions[3].split(":")[1:] for n in part[1:].split(",") if n
    }
    wrong = next(s for s in range(1, 33) if s not in taken and f"{mover}-{s}" not in legal)
    draughts_move(page, mover, wrong)
    expect(page.get_by_test_id("notice")).to_contain_text("non valida in questa posizione")
    assert console_errors == []
    expect(page.get_by_test_id("fen")).to_have_text(positions[3])
    other = next(m for m in legal if m != moves[3])
    origin, dest = other.split("-")
    draughts_move(page, origin, dest)
    expect(page.get_by_test_id("fen")).to_have_text(rules.apply(positions[3], other))
    expect(page.get_by_test_id("tree").get_by_test_id("variation")).to_have_text(f"2… {other}")
    assert copied(page) == rules.apply(positions[3], other)
    shots(page, "italian")

    page.get_by_test_id("main-line").click()
    expect(page.get_by_test_id("fen")).to_have_text(positions[3])
    page.get_by_test_id("move-nav").get_by_role("button", name="Avanti").click()
    expect(page.get_by_test_id("fen")).to_have_text(game.fen)

    text = download(page)
    (read,) = PDNReader(pdn_text=text).games
    assert read.moves == moves
    plain = " ".join(re.sub(r"\{[^}]*\}", "", text.split("\n\n", 1)[1]).split())
    assert f"2. {moves[2]} {moves[3]} (2... {other}) 0-1" in plain  # the clocks left out


def test_a_refused_download_says_why_on_the_page(page_it, site):
    """Over the analysis budget (the page's own moves asked for as fast as a script would, then
    at once the download of a 60-move game, 3 tokens: more than the rate gives back meanwhile),
    the download is refused: the server's message shows in the notice and the page stays."""
    rules = variant("chess")
    fen, moves = rules.start_fen(), []
    for ply in range(60):  # a game no rule ends before its resignation
        legal = rules.legal_moves(fen)
        moves.append(legal[(ply * 7 + 3) % len(legal)])
        fen = rules.apply(fen, moves[-1])
    game = finished("chess", moves)
    page = page_it
    page.goto(f"{site}/games/{game.pk}/analysis/")
    page.get_by_test_id("board").locator("cg-board").wait_for()
    statuses = page.evaluate(
        """async () => {
            const statuses = await Promise.all(Array.from({length: 100}, () => fetch(
                document.getElementById('analysis').dataset.moveUrl, {method: 'POST',
                headers: {'Content-Type': 'application/json', 'X-CSRFToken':
                document.querySelector('[name=csrfmiddlewaretoken]').value},
                body: JSON.stringify({variant: 'chess',
                                      fen: document.getElementById('fen').textContent})
            }).then((r) => r.status)));
            document.querySelector('[data-testid=export]').click();
            return statuses;
        }"""
    )
    assert 429 in statuses
    expect(page.get_by_test_id("notice")).to_have_text("Troppe richieste: aspetta un momento.")
    expect(page).to_have_url(f"{site}/games/{game.pk}/analysis/")
    expect(page.get_by_test_id("export")).to_be_enabled()
    shots(page, "refused")
