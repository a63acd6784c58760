"""End to end in Chromium: a Swiss round's page says why it was paired as it was, each
decision with its Lim rule (docs/lim.md), and prints one round a page."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from tournaments.tests.test_run import make, run

pytestmark = pytest.mark.e2e


def test_a_swiss_round_explains_its_pairings(site, browser):
    tournament = make(9)
    run(tournament)
    context = browser.new_context(locale="it-IT", viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{site}/tournaments/{tournament.pk}/round/3/")
        why = page.get_by_test_id("why-pairings")
        why.locator("summary").click()
        for kind, words in (
            ("order", "Gruppi di punteggio abbinati in quest'ordine"),
            ("bye", "Riposo a"),
            ("float", "dal gruppo di"),
            ("pair", " – "),
            ("colour", "col Bianco contro"),
        ):
            expect(why.locator(f"li[data-kind={kind}]").first).to_contain_text(words)
        expect(why.locator("li[data-kind=bye]").first).to_contain_text("Lim 1")
        if os.environ.get("SCREENSHOTS"):
            page.screenshot(path="var/shots-main/why-1280.png", full_page=True)
            page.set_viewport_size({"width": 390, "height": 844})
            page.screenshot(path="var/shots-main/why-390.png", full_page=True)
    finally:
        context.close()
