"""End to end in Chromium: a running round robin's page shows its top boards ("Prime
scacchiere"), each a small read-only board named for a screen reader and linked to its game;
a move played in one of them moves that mini board without a reload (its game's socket, as a
spectator); a new round brings its own boards; once the tournament is over and rated, the
final standings show each player's rating change and FIDE performance, said in the legend."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.tests.factories import UserFactory
from games.services import game_move
from tests.browser import socket_open
from tests.test_e2e_event_pages import finish_round, live_games, tournament
from tournaments import running
from tournaments.models import Tournament

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]


def shots(page, name: str) -> None:
    """Screenshots at 1280 and 390 px, only when SHOTS_DIR is set (a review's look)."""
    folder = os.environ.get("SHOTS_DIR")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=f"{folder}/{name}-{width}.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def next_round(t: Tournament) -> None:
    t.rounds.filter(number=t.current_round).update(ended_at=timezone.now() - timedelta(seconds=60))
    running.tournament_advance(tournament_id=t.pk)
    t.refresh_from_db()


def test_top_boards_follow_the_moves_and_the_standings_show_the_ratings(site, browser):
    names = ("anna", "bruno", "carla", "dario", "elena", "fabio")
    players = [UserFactory(username=f"tb_{n}") for n in names]
    t = tournament("Girone delle prime scacchiere", players[0], players, start_now=True)
    assert running.tournament_start(tournament_id=t.pk)
    t.refresh_from_db()
    context = browser.new_context(locale="it-IT")
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        page.goto(f"{site}/tournaments/{t.pk}/")
        section = page.get_by_test_id("top-boards")
        expect(section.get_by_role("heading", name="Prime scacchiere")).to_be_visible()
        boards = section.get_by_test_id("top-board")
        expect(boards).to_have_count(3)  # six players: three boards
        first = live_games(t)[0]
        board = section.locator(f'[data-game="{first.pk}"]')
        white, black = first.white.username, first.black.username
        expect(board).to_have_attribute(
            "aria-label", re.compile(rf"^Scacchiera \d: {white} – {black}$")
        )
        expect(board).to_have_attribute("href", f"/games/{first.pk}/")
        expect(board.locator("cg-board piece")).to_have_count(32)  # a chessground, view only
        socket_open(page, f"/ws/game/{first.pk}/?watch")

        # A move on the board moves the mini board, without a reload.
        game_move(game_id=first.pk, user_id=first.white_id, expected_ply=0, move="e2e4")
        expect(board).to_have_attribute("data-fen", re.compile(r"4P3"))
        expect(board.locator("cg-board square.last-move")).to_have_count(2)
        shots(page, "tournament-top-boards")
        # A live refresh of the section keeps the board and its socket (hx-preserve): the next
        # move still arrives.
        board.evaluate("a => { a.dataset.before = '1'; }")
        board.locator(".top-board-view").evaluate("v => { v.dataset.kept = '1'; }")
        page.evaluate("document.body.dispatchEvent(new Event('tournament-changed'))")
        expect(board).not_to_have_attribute("data-before", "1")  # the section was re-read
        expect(board.locator(".top-board-view")).to_have_attribute(
            "data-kept", "1"
        )  # the same board
        game_move(game_id=first.pk, user_id=first.black_id, expected_ply=1, move="e7e5")
        expect(board).to_have_attribute("data-fen", re.compile(r"4p3/4P3"))
        expect(board.locator("cg-board piece")).to_have_count(32)

        # The round ends and the next is paired: the section shows the new round's boards.
        finish_round(t)
        next_round(t)
        new_ids = {g.pk for g in live_games(t)}
        assert new_ids and first.pk not in new_ids
        page.evaluate("document.body.dispatchEvent(new Event('tournament-changed'))")
        expect(boards.first).to_have_attribute("data-game", re.compile("|".join(map(str, new_ids))))

        # To the end: every round played, the tournament rated as one period (RULES 7.1).
        for _round in range(10):
            finish_round(t)
            next_round(t)
            if t.status == Tournament.Status.FINISHED:
                break
        assert t.status == Tournament.Status.FINISHED
        page.evaluate("document.body.dispatchEvent(new Event('tournament-changed'))")
        expect(page.get_by_test_id("top-boards")).to_have_count(0)
        standings = page.get_by_test_id("standings")
        expect(standings.get_by_test_id("rating-change-head")).to_have_text("Elo ±")
        expect(standings.get_by_test_id("performance-head")).to_have_text("Perf.")
        expect(standings.get_by_test_id("rating-change")).to_have_count(6)
        # Black always resigned: the first has won at least one game, so a positive change.
        expect(standings.get_by_test_id("rating-change").first).to_have_text(re.compile(r"^\+\d+$"))
        expect(standings.get_by_test_id("performance").first).to_have_text(re.compile(r"^\d{3,4}$"))
        expect(page.get_by_test_id("legend-rating")).to_contain_text("formula FIDE")
        shots(page, "tournament-final-standings")
    finally:
        context.close()


def test_draughts_top_boards_are_small_read_only_boards(site, browser):
    """Italian draughts: the analysis page's SVG board (static/js/board-draughts.js), read only,
    follows a move; the page logs no error."""
    players = [UserFactory(username=f"tbd_{n}") for n in ("gino", "ines", "luca", "marta")]
    t = tournament("Dama delle prime scacchiere", players[0], players, start_now=True)
    t.variant = "italian"
    t.save(update_fields=["variant"])
    assert running.tournament_start(tournament_id=t.pk)
    context = browser.new_context(locale="it-IT")
    context.set_default_timeout(15_000)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{site}/tournaments/{t.pk}/")
        first = live_games(t)[0]
        board = page.get_by_test_id("top-board").first
        expect(board).to_have_attribute("data-game", str(first.pk))
        expect(board.locator("svg.draughts-svg circle.piece")).to_have_count(24)
        socket_open(page, f"/ws/game/{first.pk}/?watch")
        game_move(game_id=first.pk, user_id=first.white_id, expected_ply=0, move="22-18")
        expect(board).to_have_attribute("data-fen", re.compile(r"W18|,18[,:]"))
        expect(board.locator("svg .sq.last")).to_have_count(2)
        board.click()
        expect(page).to_have_url(re.compile(rf"/games/{first.pk}/$"))
        assert errors == []
    finally:
        context.close()
