"""End to end in Chromium: a league's pages (RULES 16.8) at 1280 and 390 px. The page of a
started league of four teams with matches played: at 390 px the page is no wider than the
phone, its standings and cross table scroll sideways in their own region with the team's name
kept in view; the open form's clubs search answers as the officer types (htmx) and a club
ticked joins the chosen ones; the team form and the print version.

`SCREENSHOTS=1` saves every page at both widths under `SHOTS_DIR` (docs/screenshots/leagues
by default)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from clubs.tests.factories import club_with
from teams import leagues
from teams.tests.factories import side
from teams.tests.league_world import league_data, played_league
from tests.browser import session_cookie, shoot

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]

SHOTS = Path(
    os.environ.get("SHOTS_DIR")
    or Path(__file__).resolve().parent.parent / "docs" / "screenshots" / "leagues"
)

# The page's own width against the viewport's: nothing sticks out of a phone's screen.
PAGE_WIDTH = "() => document.scrollingElement.scrollWidth"


def both_widths(page, name: str) -> None:
    """The page at 1280 px, then at 390 px (no wider than the phone), shot at both."""
    if os.environ.get("SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    shoot(page, SHOTS / f"{name}-1280.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert page.evaluate(PAGE_WIDTH) <= 390, f"{name}: wider than the phone"
    shoot(page, SHOTS / f"{name}-390.png", full_page=True)


def test_the_league_pages_at_desk_and_phone_width(site, browser):
    world = played_league("e2e")
    league, torino = world.league, world.sides[1]
    club_with(name="Circolo Scacchi Palermo", short_name="CSP", city="Palermo", province="PA")
    context = browser.new_context(locale="it-IT", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    context.add_cookies([session_cookie(site, torino.captain.username)])
    page = context.new_page()
    try:
        page.goto(f"{site}/incontri/campionati/{league.pk}/")
        expect(page.get_by_test_id("league-standing-row")).to_have_count(4)
        expect(page.get_by_test_id("league-team-edit")).to_be_visible()
        both_widths(page, "league")
        # At 390 px the standings scroll in their own region, the team's name kept in view.
        region = page.locator(".league-scroll").first
        assert region.evaluate("r => r.scrollWidth > r.clientWidth"), "standings fit: no test"
        region.evaluate("r => { r.scrollLeft = r.scrollWidth; }")
        name = region.locator("tbody th.team").first
        left = name.evaluate("n => n.getBoundingClientRect().left")
        region_left = region.evaluate("r => r.getBoundingClientRect().left")
        assert abs(left - region_left) < 2, (left, region_left)
        shoot(page, SHOTS / "league-standings-scrolled-390.png")

        page.goto(f"{site}/incontri/campionati/{league.pk}/stampa/")
        expect(page.get_by_test_id("print-sheet")).to_be_visible()
        both_widths(page, "league-print")
        page.emulate_media(media="print")
        page.set_viewport_size({"width": 1280, "height": 900})
        shoot(page, SHOTS / "league-print-media-1280.png", full_page=True)
        page.emulate_media(media="screen")

        team = league.teams.get(club=torino.club)
        page.goto(f"{site}/incontri/campionati/{league.pk}/squadre/{team.pk}/")
        expect(page.get_by_test_id("league-roster").locator("li")).to_have_count(4)
        both_widths(page, "league-team")

        # The open form: the clubs' search answers as the officer types; one ticked joins the
        # chosen ones at once.
        page.goto(f"{site}/incontri/campionati/nuovo/")
        page.locator("#id_league_club_q").fill("Palermo")
        found = page.get_by_test_id("league-found").get_by_text("Circolo Scacchi Palermo")
        expect(found).to_be_visible()
        found.click()
        expect(page.get_by_test_id("league-chosen")).to_contain_text("Circolo Scacchi Palermo")
        both_widths(page, "league-new")
        # A league not started, as its organizer sees it: start now, or cancel (asked first).
        sides = [side([1700, 1600]) for _ in range(3)]
        entry = leagues.league_create(
            by=sides[0].captain, data=league_data(sides, name="Coppa d'inverno")
        )
        context.clear_cookies()
        context.add_cookies([session_cookie(site, sides[0].captain.username)])
        page.goto(f"{site}/incontri/campionati/{entry.pk}/")
        expect(page.get_by_test_id("league-start")).to_be_visible()
        both_widths(page, "league-entry")
        page.get_by_test_id("league-cancel").click()
        expect(page.get_by_test_id("league-cancel-confirm")).to_be_visible()
        both_widths(page, "league-cancel")
    finally:
        context.close()


def fits(page, name: str) -> None:
    """No wider than the window at 1280 px and at 390 px (a long name wraps)."""
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        assert page.evaluate(PAGE_WIDTH) <= width, f"{name}: wider than {width} px"


def test_long_unbroken_names_wrap_on_the_match_and_league_pages(site, browser):
    """An 80-character name without a space (a match's, a league's, a team's) breaks anywhere:
    it once widened the match page to 1820 px at 1280 and to 1730 px at 390. The started
    match's boards fit a phone whole (they were cut at 390 px)."""
    from teams import services
    from teams.tests.factories import open_match

    milano, torino = side([1900, 1800]), side([2000, 1900])
    match = open_match(milano, torino, boards=2, name="N" * 80)
    for club in (milano, torino):
        services.lineup_set(
            match_id=match.pk, by=club.captain, player_ids=[p.pk for p in club.players]
        )
    sides = [side([1700, 1600]) for _ in range(3)]
    league = leagues.league_create(by=sides[0].captain, data=league_data(sides, name="L" * 80))
    team = league.teams.get(club=sides[0].club)
    leagues.team_set(
        league_id=league.pk,
        team_id=team.pk,
        by=sides[0].captain,
        name="T" * 80,
        player_ids=[p.pk for p in sides[0].players],
    )
    context = browser.new_context(locale="it-IT", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    context.add_cookies([session_cookie(site, sides[0].captain.username)])
    page = context.new_page()
    try:
        page.goto(f"{site}/incontri/{match.pk}/")
        expect(page.get_by_test_id("team-lineups")).to_be_visible()
        fits(page, "match")
        page.goto(f"{site}/incontri/campionati/{league.pk}/")
        expect(page.get_by_test_id("league-team")).to_have_count(3)
        fits(page, "league")
        page.goto(f"{site}{milano.club.get_absolute_url()}")
        fits(page, "club")
        # Started: the boards' table fits the phone, each game's link named by its board.
        services.match_start(match_id=match.pk, now=match.starts_at)
        page.goto(f"{site}/incontri/{match.pk}/")
        expect(page.get_by_test_id("team-board")).to_have_count(2)
        fits(page, "match started")
        first, second = milano.players[0].username, torino.players[0].username
        link = page.get_by_role("link", name=re.compile(f"scacchiera 1, {first} – {second}$"))
        expect(link).to_have_text(re.compile("^in corso"))
        region = page.get_by_role("region", name="Scacchiere")
        assert region.evaluate("r => r.scrollWidth <= r.clientWidth"), "the boards are cut"
    finally:
        context.close()
