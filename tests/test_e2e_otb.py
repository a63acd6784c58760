"""End to end in Chromium: the over-the-board tournament of RULES 13's "done when". Rounds 1-2
and 4-7 through the services, round 3 typed on the round sheet by keyboard alone (a key and
Enter per board, the cursor moving on by itself), while a phone's public page follows each
result live; then its TRF passes the checker and reads back equal (otb/tests/test_swiss.py)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from playwright.sync_api import expect

from accounts.tests.factories import UserFactory
from otb import services
from otb.models import OtbBoard
from otb.rules import parse_typed
from otb.tests import scenario
from otb.tests.test_swiss import check_played
from tests.browser import no_csp_violations, session_cookie

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]


# How many lines each element's text takes (one client rect a line of its text).
LINES_OF_TEXT = """elements => elements.map(element => {
    const range = document.createRange();
    range.selectNodeContents(element);
    return range.getClientRects().length;
})"""


def shots(page, name: str) -> None:
    """With OTB_SHOTS=<folder>: the page at 1280 and 390 px (looked at by whoever asked)."""
    folder = os.environ.get("OTB_SHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=f"{folder}/{name}-{width}.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def test_a_round_typed_by_keyboard_on_the_round_sheet(site, browser, monkeypatch):
    monkeypatch.setattr(services, "LOT", random.Random(1))  # the tournament of test_swiss
    organizer = UserFactory(username="arbitro_sala")
    tournament = scenario.open_tournament(organizer)
    scenario.play(tournament, organizer, rounds=range(1, 3))
    scenario.pair_and_publish(tournament, organizer, 3)
    boards = list(
        tournament.rounds.get(number=3).boards.select_related("white", "black").exclude(black=None)
    )
    typed = {b.board: scenario.typed_for(3, b) for b in boards}
    assert "+" in typed.values()  # the forfeit, typed like any result

    context = browser.new_context(locale="it-IT", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    try:
        phone = context.new_page()
        phone.goto(f"{site}/tavolino/{tournament.pk}/")
        expect(phone.get_by_test_id("public-result-1")).to_have_text("–")
        context.add_cookies([session_cookie(site, organizer.username)])
        sheet = context.new_page()
        sheet.goto(f"{site}/tavolino/{tournament.pk}/turno/3/")
        # The last board's answer is held back (a route), as a loaded server may answer late.
        last = boards[-1].board
        held = []

        def of_last(request) -> bool:
            return f"board={last}&" in (request.post_data or "") + "&"

        def hold_last(route):
            if of_last(route.request):
                held.append(route)
            else:
                route.continue_()

        sheet.route("**/turno/3/risultato/", hold_last)
        sheet.locator("#result-1").focus()
        for board in boards:
            expect(sheet.locator(f"#result-{board.board}")).to_be_focused()
            sheet.keyboard.type(typed[board.board])
            if board.board == last:
                with sheet.expect_request(of_last):
                    sheet.keyboard.press("Enter")
                break
            sheet.keyboard.press("Enter")
            expect(sheet.locator(f"#result-{board.board}")).to_have_value(
                parse_typed(typed[board.board])
            )
        # The arbiter has gone back to board 2 when the last board's row comes back: the late
        # row must leave the cursor on board 2 (it used to take it to its own field, where the
        # next key went).
        sheet.locator("#result-2").fill("")
        sheet.locator("#result-2").focus()
        sheet.evaluate(
            """last => document.addEventListener("htmx:afterSettle", event => {
                if (event.detail.target && event.detail.target.id === "board-" + last)
                    document.body.dataset.lateRowSettled = "yes";
            })""",
            last,
        )
        (late,) = held  # routed before the calls above came back (one connection, in order)
        late.continue_()
        expect(sheet.locator("body[data-late-row-settled]")).to_have_count(1)
        sheet.unroute("**/turno/3/risultato/")
        expect(sheet.locator(f"#result-{last}")).to_have_value(parse_typed(typed[last]))
        expect(sheet.locator("#result-2")).to_be_focused()
        # The phone's page followed, with no reload (the "changed" push and its re-fetch).
        expect(phone.get_by_test_id("public-result-1")).to_have_text(parse_typed(typed[1]))
        stored = dict(
            OtbBoard.objects.filter(round__tournament=tournament, round__number=3)
            .exclude(black=None)
            .values_list("board", "result")
        )
        assert stored == {n: parse_typed(t) for n, t in typed.items()}
        # A key that is no result is refused on its row, and the cursor stays there.
        sheet.keyboard.type("3")
        sheet.keyboard.press("Enter")
        expect(sheet.locator("#board-2 [role=alert]")).to_contain_text("non è un risultato")
        expect(sheet.locator("#result-2")).to_be_focused()
        # The rows swapped in by htmx (results, a correction, a refusal) carry no inline style:
        # the policy (style-src 'self') would refuse it (tests/browser.py).
        no_csp_violations(sheet, browser)
        shots(sheet, "round-sheet")
        shots(phone, "public")

        scenario.play(tournament, organizer, rounds=range(4, 8))
        check_played(tournament)
        phone.reload()
        shots(phone, "public-final")
        for name, path in (
            ("print-pairings", "abbinamenti/7/"),
            ("print-standings", "classifica/"),
            ("print-cross", "tabellone/"),
            ("print-labels", "cartellini/7/"),
            ("print-slips", "foglietti/7/"),
        ):
            sheet.goto(f"{site}/tavolino/{tournament.pk}/stampa/{path}")
            shots(sheet, name)
        # The slips' "1 · ½ · 0" to circle stay on one line, on screen and printed on A4.
        sheet.goto(f"{site}/tavolino/{tournament.pk}/stampa/foglietti/7/")
        for media, width in (("screen", 1280), ("screen", 390), ("print", 794)):
            sheet.emulate_media(media=media)
            sheet.set_viewport_size({"width": width, "height": 1123})
            lines = sheet.locator(".slip-box").evaluate_all(LINES_OF_TEXT)
            assert lines and set(lines) == {1}, (media, width, lines)
        sheet.emulate_media(media="screen")
        sheet.set_viewport_size({"width": 1280, "height": 900})
        if os.environ.get("OTB_SHOTS"):  # the wall chart on a phone, scrolled: names held
            sheet.goto(f"{site}/tavolino/{tournament.pk}/stampa/tabellone/")
            sheet.set_viewport_size({"width": 390, "height": 900})
            sheet.locator(".table-scroll").evaluate("region => { region.scrollLeft = 250; }")
            sheet.screenshot(path=f"{os.environ['OTB_SHOTS']}/print-cross-scrolled-390.png")
            sheet.set_viewport_size({"width": 1280, "height": 900})
        sheet.goto(f"{site}/tavolino/{tournament.pk}/elo/")
        shots(sheet, "rating-report")
        sheet.goto(f"{site}/tavolino/{tournament.pk}/arbitro/")
        shots(sheet, "desk")
    finally:
        context.close()
