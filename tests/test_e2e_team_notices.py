"""End to end with the real site, worker, beat and Chromium: a team match's notices (RULES
11.4). The captain saves the line-up through its form; the reserve's page, open elsewhere on
the site, shows the notice pushed through the site socket, naming the match, the clubs and the
place, with the link to the match. Then the deadline comes (the start put 15 minutes ahead, not
waited for) and beat's `teams.due` tells the captain, on their open page, that the line-ups are
closed; the match's page then shows both line-ups. With `SCREENSHOTS=1` the notices are shot
at 1280 and 390 px."""

from __future__ import annotations

import os
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from clubs.models import Club
from teams import services
from teams.models import TeamMatch
from teams.tests.factories import open_match, side
from tests.browser import log_in, shoot

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]

SHOTS = Path(
    os.environ.get("SCREENSHOTS_DIR")
    or Path(__file__).resolve().parent.parent / "docs" / "screenshots" / "team-notices"
)


def _named(club_side, prefix: str) -> None:
    """Short unique names, for the page's text and a run beside others on one database."""
    tag = uuid.uuid4().hex[:5]
    Club.objects.filter(pk=club_side.club.pk).update(name=f"{prefix} {tag}")
    club_side.club.refresh_from_db()


def test_the_reserve_and_the_captains_are_told_on_their_open_pages(site, browser):
    milano, torino = side([1900, 1800, 1700]), side([1850, 1750])
    _named(milano, "Scacchi Milano")
    _named(torino, "Torre Torino")
    match = open_match(milano, torino, boards=2, name=f"Milano – Torino {uuid.uuid4().hex[:4]}")
    reserve = milano.players[2]

    contexts = [browser.new_context(locale="it-IT") for _ in range(2)]
    for context in contexts:
        context.set_default_timeout(20_000)
    player_page, captain_page = (context.new_page() for context in contexts)
    log_in(player_page, site, reserve.username)
    expect(player_page.get_by_test_id("team-notice")).to_have_count(0)

    # The captain's form, in order: boards 1 and 2, then the reserve.
    log_in(captain_page, site, milano.captain.username)
    captain_page.goto(f"{site}{match.get_absolute_url()}formazione/")
    for place, player in enumerate(milano.players, start=1):
        captain_page.locator(f"#id_place_{place}").select_option(str(player.pk))
    captain_page.get_by_test_id("team-lineup-save").click()
    expect(captain_page.locator("#messages")).to_contain_text("Formazione salvata.")

    # Pushed to the reserve's open page (no reload).
    notice = player_page.get_by_test_id("team-notice")
    expect(notice).to_be_visible()
    expect(notice).to_have_attribute("data-topic", "named")
    expect(notice).to_contain_text(f"Sei in formazione per «{match.name}»")
    expect(notice).to_contain_text(f"({milano.club.name} – {torino.club.name})")
    expect(notice).to_contain_text("riserva 1")
    expect(notice.get_by_role("link", name="Vai all'incontro")).to_have_attribute(
        "href", match.get_absolute_url()
    )
    for width in (1280, 390):
        player_page.set_viewport_size({"width": width, "height": 800})
        shoot(player_page, SHOTS / f"team-notice-named-{width}.png")

    # The deadline: beat's tick tells the captains, on their open page.
    services.lineup_set(
        match_id=match.pk, by=torino.captain, player_ids=[p.pk for p in torino.players]
    )
    captain_page.goto(site + "/")
    expect(captain_page.get_by_test_id("team-notice")).to_have_count(0)
    TeamMatch.objects.filter(pk=match.pk).update(
        starts_at=timezone.now() + timedelta(minutes=15) - timedelta(seconds=1)
    )
    closed = captain_page.get_by_test_id("team-notice")
    expect(closed).to_be_visible(timeout=30_000)
    expect(closed).to_have_attribute("data-topic", "closed")
    expect(closed).to_contain_text(f"Le formazioni di «{match.name}»")
    expect(closed).to_contain_text("sono chiuse: ora i due circoli le vedono entrambe")
    for width in (1280, 390):
        captain_page.set_viewport_size({"width": width, "height": 800})
        shoot(captain_page, SHOTS / f"team-notice-closed-{width}.png")
    closed.get_by_role("link", name="Vai all'incontro").click()
    expect(captain_page.locator("main")).to_contain_text(torino.players[0].username)
    assert TeamMatch.objects.get(pk=match.pk).lineups_closed_told_at is not None
    for context in contexts:
        context.close()
