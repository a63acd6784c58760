"""End to end in Chromium: the chess opening's ECO code and name on the game page,
kept up to date as moves are played, on a wide screen and on a phone; screenshots in
docs/screenshots/issue-24/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from accounts.models import User
from games.services import game_open
from tests.browser import chess_move, shoot, to_board

pytestmark = pytest.mark.e2e

SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots" / "issue-24"


def test_the_opening_is_named_as_the_moves_are_played(site, browser, two_players):
    (anna, bruno), names = two_players
    white, black = (User.objects.get(username=name) for name in names)
    game = game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code="chess",
        base_seconds=600,
        increment_seconds=5,
        rated=False,
    )
    for page in (anna, bruno):
        to_board(page, site, game.pk)
        expect(page.locator("cg-board")).to_be_visible()
    line = anna.get_by_test_id("chess-opening")
    expect(line).to_be_hidden()  # no position named yet
    moves = ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3"]
    for ply, move in enumerate(moves):
        page, side = (anna, "white") if ply % 2 == 0 else (bruno, "black")
        chess_move(page, move, side)
        for each in (anna, bruno):  # the move reached both pages
            each.wait_for_function(
                "n => document.querySelectorAll('#moves .mv').length >= n", arg=ply + 1
            )
        if ply == 0:
            # In Italian, as the pages are (games/rules/chess_openings_it.py).
            expect(line).to_have_text(re.compile(r"B00\s+Partita di pedone di re"))
            expect(bruno.get_by_test_id("chess-opening")).to_contain_text("pedone di re")
        if ply == 1:
            expect(line).to_have_text(re.compile(r"B20\s+Difesa siciliana$"))
    # 5. Nc3 names no position: the name stays that of 4... Nf6.
    for page in (anna, bruno):
        expect(page.get_by_test_id("chess-opening")).to_have_text(
            re.compile(r"B54\s+Difesa siciliana: varianti moderne, linea principale")
        )
    SHOTS.mkdir(parents=True, exist_ok=True)
    anna.set_viewport_size({"width": 1280, "height": 860})
    shoot(anna, str(SHOTS / "game-page-opening-1280.png"))
    # A page loaded afterwards shows the same, from the server.
    phone = browser.new_context(
        locale="it-IT", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        small = phone.new_page()
        small.context.add_cookies(bruno.context.cookies())
        to_board(small, site, game.pk)
        expect(small.locator("cg-board")).to_be_visible()
        opening = small.get_by_test_id("chess-opening")
        expect(opening).to_have_text(
            re.compile(r"Apertura:\s+B54\s+Difesa siciliana: varianti moderne, linea principale")
        )
        assert small.evaluate("document.documentElement.scrollWidth") <= 390
        opening.scroll_into_view_if_needed()
        shoot(small, str(SHOTS / "game-page-opening-390.png"), full_page=True)
    finally:
        phone.close()
