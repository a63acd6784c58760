"""End to end in Chromium: two players sign up, challenge, and play live in two contexts."""

from __future__ import annotations

import re
import time
import uuid

import pytest
from playwright.sync_api import expect

from tests.browser import (
    challenge,
    chess_move,
    draughts_drag,
    draughts_move,
    game_between,
    open_game_between,
    to_board,
    wait_plies,
)

pytestmark = pytest.mark.e2e


def test_chess_to_checkmate_and_italian_draughts_to_resignation(site, two_players):
    site = site
    (anna, bruno), (anna_name, bruno_name) = two_players

    # Chess: Anna (Black) challenges Bruno by name; he sees it wherever he is and accepts.
    challenge(anna, site, variant="chess", color="black", opponent=bruno_name)
    bruno.goto(site + "/players/")
    notice = bruno.get_by_test_id("challenge-notice")
    expect(notice).to_contain_text(anna_name)
    notice.get_by_role("button", name="Accetta").click()
    expect(bruno).to_have_url(re.compile(r"/games/\d+/$"))
    game_url = bruno.url
    # Anna, waiting in the lobby, is taken to the board.
    expect(anna).to_have_url(game_url, timeout=15_000)

    moves = anna.get_by_test_id("moves")
    chess_move(bruno, "f2f3", "white")
    expect(moves).to_contain_text("f3")  # Anna's board updates live
    chess_move(anna, "e7e5", "black")
    expect(bruno.get_by_test_id("moves")).to_contain_text("e5")
    anna.reload()  # resumes exactly where the game is
    expect(moves).to_contain_text("f3")
    expect(moves).to_contain_text("e5")
    chess_move(bruno, "g2g4", "white")
    expect(moves).to_contain_text("g4")
    chess_move(anna, "d8h4", "black")
    for page in (anna, bruno):
        expect(page.get_by_test_id("result")).to_contain_text("0-1")
        expect(page.get_by_test_id("result")).to_contain_text("scacco matto")

    # Italian draughts: an open challenge from the lobby, accepted there; Bruno resigns.
    challenge(bruno, site, variant="italian", color="white")
    anna.goto(site + "/play/")
    anna.locator("[data-testid^=accept-]").first.click()
    expect(anna).to_have_url(re.compile(r"/games/\d+/$"))
    expect(bruno).to_have_url(anna.url, timeout=15_000)
    draughts_move(bruno, 22, 18)
    expect(anna.get_by_test_id("moves")).to_contain_text("22-18")
    draughts_move(anna, 11, 15)
    expect(bruno.get_by_test_id("moves")).to_contain_text("11-15")
    bruno.on("dialog", lambda dialog: dialog.accept())
    bruno.get_by_test_id("resign").click()
    expect(anna.get_by_test_id("result")).to_contain_text("0-1")
    expect(bruno.get_by_test_id("result")).to_contain_text("0-1")


def test_english_draughts_to_agreed_draw_and_international_to_resignation(site, two_players):
    site = site
    (anna, bruno), _names = two_players

    # English draughts: Black moves first (Anna). Moves by drag and by click, a forced capture
    # and its recapture, then a draw offered by Anna and accepted by Bruno.
    open_game_between(site, anna, bruno, variant="english", color="black")
    draughts_drag(anna, 11, 15)
    expect(bruno.get_by_test_id("moves")).to_contain_text("11-15")
    draughts_drag(bruno, 22, 18)
    expect(anna.get_by_test_id("moves")).to_contain_text("22-18")
    draughts_move(anna, 15, 22)
    expect(bruno.get_by_test_id("moves")).to_contain_text("15x22")
    draughts_move(bruno, 25, 18)
    expect(anna.get_by_test_id("moves")).to_contain_text("25x18")
    anna.on("dialog", lambda dialog: dialog.accept())
    anna.get_by_test_id("draw-offer").click()
    expect(bruno.get_by_test_id("status-line")).to_contain_text("propone patta")
    bruno.get_by_test_id("draw-accept").click()
    for page in (anna, bruno):
        expect(page.get_by_test_id("result")).to_contain_text("½-½")
        expect(page.get_by_test_id("result")).to_contain_text("patta d'accordo")

    # International draughts (10×10): Bruno is White; an exchange, then Anna resigns.
    open_game_between(site, bruno, anna, variant="international", color="white")
    draughts_move(bruno, 32, 28)
    expect(anna.get_by_test_id("moves")).to_contain_text("32-28")
    draughts_move(anna, 19, 23)
    expect(bruno.get_by_test_id("moves")).to_contain_text("19-23")
    draughts_drag(bruno, 28, 19)
    expect(anna.get_by_test_id("moves")).to_contain_text("28x19")
    draughts_move(anna, 14, 23)
    expect(bruno.get_by_test_id("moves")).to_contain_text("14x23")
    anna.get_by_test_id("resign").click()
    for page in (anna, bruno):
        expect(page.get_by_test_id("result")).to_contain_text("1-0")


def test_chess_promotion_chooser(site, two_players):
    site = site
    (anna, bruno), _names = two_players
    open_game_between(site, anna, bruno, variant="chess", color="black")  # Bruno is White
    plies = ["a2a4", "b7b5", "a4b5", "a7a6", "b5a6", "c8b7", "a6b7", "b8c6"]
    for i, move in enumerate(plies):
        page, orientation = (bruno, "white") if i % 2 == 0 else (anna, "black")
        chess_move(page, move, orientation)
        for p in (anna, bruno):
            wait_plies(p, i + 1)
    chess_move(bruno, "b7a8", "white")
    chooser = bruno.get_by_test_id("chooser")
    expect(chooser).to_contain_text("Promuovi a:")
    chooser.get_by_role("button", name="♞").click()
    expect(anna.get_by_test_id("moves")).to_contain_text("a8C")  # Italian: C for the knight


def test_draughts_capture_path_chooser(site, two_players):
    """Two captures from the same square to the same square: the player picks the path, and
    the one picked is the one played (both boards show it)."""
    (anna, bruno), names = two_players
    # Italian draughts, White to move: the man on 18 takes two men and lands on 2, via 9 or
    # via 11 (the same number and kind of pieces: RULES 2, both are legal).
    game, _white, _black = game_between(
        names, "italian", "W:W17,18,21,23,24,26,28,29,30,32:B1,3,4,5,6,7,8,10,12,13,14,K31"
    )
    for page in (anna, bruno):
        to_board(page, site, game.pk)
    draughts_move(anna, 18, 2)
    chooser = anna.get_by_test_id("chooser")
    expect(chooser).to_contain_text("18x9x2")
    expect(chooser).to_contain_text("18x11x2")
    chooser.get_by_role("button", name="18x11x2").click()
    for page in (anna, bruno):
        expect(page.get_by_test_id("moves")).to_contain_text("18x11x2")
    game.refresh_from_db()
    assert game.moves == ["18x11x2"]


def test_a_lost_push_is_made_good_by_the_page(site, two_players):
    """States travel over Redis pub/sub, so one can be lost (a daphne cut off from Redis at
    that moment): a live game's page that has heard nothing for GAME_RESYNC_SECONDS (15 s; 3 s
    for the suite's processes, tests/conftest.py) asks for the state."""
    from games.services import game_move
    from live import pushes

    (anna, bruno), names = two_players
    game, white, black = game_between(names)
    to_board(bruno, site, game.pk)
    # His own presence shown online: the socket is up and has had its states.
    expect(bruno.locator('.presence[data-side="bottom"]')).to_have_class(re.compile(r"\bon\b"))
    with pushes.collected():  # the move is committed, its push never sent
        game_move(game_id=game.pk, user_id=white.pk, expected_ply=0, move="e2e4")
    bruno.wait_for_timeout(1_000)  # a third of the resync: nothing yet
    expect(bruno.get_by_test_id("moves")).not_to_contain_text("e4")
    expect(bruno.get_by_test_id("moves")).to_contain_text("e4", timeout=15_000)


def test_chess_check_is_shown_on_the_king(site, two_players):
    from accounts.models import User
    from games.services import game_move, game_open

    (anna, bruno), names = two_players
    game, white, black = game_between(names)
    for ply, (user, move) in enumerate([(white, "e2e4"), (black, "f7f5"), (white, "d1h5")]):
        game_move(game_id=game.pk, user_id=user.pk, expected_ply=ply, move=move)
    to_board(bruno, site, game.pk)
    expect(bruno.get_by_test_id("moves")).to_contain_text("Dh5+")
    expect(bruno.locator("cg-board square.check")).to_have_count(1)
    game_move(game_id=game.pk, user_id=black.pk, expected_ply=3, move="g7g6")
    bruno.reload()
    expect(bruno.get_by_test_id("moves")).to_contain_text("g6")
    expect(bruno.locator("cg-board square.check")).to_have_count(0)
    # An en-passant capture that gives check is written "exd6+ e.p.": still shown as check.
    ep = game_open(
        white_id=User.objects.create(username=f"c_{uuid.uuid4().hex[:8]}").pk,
        black_id=User.objects.create(username=f"d_{uuid.uuid4().hex[:8]}").pk,
        variant_code="chess",
        base_seconds=600,
        increment_seconds=0,
        rated=False,
        start_fen="8/2kp4/8/4P3/8/8/8/4K3 b - - 0 1",
    )
    game_move(game_id=ep.pk, user_id=ep.black_id, expected_ply=0, move="d7d5")
    game_move(game_id=ep.pk, user_id=ep.white_id, expected_ply=1, move="e5d6")
    to_board(bruno, site, ep.pk)
    expect(bruno.get_by_test_id("moves")).to_contain_text("exd6+ e.p.")
    expect(bruno.locator("cg-board square.check")).to_have_count(1)


def clock_seconds(page, side: str) -> float:
    minutes, seconds = page.get_by_test_id(f"clock-{side}").inner_text().split(":")
    return int(minutes) * 60 + float(seconds)


def test_clocks_agree_with_the_server(site, two_players):
    """The page shows the server's figures, not "10:00" from whenever it loaded: the running
    clock has run since the game opened, and keeps running smoothly; the other one stands."""
    (anna, bruno), names = two_players
    game, white, black = game_between(names)
    opened = time.monotonic()
    time.sleep(3)
    to_board(bruno, site, game.pk)  # Black: White's clock is on top
    expect(bruno.locator('.presence[data-side="bottom"]')).to_have_class(re.compile(r"\bon\b"))
    shown, elapsed = clock_seconds(bruno, "top"), time.monotonic() - opened
    assert abs(shown - (600 - elapsed)) < 1.5, (shown, elapsed)
    assert clock_seconds(bruno, "bottom") == 600
    bruno.wait_for_timeout(2_000)
    later, elapsed_later = clock_seconds(bruno, "top"), time.monotonic() - opened
    assert abs(later - (600 - elapsed_later)) < 1.5, (later, elapsed_later)
    assert 1.0 < shown - later < 3.0
    assert clock_seconds(bruno, "bottom") == 600
