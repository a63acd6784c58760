"""The Content-Security-Policy (config/settings.py): every response carries it, and in Chromium
every kind of page keeps to it — no inline handler, script or style, no eval, the sockets
allowed — while what the inline handlers did still works from static/js/site.js (the
organizer's "cancel?" question, the invite link selected on a click; the print button is
clicked in tests/test_e2e_event_pages.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.hashers import make_password
from django.utils import timezone
from playwright.sync_api import expect

from accounts.tests.factories import PASSWORD, UserFactory
from arena.models import Arena
from games.models import Game
from games.services import game_open, game_resign
from games.services.due import game_settle
from tests.browser import log_in, no_csp_violations, socket_open, to_board
from tournaments.models import Tournament

POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}


def directives(header: str) -> dict[str, list[str]]:
    parts = (part.split() for part in header.split(";") if part.strip())
    return {name: sources for name, *sources in parts}


@pytest.mark.django_db
def test_every_response_carries_the_strict_policy(client):
    """Full pages, an htmx fragment, a form, the admin and an error page: the same policy, with
    nothing inline allowed and no nonce (no page needs one)."""
    UserFactory(username="csp_anna")
    client.force_login(UserFactory(username="csp_staff", is_staff=True, is_superuser=True))
    responses = [
        client.get("/"),
        client.get("/play/notices/", headers={"HX-Request": "true"}),
        client.get("/tournaments/new/"),
        client.get("/@/csp_anna/"),
        client.get("/admin/"),
        client.get("/no/such/page/"),
    ]
    assert [r.status_code for r in responses] == [200, 200, 200, 200, 200, 404]
    for response in responses:
        header = response.headers["Content-Security-Policy"]
        policy = directives(header)
        assert {k: v for k, v in policy.items() if k != "connect-src"} == POLICY
        # The site's own sockets: 'self' (CSP Level 3) and each host by name.
        assert policy["connect-src"][0] == "'self'"
        assert {"ws://localhost", "wss://localhost"} <= set(policy["connect-src"])
        assert "unsafe" not in header and "nonce-" not in header


def event(kind, opener, **fields):
    model = {"tournament": Tournament, "arena": Arena}[kind]
    extra = {"duration_minutes": 60} if kind == "arena" else {}
    return model.objects.create(
        name=f"Serata {kind}",
        opened_by=opener,
        variant="chess",
        base_seconds=180,
        increment_seconds=2,
        cadence="blitz",
        starts_at=timezone.now() + timedelta(hours=2),
        # Private: the organizer's invite link is on the page.
        password_hash=make_password("parola-segreta"),
        **extra,
        **fields,
    )


def visit(page, browser, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("load")
    no_csp_violations(page, browser)


@pytest.mark.e2e
@pytest.mark.usefixtures("orm_beside_playwright")
@pytest.mark.django_db(transaction=True)
def test_every_kind_of_page_keeps_to_the_policy_in_chromium(site, browser):
    """Home, lobby, sign-up, log-in, the lists, a live chess and a live draughts game, a
    private tournament's and arena's page as their organizer (the invite link clicked, the
    cancel question asked), a player's page, the forms to open events, and the admin's
    log-in, index, list, change and add pages: no violation anywhere. Fails on any inline handler, <script> body, style
    attribute or injected <style> (htmx's indicator style, unless switched off)."""
    anna, bruno = UserFactory(username="csp_anna"), UserFactory(username="csp_bruno")
    UserFactory(username="csp_staff", is_staff=True, is_superuser=True)
    finished = game_open(
        white_id=anna.pk,
        black_id=bruno.pk,
        variant_code="chess",
        base_seconds=300,
        increment_seconds=0,
        rated=True,
    )
    game_resign(game_id=finished.pk, user_id=bruno.pk)
    game_settle(game_id=finished.pk)
    # Anna plays the chess game (sat at it: a game waiting for her would take her pages to its
    # board) and watches the draughts one.
    chess, draughts = (
        game_open(
            white_id=white.pk,
            black_id=black.pk,
            variant_code=variant,
            base_seconds=300,
            increment_seconds=0,
            rated=False,
        )
        for white, black, variant in (
            (anna, bruno, "chess"),
            (UserFactory(username="csp_carla"), UserFactory(username="csp_dario"), "italian"),
        )
    )
    Game.objects.filter(pk=chess.pk).update(white_sat=True, black_sat=True)
    tournament, arena = event("tournament", anna), event("arena", anna)

    guest = browser.new_context(locale="it-IT")
    guest.set_default_timeout(15_000)
    page = guest.new_page()
    for path in ("/", "/play/", "/accounts/signup/", "/accounts/login/", "/tournaments/"):
        visit(page, browser, site + path)
    for path in ("/arenas/", "/ratings/", "/players/", "/games/", "/no/such/page/"):
        visit(page, browser, site + path)
    guest.close()

    organizer = browser.new_context(locale="it-IT")
    organizer.set_default_timeout(15_000)
    page = organizer.new_page()
    log_in(page, site, anna.username)
    no_csp_violations(page, browser)
    for game in (chess, draughts):
        to_board(page, site, game.pk)
        socket_open(page, f"/ws/game/{game.pk}/")
        no_csp_violations(page, browser)
    for path in ("/play/", f"/@/{anna.username}/"):
        visit(page, browser, site + path)
    for path in (f"/tournaments/{tournament.pk}/", f"/arenas/{arena.pk}/"):
        visit(page, browser, site + path)
        # The invite link is selected whole on a click (was an inline onclick).
        link = page.get_by_test_id("invite-url")
        link.click()
        assert page.evaluate("() => window.getSelection().toString()") == link.input_value()
        # Cancelling asks first; dismissed, nothing happens (the full check is below).
        page.once("dialog", lambda dialog: dialog.dismiss())
        page.get_by_test_id("cancel").click()
        expect(page.get_by_test_id("organizer")).to_be_visible()
        no_csp_violations(page, browser)
    organizer.close()

    staff = browser.new_context(locale="it-IT")
    staff.set_default_timeout(15_000)
    page = staff.new_page()
    # The forms to open an event (Anna has one open: hers show only a link to it).
    log_in(page, site, "csp_staff")
    for path in ("/tournaments/new/", "/arenas/new/"):
        visit(page, browser, site + path)
        expect(page.locator("#event-form")).to_be_visible()
    page.context.clear_cookies()
    visit(page, browser, site + "/admin/login/")
    page.locator("input[name=username]").fill("csp_staff")
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("input[type=submit]").click()
    expect(page.locator("#site-name")).to_have_text("Amministrazione del Circolo")
    no_csp_violations(page, browser)
    for path in (
        f"/admin/accounts/user/{anna.pk}/change/",
        "/admin/accounts/user/",
        f"/admin/tournaments/tournament/{tournament.pk}/change/",
        f"/admin/arena/arena/{arena.pk}/change/",
        f"/admin/games/game/{chess.pk}/change/",
        "/admin/tournaments/tournament/add/",
    ):
        visit(page, browser, site + path)
    staff.close()


@pytest.mark.e2e
@pytest.mark.usefixtures("orm_beside_playwright")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["tournament", "arena"])
def test_cancelling_an_event_asks_and_a_no_keeps_it(site, browser, kind):
    """The organizer's "Annulla" asks before it cancels: dismissed, the event stays scheduled;
    confirmed, it is cancelled. (The question was an inline onsubmit, which the policy refuses:
    without site.js's data-confirm the form would cancel at once.)"""
    anna = UserFactory(username=f"csp_org_{kind}")
    the_event = event(kind, anna)
    context = browser.new_context(locale="it-IT")
    context.set_default_timeout(15_000)
    page = context.new_page()
    log_in(page, site, anna.username)
    page.goto(f"{site}/{kind}s/{the_event.pk}/")
    asked = []

    def answer(dialog, accept):
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda dialog: answer(dialog, False))
    page.get_by_test_id("cancel").click()
    expect(page.get_by_test_id("organizer")).to_be_visible()
    page.wait_for_load_state("load")
    assert asked == [{"tournament": "Annullare il torneo?", "arena": "Annullare l'arena?"}[kind]]
    the_event.refresh_from_db()
    assert the_event.status == "scheduled"

    page.once("dialog", lambda dialog: answer(dialog, True))
    page.get_by_test_id("cancel").click()
    expect(page.get_by_test_id("cancelled")).to_be_visible()
    the_event.refresh_from_db()
    assert the_event.status == "cancelled"
    no_csp_violations(page, browser)
    context.close()
