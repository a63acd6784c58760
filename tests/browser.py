"""Browser steps shared by the end-to-end tests."""

from __future__ import annotations

from playwright.sync_api import expect

from accounts.tests.factories import PASSWORD


def log_in(page, site: str, username: str) -> None:
    page.goto(site + "/accounts/login/")
    page.get_by_label("Nome utente").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Accedi").last.click()
    expect(page.get_by_test_id("user-menu")).to_have_text(username)
