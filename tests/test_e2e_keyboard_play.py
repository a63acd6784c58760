"""Games played with the keyboard alone (`page.keyboard`: no click, no fill): the board's grid
of named squares (static/js/textmode.js), arrows to a square, Enter on the piece and on its
destination; Tab to the game's buttons for a draw offer, its acceptance and a resignation.
A chess game to mate, an Italian draughts game to its end, a draw agreed, a game resigned."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import game_between, to_board

pytestmark = pytest.mark.e2e

FOCUS = "() => { const e = document.activeElement; return e ? (e.dataset.key || e.id || '') : ''; }"


def tab_to(page, target: str, limit: int = 60) -> None:
    """Tab (forwards) until the focused element is `target`: a square of the board's grid
    (`grid`) or an element's id."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        role = page.evaluate("() => document.activeElement.getAttribute('role')")
        if (target == "grid" and role == "gridcell") or page.evaluate(FOCUS) == target:
            return
    raise AssertionError(f"Tab never reached {target}")


def place(page, key) -> tuple[int, int]:
    """The row and column (0 at the top left, as shown) of a square of the grid."""
    return tuple(
        page.evaluate(
            """key => { const c = document.querySelector(`#board-grid [data-key="${key}"]`);
                        return [Number(c.style.gridRow) - 1, Number(c.style.gridColumn) - 1]; }""",
            str(key),
        )
    )


def arrow_to(page, key) -> None:
    """Arrows from the focused square to `key` (draughts: up and down go to the nearer dark
    square, sideways two columns), then checks the focus is there."""
    target = place(page, key)
    for _ in range(40):
        r, c = place(page, page.evaluate(FOCUS))
        if (r, c) == target:
            break
        if r != target[0]:
            page.keyboard.press("ArrowUp" if target[0] < r else "ArrowDown")
        else:
            page.keyboard.press("ArrowLeft" if target[1] < c else "ArrowRight")
    assert page.evaluate(FOCUS) == str(key)


def key_move(page, origin, dest) -> None:
    arrow_to(page, origin)
    page.keyboard.press("Enter")
    arrow_to(page, dest)
    page.keyboard.press("Space")


def open_both(site, pages, game) -> None:
    for page in pages:
        to_board(page, site, game.pk)
        page.get_by_test_id("board-grid").locator("[role=gridcell]").first.wait_for(
            state="attached"
        )
        tab_to(page, "grid")


def test_chess_and_italian_draughts_by_keyboard_alone(site, two_players):
    (anna, bruno), names = two_players

    # Chess to mate: the fool's mate, every move by the keyboard; the squares say what is on them.
    game, _, _ = game_between(names, "chess")
    open_both(site, (anna, bruno), game)
    grid = anna.get_by_test_id("board-grid")
    expect(grid.get_by_role("gridcell", name="e2, pedone bianco")).to_have_count(1)
    key_move(anna, "f2", "f3")
    expect(bruno.get_by_role("log")).to_contain_text("Pedone in f3")
    key_move(bruno, "e7", "e5")
    expect(anna.get_by_role("log")).to_contain_text("Pedone in e5")
    key_move(anna, "g2", "g4")
    expect(bruno.get_by_role("log")).to_contain_text("Pedone in g4")
    key_move(bruno, "d8", "h4")
    for page in (anna, bruno):
        expect(page.get_by_test_id("result")).to_contain_text("0-1")
    expect(grid.get_by_role("gridcell", name="h4, donna nera")).to_have_count(1)

    # Italian draughts to its end: White's man on 22 takes Black's last piece.
    game, _, _ = game_between(names, "italian", start_fen="W:W22,31:B18")
    open_both(site, (anna, bruno), game)
    expect(anna.get_by_role("gridcell", name="casella 18, pedina nera")).to_have_count(1)
    key_move(anna, 22, 13)
    expect(bruno.get_by_role("log")).to_contain_text("22 prende 13")
    for page in (anna, bruno):
        expect(page.get_by_test_id("result")).to_contain_text("1-0")

    # Italian draughts again, from the start: a move each, then a draw offered and accepted
    # with Tab and Enter (the offer's confirmation answered as a dialog).
    game, _, _ = game_between(names, "italian")
    open_both(site, (anna, bruno), game)
    key_move(anna, 22, 18)
    expect(bruno.get_by_role("log")).to_contain_text("22 per 18")
    key_move(bruno, 11, 14)
    expect(anna.get_by_role("log")).to_contain_text("11 per 14")
    anna.once("dialog", lambda dialog: dialog.accept())
    tab_to(anna, "draw-offer")
    anna.keyboard.press("Enter")
    expect(bruno.get_by_role("log")).to_contain_text("Il tuo avversario propone patta")
    tab_to(bruno, "draw-accept")
    bruno.keyboard.press("Enter")
    for page in (anna, bruno):
        expect(page.get_by_test_id("result")).to_contain_text("½-½")

    # Chess resigned: Bruno (Black) tabs to "Abbandona" after one move each.
    game, _, _ = game_between(names, "chess")
    open_both(site, (anna, bruno), game)
    key_move(anna, "e2", "e4")
    expect(bruno.get_by_role("log")).to_contain_text("Pedone in e4")
    bruno.once("dialog", lambda dialog: dialog.accept())
    tab_to(bruno, "resign")
    bruno.keyboard.press("Enter")
    for page in (anna, bruno):
        expect(page.get_by_test_id("result")).to_contain_text("1-0")
    expect(anna.get_by_role("log")).to_contain_text("Vince il bianco")
