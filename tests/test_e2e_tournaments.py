"""End to end in Chromium against real daphne: open a private tournament, a second player joins
through the invite link, and the opener sees them appear without reloading (socket + htmx)."""

from __future__ import annotations

import re
import zoneinfo
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import expect

from accounts.tests.factories import UserFactory
from tests.browser import log_in
from tournaments.models import Tournament

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]

NEW_YORK = "America/New_York"


def test_private_tournament_invite_and_live_list(site, browser):
    opener = UserFactory(username="organizzatrice")
    guest = UserFactory(username="invitato")
    first_ctx = browser.new_context(locale="it-IT", timezone_id=NEW_YORK)
    second_ctx = browser.new_context(locale="it-IT")
    try:
        first = first_ctx.new_page()
        first.set_default_timeout(15_000)
        log_in(first, site, opener.username)
        first.goto(site + "/tournaments/new/")
        # The browser's zone is sent with the form and the start is typed in it.
        expect(first.get_by_text(NEW_YORK)).to_be_visible()
        start = (datetime.now(zoneinfo.ZoneInfo(NEW_YORK)) + timedelta(hours=2)).replace(
            second=0, microsecond=0
        )
        first.get_by_label("Nome", exact=True).fill("Torneo riservato")
        first.get_by_label("Variante").select_option("italian")
        first.get_by_label("Inizio").fill(start.strftime("%Y-%m-%dT%H:%M"))
        # RULES 7.3 shown live before submitting: class 3 draws need double games to stay rated.
        first.get_by_label("Aperture").select_option("table3")
        expect(first.get_by_test_id("rated-hint")).to_be_visible()
        first.get_by_label("Andata e ritorno").check()
        expect(first.get_by_test_id("rated-hint")).to_have_count(0)
        # The thematic picker appears for a thematic tournament and filters as one types.
        expect(first.get_by_label("Cerca un'apertura")).to_be_hidden()
        first.get_by_label("Aperture").select_option("thematic")
        first.get_by_label("Cerca un'apertura").fill("3N")
        expect(first.locator("#id_thematic_opening option:not([hidden])").nth(1)).to_contain_text(
            "3N"
        )
        first.get_by_label("Aperture").select_option("table3")
        first.get_by_label("Privato").check()
        first.get_by_label("Password del torneo").fill("segreta-del-circolo")
        first.get_by_role("button", name="Apri il torneo").click()
        expect(first).to_have_url(re.compile(r"/tournaments/\d+/$"))
        tournament = Tournament.objects.get()
        assert tournament.starts_at == start
        assert tournament.is_private
        assert tournament.rated and tournament.double_games and tournament.opening_mode == "table3"
        invite_url = first.get_by_test_id("invite-url").input_value()
        expect(first.get_by_text("Nessun iscritto per ora.")).to_be_visible()

        second = second_ctx.new_page()
        second.set_default_timeout(15_000)
        log_in(second, site, guest.username)
        second.goto(invite_url)
        expect(second.get_by_text("Sei stato invitato a questo torneo privato.")).to_be_visible()
        expect(second.get_by_label("Password del torneo")).to_have_count(0)
        second.get_by_role("button", name="Iscriviti").click()
        expect(second.get_by_role("button", name="Ritirati")).to_be_visible()

        # No reload on the opener's page: the socket said "changed", htmx re-fetched.
        expect(first.get_by_test_id("players")).to_contain_text("invitato")
        expect(first.get_by_test_id("count")).to_have_text("1/16")
    finally:
        first_ctx.close()
        second_ctx.close()
