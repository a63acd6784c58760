"""The fair-play report in Chromium (RULES 15): eleven columns for the staff fit the page at
1280 px without scrolling sideways; at 390 px the table scrolls in its own region and the
player's name stays in view. With `SCREENSHOTS=1` (and `FAIRPLAY_SHOTS=dir`), the report at
1280 and 390 px."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from playwright.sync_api import expect

from accounts.tests.factories import UserFactory
from fairplay.tests.factories import event_games, fabricated_event, with_analyses
from tests.browser import session_cookie, shoot

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]

SHOTS = Path(
    os.environ.get("FAIRPLAY_SHOTS")
    or Path(__file__).resolve().parent.parent / "var" / "shots-fairplay"
)
DESK, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}


def test_the_report_fits_at_1280_and_keeps_the_name_in_view_at_390(browser, site):
    arena, people, _machine = fabricated_event(players=10, games_each=4)
    with_analyses(arena, random.Random(3), people[0], games=15)
    event_games(arena).filter(moves=[]).update(moves=["e2e4"])  # not analysed
    staff = UserFactory(username="fp_staff", is_staff=True)
    context = browser.new_context(locale="it-IT", viewport=DESK)
    context.set_default_timeout(20_000)
    context.add_cookies([session_cookie(site, staff.username)])
    page = context.new_page()
    try:
        page.goto(f"{site}/fairplay/arena/{arena.pk}/")
        region = page.locator(".fairplay-scroll")
        expect(page.get_by_test_id("fairplay-row")).to_have_count(10)
        expect(page.get_by_test_id("ask-analyses")).to_be_visible()
        widths = region.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert widths[0] <= widths[1], f"the table is wider than its place at 1280 px: {widths}"
        if os.environ.get("SCREENSHOTS"):
            SHOTS.mkdir(parents=True, exist_ok=True)
        shoot(page, SHOTS / "report-1280.png", full_page=True)
        page.set_viewport_size(PHONE)
        widths = region.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert widths[0] > widths[1]  # it scrolls in its region, not the page
        # Nor does anything in it widen the page (the buttons' hidden names once did).
        page_width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert page_width[0] <= page_width[1]
        shoot(page, SHOTS / "report-390.png", full_page=True)
        name = page.get_by_test_id("fairplay-row").first.locator("th")
        left = region.bounding_box()["x"]
        region.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
        assert abs(name.bounding_box()["x"] - left) < 2  # the name stays at the left edge
        expect(name).to_be_visible()
        shoot(page, SHOTS / "report-390-scrolled.png", full_page=True)
    finally:
        context.close()
