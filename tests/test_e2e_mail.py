"""End to end with the real worker, the suite's real SMTP server and Chromium: the mails of the
site as a player gets them. "Password dimenticata?" from the log-in page to a new password and
a link that works once; a reminder before a tournament, by mail, on the page and as a browser
notification, at beat's own tick (the tournament is put 29 minutes ahead instead of waiting
for it); the address checked from the mail sent at sign-up, then shown confirmed on the
account page. Each mail is read back from the suite's SMTP server (`mailbox`, tests/mailbox.py)
as the real worker sent it; its links name SITE_URL and are opened on the suite's daphne."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from accounts.tests.factories import UserFactory
from events.models import Reminder
from harness import wait_until
from mail.models import Mail, Status
from mail.templatetags.mail_tags import local_datetime, seconds_as_words
from tests.browser import SIGNUP_PASSWORD, log_in
from tournaments.models import Registration, Tournament

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("orm_beside_playwright"),
]

NEW_PASSWORD = "torre-in-h8!"
LINK = re.compile(r"https?://\S+")


@pytest.fixture
def context(browser):
    context = browser.new_context(locale="it-IT")
    context.set_default_timeout(15_000)
    yield context
    context.close()


@pytest.fixture(autouse=True)
def loopback_counters_fresh():
    """The site counts password-reset requests and sign-ups per client address in Redis, for
    an hour (accounts/throttle.py): this browser is always 127.0.0.1, so a module run a few
    times within the hour (or beside test_e2e_accounts) would be refused by the counters of the
    runs before it, not by anything it did. Each test starts them again."""
    for name in ("reset:addr:127.0.0.1", "signup:addr:127.0.0.1"):
        cache.delete(name)


def the_link(text: str) -> str:
    """The one link of an account mail's text (beside the site's own address in the
    signature), on the site's address: SITE_URL, as the worker writes it with no request to
    take the host from."""
    assert all(link.startswith(settings.SITE_URL) for link in LINK.findall(text)), text
    links = re.findall(rf"{re.escape(settings.SITE_URL)}/accounts/\S+", text)
    assert len(links) == 1, text
    return links[0]


def on(site: str, link: str) -> str:
    """A mail's link opened on the suite's own daphne (its port is not SITE_URL's)."""
    parts = urlsplit(link)
    return site + parts.path + (f"?{parts.query}" if parts.query else "")


def test_forgot_password_by_mail_and_the_link_works_once(site, context, mailbox):
    player = UserFactory(username=f"r_{uuid.uuid4().hex[:8]}", verified=True)
    unknown = f"nessuno_{uuid.uuid4().hex[:8]}@example.org"
    page = context.new_page()

    def ask_for_a_link(address: str) -> None:
        page.goto(site + "/accounts/login/")
        page.get_by_role("link", name="Password dimenticata?").click()
        expect(page).to_have_url(site + "/accounts/password/reset/")
        page.get_by_label("E-mail").fill(address)
        page.get_by_role("button", name="Mandami il link").click()
        expect(page).to_have_url(site + "/accounts/password/reset/sent/")
        expect(page.get_by_test_id("reset-sent")).to_be_visible()

    # An address nobody has: the same page, and nothing queued (a mail is queued in the
    # request's own transaction, committed before the answer).
    ask_for_a_link(unknown)
    assert not Mail.objects.filter(to=unknown).exists()

    ask_for_a_link(player.email.upper())  # as typed, whatever the case
    (received,) = mailbox.wait_for(player.email)
    # Sent after the unknown address's request: one for it would have gone out first.
    assert mailbox.to(unknown) == []
    assert received.to == [player.email]
    assert received.subject == "Reimposta la tua password"
    assert f"Ciao {player.username}," in received.text
    assert "ha chiesto di reimpostare la password del tuo account" in received.text
    valid_for = seconds_as_words(settings.PASSWORD_RESET_TIMEOUT)
    assert f"Il link vale {valid_for} e una volta sola." in received.text, received.text
    link = the_link(received.text)
    assert "/accounts/password/reset/" in link
    assert f'href="{link}"' in received.html
    assert "Scegli una nuova password" in received.html
    # An account mail: no unsubscribe header, and the link is not kept once sent (the row is
    # marked sent just after the SMTP server took the mail).
    assert received.message["List-Unsubscribe"] is None
    sent = Mail.objects.filter(to=player.email, status=Status.SENT, context={})
    wait_until(sent.exists, timeout=10, what="the reset mail marked sent, its link dropped")

    page.goto(on(site, link))
    expect(page.get_by_role("heading", name="Scegli una nuova password")).to_be_visible()
    page.get_by_label("Nuova password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("Conferma nuova password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Salva e accedi").click()
    expect(page).to_have_url(site + "/")
    expect(page.get_by_test_id("user-menu")).to_have_text(player.username)
    expect(page.get_by_text("Password cambiata: ora sei dentro.")).to_be_visible()
    player.refresh_from_db()
    assert player.check_password(NEW_PASSWORD)
    # Following the link showed the address is the player's.
    assert player.email_verified_at is not None

    # The same link again: used.
    page.goto(on(site, link))
    expect(page.get_by_test_id("reset-link-invalid")).to_be_visible()
    expect(page.get_by_role("link", name="Chiedi un nuovo link")).to_be_visible()
    assert len(mailbox.to(player.email)) == 1


# Chromium's headless shell (make test's browser) answers "denied" from Notification.permission
# even in a context that granted notifications, while navigator.permissions says "granted" and
# `new Notification()` works (puppeteer#3279; the full Chromium of make test-chromium says
# "granted"). reminders.js reads the property, as it must in a real browser: where the shell
# misreports it, the page is told what the browser granted, so that the notification is made.
PERMISSION_AS_GRANTED = (
    "Object.defineProperty(Notification, 'permission', { get: () => 'granted' });"
)


def notifications_granted(context, site: str) -> None:
    """This context's pages may show notifications (granted by the context), and say so."""
    probe = context.new_page()
    probe.goto(site + "/healthz")
    told, state = probe.evaluate(
        """async () => [
          Notification.permission,
          (await navigator.permissions.query({ name: "notifications" })).state,
        ]"""
    )
    probe.close()
    assert state == "granted", (told, state)
    if told != "granted":
        context.add_init_script(PERMISSION_AS_GRANTED)


@pytest.fixture
def notifying_context(browser, site):
    context = browser.new_context(locale="it-IT", permissions=["notifications"])
    context.set_default_timeout(15_000)
    notifications_granted(context, site)
    yield context
    context.close()


def test_a_reminder_by_mail_on_the_page_and_as_a_browser_notification(
    site, notifying_context, mailbox
):
    player = UserFactory(username=f"p_{uuid.uuid4().hex[:8]}", email_verified_at=timezone.now())
    choices = (player.remind_minutes, player.remind_by_email, player.remind_in_browser)
    assert choices == (30, True, True)  # the defaults
    page = notifying_context.new_page()
    # Any page of the site, its site socket open before the reminder exists: the push of
    # beat's tick is what brings the notice (the page's own first fetch found none).
    log_in(page, site, player.username)
    assert page.evaluate("() => Notification.permission") == "granted"
    expect(page.get_by_test_id("reminder-notice")).to_have_count(0)

    # The clock moved, not waited: a tournament 29 minutes ahead (inside the player's 30),
    # which they joined two hours before its start (reminded only if joined over an hour
    # before). One transaction: beat's tick sees all of it or none of it.
    name = f"Torneo del promemoria {uuid.uuid4().hex[:6]}"
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name,
            opened_by=UserFactory(),
            variant="chess",
            base_seconds=300,
            increment_seconds=0,
            cadence="blitz",
            starts_at=timezone.now() + timedelta(minutes=29),
        )
        Registration.objects.create(tournament=tournament, player=player)
        Registration.objects.filter(tournament=tournament).update(
            joined_at=tournament.starts_at - timedelta(hours=2)
        )

    # Beat's `events.reminders` runs every 10 s; its mail goes through the worker's sender.
    (received,) = mailbox.wait_for(player.email, timeout=30)
    when = local_datetime(tournament.starts_at.isoformat(), settings.TOURNAMENT_DEFAULT_TIME_ZONE)
    # A subject too long for the header's first line is folded whole onto the next one by
    # Django 5.2's (compat32) encoding of non-ASCII text, so it reads back with the fold's
    # leading space (mail clients trim it).
    assert received.subject.strip() == f"{name}: si comincia {when}"
    assert f"Ciao {player.username}," in received.text
    assert f"«{name}», a cui sei iscritto, comincia {when} (ora italiana)." in received.text
    assert settings.SITE_URL + tournament.get_absolute_url() in received.text
    unsubscribe = received.message["List-Unsubscribe"].strip()  # folded onto a line of its own
    assert re.fullmatch(
        rf"<{re.escape(settings.SITE_URL)}/accounts/unsubscribe/[^>/]+/>", unsubscribe
    ), unsubscribe
    assert received.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe[1:-1] in received.text
    assert name in received.html
    # The outbox row's own Message-ID: a copy sent again after a crash is one message.
    mail = Mail.objects.get(to=player.email)
    domain = urlsplit(settings.SITE_URL).hostname
    assert received.message["Message-ID"].strip() == f"<circolo-mail-{mail.pk}@{domain}>"

    # On the page, pushed: the notice, and the browser's own notification, made once.
    (reminder,) = Reminder.objects.filter(user=player)
    notice = page.get_by_test_id("reminder-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(f"«{name}» inizia alle")
    expect(notice).to_have_attribute("data-reminder", str(reminder.pk))
    expect(notice).to_have_attribute("data-notify", "1")
    page.wait_for_function("() => document.documentElement.dataset.notifications === '1'")
    shown = page.evaluate("() => JSON.parse(localStorage.getItem('circolo.reminded'))")
    assert shown == [str(reminder.pk)]
    # A page opened afterwards has the notice, and no second notification.
    page.reload()
    expect(page.get_by_test_id("reminder-notice")).to_be_visible()
    assert page.evaluate("() => document.documentElement.dataset.notifications") is None
    assert len(mailbox.to(player.email)) == 1


def test_address_confirmed_from_the_sign_up_mail(site, context, mailbox):
    username = f"v_{uuid.uuid4().hex[:8]}"
    address = f"{username}@example.org"
    page = context.new_page()
    page.goto(site + "/accounts/signup/")
    page.get_by_label("Nome utente").fill(username)
    page.get_by_label("E-mail (facoltativa)").fill(address)
    page.get_by_label("Password", exact=True).fill(SIGNUP_PASSWORD)
    page.get_by_label("Ripeti la password").fill(SIGNUP_PASSWORD)
    page.get_by_role("button", name="Crea l'account").click()
    expect(page.get_by_test_id("user-menu")).to_have_text(username)

    page.goto(site + "/accounts/settings/")
    expect(page.get_by_test_id("email-status")).to_contain_text(f"{address} · da confermare")

    (received,) = mailbox.wait_for(address)
    assert received.subject == "Conferma il tuo indirizzo e-mail"
    assert f"Ciao {username}," in received.text
    link = the_link(received.text)
    assert "/accounts/email/verify/" in link
    assert f'href="{link}"' in received.html
    assert received.message["List-Unsubscribe"] is None

    page.goto(on(site, link))
    expect(page.get_by_test_id("email-verified")).to_contain_text(
        f"Grazie: {address} è confermato."
    )
    assert User.objects.get(username=username).email_verified_at is not None

    page.get_by_role("link", name="Vai al tuo account").click()
    expect(page).to_have_url(site + "/accounts/settings/")
    status = page.get_by_test_id("email-status")
    expect(status).to_contain_text(f"{address} · confermato")
    expect(status).not_to_contain_text("da confermare")
    expect(page.get_by_test_id("resend-verification")).to_have_count(0)


# A tab in the background (headless Chromium never hides one by itself), whose notifications
# are written down in the tab's sessionStorage as they are made: the page goes to the board at
# once, and the record must outlive that navigation.
BACKGROUND_TAB_NOTES = """
Object.defineProperty(Document.prototype, "hidden", { get: () => true, configurable: true });
Object.defineProperty(Document.prototype, "visibilityState", { get: () => "hidden", configurable: true });
const Shown = window.Notification;
window.Notification = function (title, options) {
  const notes = JSON.parse(sessionStorage.getItem("test.notifications") || "[]");
  notes.push({ title, tag: options && options.tag });
  sessionStorage.setItem("test.notifications", JSON.stringify(notes));
  return new Shown(title, options);
};
Object.defineProperty(window.Notification, "permission", { get: () => Shown.permission });
"""


def game_opened_in_a_background_tab(site, context, player):
    """`player`'s players list in a background tab, then a challenge of theirs accepted: the
    tab follows to the board. Returns the game and the notifications the tab made."""
    from games.services.challenges import challenge_accept, challenge_create

    opponent = UserFactory(username=f"r_{uuid.uuid4().hex[:8]}")
    page = context.new_page()
    page.add_init_script(BACKGROUND_TAB_NOTES)
    log_in(page, site, player.username)
    page.goto(site + "/players/")
    expect(page.locator("main")).to_be_visible()
    challenge = challenge_create(
        challenger_id=player.pk,
        opponent_id=opponent.pk,
        variant_code="chess",
        base_seconds=600,
        increment_seconds=0,
        color="white",
        rated=False,
    )
    game = challenge_accept(challenge_id=challenge.pk, user_id=opponent.pk)
    page.wait_for_url(f"**/games/{game.pk}/")
    return game, page.evaluate("() => JSON.parse(sessionStorage.getItem('test.notifications'))")


def test_a_game_opening_in_a_background_tab_is_a_browser_notification(site, notifying_context):
    player = UserFactory(username=f"n_{uuid.uuid4().hex[:8]}")
    game, notes = game_opened_in_a_background_tab(site, notifying_context, player)
    assert notes == [{"title": "♞ La tua partita è aperta!", "tag": f"circolo-game-{game.pk}"}]


def test_no_browser_notification_for_a_player_who_turned_them_off(site, notifying_context):
    player = UserFactory(username=f"q_{uuid.uuid4().hex[:8]}", remind_in_browser=False)
    _game, notes = game_opened_in_a_background_tab(site, notifying_context, player)
    assert notes is None
