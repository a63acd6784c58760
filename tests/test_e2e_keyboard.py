"""End to end in Chromium, with the keyboard alone (issue 38): Tab, Shift+Tab, Enter, Space and
letters typed into the field that has the focus — no click, no `fill`, no element chosen by a
selector. A newcomer signs up, finds a tournament and an arena in their lists and joins both,
waits in a lobby pool and leaves it, and challenges a player. On the way: the skip link is the
first Tab stop and takes the focus to the content; the focused element shows its ring; a pool's
cell keeps the focus when htmx swaps the grid, and the grid when the pressed button goes; the user
menu closes with Escape; on a phone the folded menu opens from its ☰
switch. (Playing a game by keyboard: the game page's
own tests.)"""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from accounts.tests.factories import UserFactory
from arena.models import Entry
from arena.tests.factories import ArenaFactory
from games.models import Challenge
from harness import wait_until
from tests.browser import SIGNUP_PASSWORD, shoot, signed_in, socket_open
from tournaments.tests.factories import TournamentFactory

# Screenshots of the skip link and the focus ring, with SCREENSHOTS=1 only (tests/browser.shoot).
SHOTS = Path(__file__).resolve().parent.parent / "var" / "shots-a11y"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]

# The focused element's accessible name, as near as a test needs: its aria-label, its label's
# text, or its own text.
FOCUSED_NAME = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return "";
  const label = el.getAttribute("aria-label") || (el.labels && el.labels.length ? el.labels[0].innerText : "");
  return (label || el.innerText || el.value || "").trim().replace(/\\s+/g, " ");
}"""

FOCUS_RING = """() => {
  const el = document.activeElement, style = getComputedStyle(el);
  return {visible: el.matches(":focus-visible"), style: style.outlineStyle,
          width: parseFloat(style.outlineWidth)};
}"""


def tab_to(page, name: str | re.Pattern, *, limit: int = 80) -> None:
    """Tab until the focused element's name is `name` (or matches it)."""
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED_NAME)
        if name.search(focused) if isinstance(name, re.Pattern) else focused == name:
            return
        seen.append(focused)
    raise AssertionError(f"{name!r} not reached with Tab; the stops were {seen}")


# No htmx request, swap or settle under way: a push's re-fetch of the lobby's grid replaces the
# button the test is on, and a key pressed in that instant would go to the old one.
HTMX_QUIET = "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"


def press_on(page, name: str, key: str = "Enter") -> None:
    """`key` on the control named `name`, Tabbed to again if a swap took the focus from it."""
    page.wait_for_function(HTMX_QUIET)
    if focused_name(page) != name:
        tab_to(page, name)
    page.keyboard.press(key)


def focused_name(page) -> str:
    return page.evaluate(FOCUSED_NAME)


def assert_focus_ring(page) -> None:
    ring = page.evaluate(FOCUS_RING)
    assert ring["visible"] and ring["style"] != "none" and ring["width"] >= 2, ring


def open_from_its_list(page, top_link: str, name: str, path: str) -> None:
    """From the top bar's link to the list of events, to one event's page, by keyboard."""
    tab_to(page, top_link)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(re.escape(path.rsplit("/", 2)[0]) + "/$"))
    tab_to(page, name)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(re.escape(path) + "$"))


def test_sign_up_join_events_enter_a_pool_and_challenge_by_keyboard_alone(site, browser):
    rival = UserFactory(username="kb_rivale")
    starts = timezone.now() + timedelta(hours=2)
    tournament = TournamentFactory(name="Torneo da tastiera", starts_at=starts)
    arena = ArenaFactory(name="Arena da tastiera", starts_at=starts)
    context = browser.new_context(locale="it-IT", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    # The browser's own confirm (the lobby asks before a pool when a tournament of the
    # player's is near): answered as Enter answers it, its text kept.
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
    try:
        page.goto(site + "/")
        # The skip link: the first Tab stop, shown with its ring; Enter moves to the content.
        page.keyboard.press("Tab")
        assert focused_name(page) == "Vai al contenuto"
        expect(page.get_by_test_id("skip-link")).to_be_in_viewport()
        assert_focus_ring(page)
        if os.environ.get("SCREENSHOTS"):
            SHOTS.mkdir(parents=True, exist_ok=True)
        shoot(page, SHOTS / "skip-link-1280.png")
        page.set_viewport_size({"width": 390, "height": 844})
        shoot(page, SHOTS / "skip-link-390.png")
        page.set_viewport_size({"width": 1280, "height": 900})
        page.keyboard.press("Enter")
        assert page.evaluate("() => document.activeElement.id") == "main"

        # Sign up: the form's first field has the focus as the page opens.
        tab_to(page, "Registrati e gioca")
        assert_focus_ring(page)
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(r"/accounts/signup/$"))
        expect(page.get_by_label("Nome utente")).to_be_focused()
        page.keyboard.type("kb_nuovo")
        tab_to(page, "Password")
        assert_focus_ring(page)
        shoot(page, SHOTS / "focus-field-1280.png")
        page.keyboard.type(SIGNUP_PASSWORD)
        tab_to(page, "Ripeti la password")
        page.keyboard.type(SIGNUP_PASSWORD)
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("user-menu")).to_have_text("kb_nuovo")
        player = User.objects.get(username="kb_nuovo")

        # The user menu opens with Enter; Escape closes it and gives the focus back.
        tab_to(page, "kb_nuovo")
        page.keyboard.press("Enter")
        tab_to(page, "Il mio profilo")
        page.keyboard.press("Escape")
        expect(page.get_by_test_id("user-menu")).to_be_focused()
        expect(page.get_by_role("link", name="Il mio profilo")).to_be_hidden()

        # A tournament found in the list, joined.
        tab_to(page, "Tornei")
        assert_focus_ring(page)  # a link of the dark top bar
        shoot(page, SHOTS / "focus-topbar-1280.png")
        open_from_its_list(page, "Tornei", "Torneo da tastiera", f"/tournaments/{tournament.pk}/")
        tab_to(page, "Iscriviti")
        assert_focus_ring(page)
        shoot(page, SHOTS / "focus-button-1280.png")
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("registered")).to_be_visible()
        assert tournament.registrations.filter(player=player).exists()

        # An arena found in the list, entered (Space on its button).
        open_from_its_list(page, "Arene", "Arena da tastiera", f"/arenas/{arena.pk}/")
        tab_to(page, "Entra")
        page.keyboard.press("Space")
        expect(page.get_by_test_id("entered")).to_be_visible()
        assert Entry.objects.filter(arena=arena, player=player).exists()

        # The lobby: a pool entered from its cell, which keeps the focus through htmx's swap,
        # then left.
        tab_to(page, "Gioca")
        page.keyboard.press("Enter")
        expect(page).to_have_url(re.compile(r"/play/$"))
        tab_to(page, re.compile(r"^3\+2\b"))
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("pool-waiting")).to_be_visible()
        assert len(dialogs) == 1 and "Torneo da tastiera" in dialogs[0], dialogs
        expect(page.get_by_test_id("pool-3+2")).to_be_focused()
        expect(page.get_by_test_id("pool-3+2")).to_have_attribute("aria-pressed", "true")
        tab_to(page, "Annulla")
        press_on(page, "Annulla")
        expect(page.get_by_test_id("pool-waiting")).to_have_count(0)
        # "Annulla" is gone with the swap: the focus stays on the grid itself (site.js), not the
        # page's start, nor a control of the grid the player did not choose.
        expect(page.locator("#quick-pairing")).to_be_focused()

        # A challenge: Italian draughts (typed into the focused select), to the rival by name.
        tab_to(page, "Variante")
        page.keyboard.type("Dama i")
        assert page.evaluate("() => document.activeElement.value") == "italian"
        tab_to(page, "Avversario (vuoto: sfida aperta)")
        assert_focus_ring(page)
        page.keyboard.type(rival.username)
        tab_to(page, "Sfida")
        page.keyboard.press("Enter")
        wait_until(
            lambda: Challenge.objects.filter(
                challenger=player, opponent=rival, variant="italian"
            ).exists(),
            timeout=20,
            what="the challenge sent",
        )
        expect(page.get_by_test_id("challenge-list")).to_contain_text(rival.username)

        # On a phone the menu is folded behind ☰: its switch is a Tab stop, Space opens it.
        page.set_viewport_size({"width": 390, "height": 844})
        expect(page.get_by_role("link", name="Tornei", exact=True)).to_be_hidden()
        tab_to(page, "Menu")
        page.keyboard.press("Space")
        tab_to(page, "Tornei")
        expect(page.get_by_role("link", name="Tornei", exact=True)).to_be_visible()
        assert_focus_ring(page)
        shoot(page, SHOTS / "phone-menu-focus-390.png")
    finally:
        context.close()


def test_a_live_update_keeps_the_focus_and_withdrawing_asks_first(site, browser):
    """A registered player Tabbed to a name in the tournament's list of players keeps the focus
    on that name when somebody joins and the live section is swapped whole (it fell on
    "Ritirati", the section's first control, and Enter withdrew them); withdrawing asks first,
    and "Cancel" keeps them in."""
    from tournaments import services
    from tournaments.models import Registration

    names = ["kb_anna", "kb_bruno", "kb_carla", "kb_dario"]
    players = {name: UserFactory(username=name) for name in names}
    tournament = TournamentFactory(
        name="Torneo del fuoco", starts_at=timezone.now() + timedelta(hours=2)
    )
    for name in names[:3]:
        services.registration_join(tournament_id=tournament.pk, player=players[name])
    context = browser.new_context(locale="it-IT", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    dialogs: list[str] = []
    answer = {"accept": False}

    def on_dialog(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.accept() if answer["accept"] else dialog.dismiss()

    page.on("dialog", on_dialog)
    try:
        signed_in(page, site, "kb_anna")
        page.goto(f"{site}/tournaments/{tournament.pk}/")
        socket_open(page, f"/ws/tournaments/{tournament.pk}/")
        tab_to(page, "kb_carla")
        services.registration_join(tournament_id=tournament.pk, player=players["kb_dario"])
        expect(page.get_by_test_id("count")).to_have_text("4/" + str(tournament.seats))
        page.wait_for_function(HTMX_QUIET)
        assert focused_name(page) == "kb_carla"
        assert page.evaluate("() => document.activeElement.getAttribute('href')").endswith(
            "/kb_carla/"
        )

        # "Ritirati" by keyboard: the browser asks; Enter on "Cancel" keeps the place.
        tab_to(page, "Ritirati")
        page.keyboard.press("Enter")
        wait_until(lambda: len(dialogs) == 1, 10, "the question before withdrawing")
        assert "Ritirarti dal torneo?" in dialogs[0]
        expect(page.get_by_test_id("registered")).to_be_visible()
        assert Registration.objects.filter(
            tournament=tournament, player=players["kb_anna"]
        ).exists()
        answer["accept"] = True
        press_on(page, "Ritirati")
        expect(page.get_by_test_id("join")).to_be_visible()
        assert not Registration.objects.filter(
            tournament=tournament, player=players["kb_anna"]
        ).exists()
    finally:
        context.close()
