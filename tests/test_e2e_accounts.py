"""End to end in Chromium: sign up, see yourself logged in, switch language and back."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_signup_login_state_and_language_switch(site, page):
    username = f"e2e_{uuid.uuid4().hex[:8]}"
    page.goto(site + "/")
    # Italian by default, whatever the browser's locale (en-US here).
    expect(page.get_by_role("link", name="Giocatori", exact=True)).to_be_visible()
    page.get_by_role("link", name="Registrati").first.click()
    expect(page).to_have_url(re.compile(r"/accounts/signup/$"))

    # A bad attempt first: mismatched passwords re-render with a message.
    page.get_by_label("Nome utente").fill(username)
    page.get_by_label("Password", exact=True).fill("alfiere-in-c4!")
    page.get_by_label("Ripeti la password").fill("alfiere-in-c5!")
    page.get_by_role("button", name="Crea l'account").click()
    expect(page.get_by_text("Le due password non coincidono.")).to_be_visible()

    page.get_by_label("Password", exact=True).fill("alfiere-in-c4!")
    page.get_by_label("Ripeti la password").fill("alfiere-in-c4!")
    page.get_by_role("button", name="Crea l'account").click()
    expect(page).to_have_url(site + "/")
    expect(page.get_by_test_id("user-menu")).to_have_text(username)
    expect(page.get_by_text(f"Benvenuto, {username}!")).to_be_visible()

    page.get_by_test_id("lang-en").click()
    expect(page.get_by_role("link", name="Players", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Tournaments", exact=True)).to_be_visible()
    expect(page.get_by_test_id("user-menu")).to_have_text(username)

    page.get_by_test_id("lang-it").click()
    expect(page.get_by_role("link", name="Giocatori", exact=True)).to_be_visible()

    # The profile page knows the new player.
    page.get_by_test_id("user-menu").click()
    page.get_by_role("link", name="Il mio profilo").click()
    expect(page.get_by_role("heading", name=username)).to_be_visible()

    # Out, and in again through the log-in form (every other browser test is signed in by a
    # session cookie made for it, tests/browser.py).
    page.get_by_test_id("user-menu").click()
    page.get_by_role("button", name="Esci").click()
    expect(page.get_by_test_id("user-menu")).to_have_count(0)
    page.goto(site + "/accounts/login/")
    page.get_by_label("Nome utente").fill(username)
    page.get_by_label("Password").fill("alfiere-in-c4!")
    page.get_by_role("button", name="Accedi").last.click()
    expect(page.get_by_test_id("user-menu")).to_have_text(username)
