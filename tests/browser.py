"""Browser steps shared by the end-to-end tests."""

from __future__ import annotations

import os
import re

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect


def shoot(target, path, **kwargs) -> None:
    """A screenshot of a page or an element for docs/screenshots/, taken only with
    `SCREENSHOTS=1`: the steps run in every test run, but `make test` leaves the repository's
    files as they are."""
    if os.environ.get("SCREENSHOTS"):
        target.screenshot(path=str(path), **kwargs)


def session_cookie(site: str, username: str) -> dict:
    """A session cookie of `username`'s, made for the test by Django's test client
    (`Client.force_login`, public API): the browser is signed in without going through the
    log-in form, which its own tests cover (accounts/tests, test_e2e_accounts): the two dozen
    other browser tests spend no page loads on it."""
    from django.conf import settings
    from django.test import Client

    from accounts.models import User

    client = Client()
    client.force_login(User.objects.get(username=username))
    return {
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": site,
    }


def signed_in(page, site: str, username: str) -> None:
    """`username` signed in on this page's browser context (a session cookie), the page still
    blank: for a test whose first step opens the page it needs (a home page loaded for nothing
    costs each player of each browser test a page load, 4 s on a busy machine)."""
    page.context.add_cookies([session_cookie(site, username)])


def log_in(page, site: str, username: str) -> None:
    """`username` signed in on this page's browser context (a session cookie), on the home
    page with its site socket open."""
    signed_in(page, site, username)
    page.goto(site + "/")
    expect(page.get_by_test_id("user-menu")).to_have_text(username)
    site_socket_open(page)


def to_board(page, site: str, game_pk: int, **goto) -> None:
    """`page.goto` the game's page. A player's page anywhere on the site is also taken to a game
    waiting for them by the site itself (the site socket says so as it opens: docs/architecture.md,
    Walk 2): when that navigation, to the same board, cuts the test's own short
    (net::ERR_ABORTED), the page still ends at the board, which is what the test asked for."""
    url = f"{site}/games/{game_pk}/"
    try:
        page.goto(url, **goto)
    except PlaywrightError as error:
        if "ERR_ABORTED" not in str(error):
            raise
        page.wait_for_url(url, wait_until=goto.get("wait_until", "load"))


def socket_open(page, path: str) -> None:
    """Until the page's socket on `path` is open (joined on the server: a push reaches it)."""
    expect(page.locator("html")).to_have_attribute(
        "data-open-sockets", re.compile(rf"(^| ){re.escape(path)}( |$)")
    )


def site_socket_open(page) -> None:
    """Until the page's site socket is open. A page whose socket opens late is told then of a
    game waiting for the player and goes there by itself (`mygame`), which would race a test's
    own navigation to it."""
    socket_open(page, "/ws/me/")


SIGNUP_PASSWORD = "alfiere-in-c4!"


def log_in_through_the_form(page, site: str, username: str) -> None:
    """Through the log-in page, with the factories' password (make deploy-check logs in so,
    behind nginx)."""
    from accounts.tests.factories import PASSWORD

    page.goto(site + "/accounts/login/")
    page.get_by_label("Nome utente").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Accedi").last.click()
    expect(page.get_by_test_id("user-menu")).to_have_text(username)


def sign_up(page, site, username):
    """Through the sign-up page (make deploy-check signs its players up so, behind nginx);
    the suite's browser tests are signed in by `log_in`'s cookie instead."""
    page.goto(site + "/accounts/signup/")
    page.get_by_label("Nome utente").fill(username)
    page.get_by_label("Password", exact=True).fill(SIGNUP_PASSWORD)
    page.get_by_label("Ripeti la password").fill(SIGNUP_PASSWORD)
    page.get_by_role("button", name="Crea l'account").click()
    expect(page.get_by_test_id("user-menu")).to_have_text(username)


def challenge(page, site, *, variant, color, opponent=""):
    page.goto(site + "/play/")
    form = page.get_by_test_id("challenge-form")
    form.locator("select[name=variant]").select_option(variant)
    form.locator("select[name=preset]").select_option("10+5")
    form.locator("select[name=color]").select_option(color)
    form.locator("input[name=opponent]").fill(opponent)
    page.get_by_test_id("challenge-submit").click()


def click_chess(page, square, orientation):
    # chessground is built after its module loads: a click on the board before that is lost.
    page.get_by_test_id("board").locator("cg-board").wait_for()
    box = page.get_by_test_id("board").bounding_box()
    file, rank = "abcdefgh".index(square[0]), int(square[1]) - 1
    col, row = (file, 7 - rank) if orientation == "white" else (7 - file, rank)
    size = box["width"] / 8
    page.mouse.click(box["x"] + (col + 0.5) * size, box["y"] + (row + 0.5) * size)


def chess_move(page, move, orientation):
    click_chess(page, move[:2], orientation)
    click_chess(page, move[2:4], orientation)


def draughts_move(page, origin, dest):
    page.locator(f'#board g[data-square="{origin}"]').click()
    page.locator(f'#board g[data-square="{dest}"]').click()


def draughts_drag(page, origin, dest):
    """Drag a piece (pointer down on it, move, release on the destination)."""
    a = page.locator(f'#board g[data-square="{origin}"]').bounding_box()
    b = page.locator(f'#board g[data-square="{dest}"]').bounding_box()
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=6)
    page.mouse.up()


def open_game_between(site, challenger, accepter, *, variant, color):
    challenge(challenger, site, variant=variant, color=color)
    accepter.goto(site + "/play/")
    accepter.locator("[data-testid^=accept-]").first.click()
    expect(accepter).to_have_url(re.compile(r"/games/\d+/$"))
    expect(challenger).to_have_url(accepter.url, timeout=15_000)


def wait_plies(page, n):
    """Until the page's move list shows at least `n` half-moves."""
    page.wait_for_function(
        "n => document.getElementById('moves').innerText.split(/\\s+/).filter(Boolean).length >= n",
        arg=n,
    )


def game_between(names, variant_code="chess", start_fen=None):
    """A live 10+0 casual game opened directly between the two signed-up players (first is
    White), with the players' rows."""
    from accounts.models import User
    from games.services import game_open

    white, black = (User.objects.get(username=name) for name in names)
    game = game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code=variant_code,
        base_seconds=600,
        increment_seconds=0,
        rated=False,
        start_fen=start_fen,
    )
    return game, white, black


def fresh_lobby_window() -> None:
    """The lobby's pushes are throttled (one at once, the last of a busy second at its end,
    sent by a Celery task with a countdown). In this test process tasks run eagerly, so a
    trailing push would go at once, before the change that follows it: each change made here
    starts a window of its own, as the end of the window would in the site's processes."""
    from games.services import LOBBY_GROUP
    from live import heartbeat

    heartbeat.client().delete(
        heartbeat.prefixed(f"throttle:{LOBBY_GROUP}"), heartbeat.prefixed(f"trailing:{LOBBY_GROUP}")
    )


# Every page's Content-Security-Policy violations (config/settings.py), as the browser reports
# them to the page: an inline handler refused when its event fires, an injected <style>, a
# socket to a source not allowed. The listener is on before any script of the page runs.
CSP_WATCH = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.circoloCspViolation({
    page: location.pathname,
    directive: event.effectiveDirective,
    blocked: event.blockedURI,
    sample: event.sample,
    source: event.sourceFile ? event.sourceFile + ":" + event.lineNumber : "",
  });
}, true);
"""


def watch_csp(context, violations: list[dict]) -> None:
    """Each Content-Security-Policy violation on any page of `context` appended to
    `violations` (Playwright's `expose_binding` and `add_init_script`, public API)."""
    context.expose_binding("circoloCspViolation", lambda _source, seen: violations.append(seen))
    context.add_init_script(CSP_WATCH)


class CspWatchedBrowser:
    """The suite's Chromium as every browser test gets it (conftest.py's `browser` fixture):
    the contexts and pages it opens record their Content-Security-Policy violations in
    `csp_violations`, and the fixture fails the test on any. Everything else is the browser's.
    Playwright runs a predicate given as a bare expression (`wait_for_function("x > 1")`)
    through the page's eval, which the policy refuses: give it a function (`"() => x > 1"`)."""

    def __init__(self, browser) -> None:
        self._browser = browser
        self.csp_violations: list[dict] = []

    def new_context(self, **kwargs):
        context = self._browser.new_context(**kwargs)
        watch_csp(context, self.csp_violations)
        return context

    def new_page(self, **kwargs):
        page = self._browser.new_page(**kwargs)  # blank yet: the watch is on before it loads
        watch_csp(page.context, self.csp_violations)
        return page

    def __getattr__(self, name):
        return getattr(self._browser, name)


def no_csp_violations(page, browser) -> None:
    """Assert, now, that no page of the browser broke the Content-Security-Policy. A round trip
    to the page first: a violation it reported before is delivered by then."""
    page.evaluate("0")
    seen = list(browser.csp_violations)
    browser.csp_violations.clear()  # said here once, not again by the fixture at the end
    assert seen == [], seen
