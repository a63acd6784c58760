"""End to end in Chromium: between the players of a casual game, a takeback asked and
granted, one asked and refused, "+15 s", and an abort before one's first move (docs/rules.md
§3)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import Game
from games.services import game_resign
from tests.browser import chess_move, game_between, to_board

pytestmark = pytest.mark.e2e


def seconds(page, side: str) -> int:
    minutes, secs = page.get_by_test_id(f"clock-{side}").inner_text().split(":")[:2]
    return int(minutes) * 60 + int(float(secs))


def test_a_takeback_granted_one_refused_more_time_and_an_abort(site, two_players):
    (anna, bruno), names = two_players
    game, _white, _black = game_between(names)  # Anna White, Bruno Black, casual, no event
    to_board(anna, site, game)
    to_board(bruno, site, game)
    # Before any move both may abort; neither may ask a takeback yet.
    expect(anna.get_by_test_id("abort")).to_be_visible()
    expect(anna.get_by_test_id("takeback")).to_be_hidden()
    expect(anna.get_by_test_id("analyse")).to_be_hidden()  # not while the game is played

    chess_move(anna, "e2e4", "white")
    expect(bruno.get_by_test_id("moves")).to_contain_text("e4")
    expect(anna.get_by_test_id("abort")).to_be_hidden()  # Anna has moved
    expect(bruno.get_by_test_id("abort")).to_be_visible()  # Bruno has not
    anna.get_by_test_id("takeback").click()
    expect(bruno.get_by_test_id("status-line")).to_contain_text("ritirare")
    bruno.get_by_test_id("takeback-accept").click()
    for page in (anna, bruno):
        expect(page.get_by_test_id("moves")).not_to_contain_text("e4")
    chess_move(anna, "d2d4", "white")
    expect(bruno.get_by_test_id("moves")).to_contain_text("d4")

    chess_move(bruno, "d7d5", "black")
    expect(anna.get_by_test_id("moves")).to_contain_text("d5")
    bruno.get_by_test_id("takeback").click()
    anna.get_by_test_id("takeback-decline").click()
    expect(bruno.get_by_test_id("status-line")).to_contain_text("non ti lascia ritirare")
    expect(bruno.get_by_test_id("moves")).to_contain_text("d5")

    before = seconds(bruno, "top")  # Anna's clock, running, on Bruno's page
    bruno.get_by_test_id("more-time").click()
    anna.wait_for_function(
        "before => { const [m, s] = document.querySelector('[data-testid=clock-bottom]')"
        ".innerText.split(':'); return m * 60 + parseFloat(s) > before + 10; }",
        arg=before,
    )
    stored = Game.objects.get(pk=game.pk)
    assert (stored.ply, stored.moves) == (2, ["d2d4", "d7d5"])

    # A new game: Bruno aborts it before his first move; it ends with no result for anyone.
    game_resign(game_id=game.pk, user_id=stored.black_id)
    second, _white, _black = game_between(names)
    to_board(anna, site, second)
    to_board(bruno, site, second)
    chess_move(anna, "e2e4", "white")
    expect(bruno.get_by_test_id("moves")).to_contain_text("e4")
    bruno.on("dialog", lambda dialog: dialog.accept())
    bruno.get_by_test_id("abort").click()
    for page in (anna, bruno):
        expect(page.get_by_test_id("result")).to_have_text("partita annullata")
        # The game over, its analysis is offered on the page as it is, without a reload, and
        # the computer's analysis to ask for (RULES 14.6).
        expect(page.get_by_test_id("analyse")).to_be_visible()
        expect(page.get_by_test_id("computer-analysis-ask")).to_be_visible()
    stored = Game.objects.get(pk=second.pk)
    assert (stored.status, stored.result, stored.reason) == ("finished", "", "aborted")
