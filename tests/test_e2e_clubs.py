"""End to end in Chromium against real daphne (docs/rules.md §12): a player founds a club
through its form (a look-alike name refused first), makes an invite link; a newcomer follows
it, signs up through it and is a member at once; another player asks to join, the president
accepts on the management page and the player's club page tells them; the rating list sorts
by a column without a reload; two members talk in the club's own chat, which a stranger cannot
open; the club's short name follows a member's name on their player page; a club battle's
page shows the clubs' standings and the player's own place. Screenshots of the
pages at 1280 and 390 px with SCREENSHOTS=1."""

from __future__ import annotations

from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import SignupLink, User
from accounts.tests.factories import UserFactory
from arena.models import BattleClub
from arena.tests.factories import ArenaFactory, EntryFactory
from clubs import services as clubs_services
from clubs.models import Club, Membership
from clubs.tests.factories import club_with
from ratings.models import Rating
from tests.browser import SIGNUP_PASSWORD, shoot, signed_in, socket_open
from tests.test_e2e_accessibility import MISSING_REFERENCES, report, violations_of

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("orm_beside_playwright")]
SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots" / "clubs"


def both_widths(page, name: str, *, axe: Axe | None = None) -> None:
    """The page at 1280 and 390 px (saved with SCREENSHOTS=1); with `axe`, checked by it
    first, as tests/test_e2e_accessibility.py checks the site's other pages."""
    if axe is not None:
        assert report(name, 1280, violations_of(axe, page, preload=True)) == []
        assert page.evaluate(MISSING_REFERENCES) == []
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        shoot(page, SHOTS / f"{name}-{width}.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


@pytest.mark.django_db(transaction=True)
def test_a_club_from_its_founding_to_its_chat(site, browser, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    founder = UserFactory(username="presidente", email_verified_at=timezone.now())
    asker = UserFactory(username="aspirante")
    club_with(name="Circolo Scacchi Milano", short_name="CSM")  # an existing club
    contexts = [browser.new_context(locale="it-IT") for _ in range(4)]
    try:
        pages = [context.new_page() for context in contexts]
        for page in pages:
            page.set_default_timeout(20_000)
        boss, newcomer, other, stranger = pages
        signed_in(boss, site, founder.username)

        # Founding: a name that reads as an existing one (a Cyrillic С) is refused, then ours.
        boss.goto(site + "/clubs/new/")
        boss.get_by_label("Nome", exact=True).fill("Сircolo scacchi MILANO")
        boss.get_by_label("Sigla").fill("CSM2")
        boss.get_by_label("Città").fill("Milano")
        boss.get_by_label("Provincia").select_option("MI")
        boss.locator("form[data-testid=club-form] button[type=submit]").click()
        expect(boss.locator(".has-error")).to_contain_text("Esiste già un circolo")
        boss.get_by_label("Nome", exact=True).fill("Circolo della Torre")
        boss.get_by_label("Sigla").fill("TORRE")
        boss.locator("form[data-testid=club-form] button[type=submit]").click()
        expect(boss.get_by_test_id("club-short")).to_have_text("TORRE")
        club = Club.objects.get(short_name="TORRE")

        # An invite link, followed by a newcomer who signs up through it and is a member.
        boss.get_by_test_id("club-manage").click()
        boss.get_by_label("Iscrizioni consentite").fill("30")
        boss.get_by_role("button", name="Crea un link d'invito").click()
        url = boss.get_by_test_id("club-invite-url").first.input_value()
        # "Copia" puts it on the clipboard, as the account's sign-up links do.
        contexts[0].grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
        link = boss.get_by_test_id("club-invite-link").first
        link.get_by_role("button", name="Copia").click()
        expect(link.get_by_role("button", name="Copiato")).to_be_visible()
        assert boss.evaluate("navigator.clipboard.readText()") == url
        both_widths(boss, "manage")
        newcomer.goto(url)
        # The sign-up page names the club the link joins (RULES 12.4).
        expect(newcomer.get_by_test_id("signup-link-open")).to_contain_text(
            "Ti iscrivi ed entri nel circolo «Circolo della Torre» (Milano, MI)"
        )
        both_widths(newcomer, "signup-invite", axe=Axe())
        newcomer.get_by_label("Nome utente").fill("nuovo_socio")
        newcomer.get_by_label("Password", exact=True).fill(SIGNUP_PASSWORD)
        newcomer.get_by_label("Ripeti la password").fill(SIGNUP_PASSWORD)
        newcomer.get_by_role("button", name="Crea l'account").click()
        expect(newcomer.get_by_test_id("club-page")).to_be_visible()
        expect(newcomer.get_by_test_id("club-actions")).to_contain_text("Sei socio del circolo")

        # A request: the president accepts it, the player's club page says so.
        signed_in(other, site, asker.username)
        other.goto(f"{site}/clubs/{club.pk}/")
        other.get_by_test_id("club-request").click()
        expect(other.get_by_test_id("club-pending")).to_be_visible()
        boss.reload()
        row = boss.locator(f'[data-testid="club-request-row"][data-player="{asker.username}"]')
        row.get_by_test_id("request-accept").click()
        expect(boss.locator(".message.success")).to_contain_text("nuovo socio")
        other.goto(f"{site}/clubs/")
        expect(other.get_by_test_id("club-decision")).to_have_attribute("data-status", "accepted")
        expect(other.get_by_test_id("my-club")).to_contain_text("Circolo della Torre")
        assert Membership.objects.filter(club=club, left_at=None).count() == 3

        # The rating list sorts by a column without a reload (htmx).
        for name, value in (("presidente", 1620), ("nuovo_socio", 1710), ("aspirante", 1480)):
            player_id = Membership.objects.get(club=club, user__username=name).user_id
            Rating.objects.create(
                player_id=player_id, variant="chess", cadence="blitz", value=value, games=3
            )
        boss.goto(f"{site}/clubs/{club.pk}/")
        boss.get_by_test_id("sort-chess:blitz").click()
        expect(boss.get_by_test_id("club-member").first).to_have_attribute(
            "data-player", "nuovo_socio"
        )
        both_widths(boss, "club")

        # The club's chat: two members talk; a stranger's page has none.
        socket_open(boss, f"/ws/chat/club/{club.pk}/")
        other.goto(f"{site}/clubs/{club.pk}/")
        socket_open(other, f"/ws/chat/club/{club.pk}/")
        box = boss.get_by_test_id("chat-input")
        box.fill("Giovedì torneo sociale alle 21!")
        box.press("Enter")
        expect(other.get_by_test_id("chat-line")).to_contain_text("Giovedì torneo sociale")
        # Closed by an officer: the members read who closed it — a club has no organizer.
        boss.get_by_test_id("chat-toggle").click()
        expect(other.get_by_test_id("chat-closed")).to_have_text(
            "I responsabili del circolo hanno chiuso la chat."
        )
        boss.get_by_test_id("chat-toggle").click()
        expect(other.get_by_test_id("chat-closed")).to_be_hidden()
        # Removed from the club, the member's open chat says so and closes (RULES 12.5).
        clubs_services.member_remove(club_id=club.pk, by=founder, user_id=asker.pk)
        expect(other.get_by_test_id("chat-ended")).to_contain_text("Non sei più socio")
        expect(other.get_by_test_id("chat-input")).to_have_count(0)
        signed_in(stranger, site, UserFactory(username="estraneo").username)
        stranger.goto(f"{site}/clubs/{club.pk}/")
        expect(stranger.get_by_test_id("club-request")).to_be_visible()
        expect(stranger.get_by_test_id("chat")).to_have_count(0)

        # The short name beside the member's name, linked to the club.
        stranger.goto(f"{site}/@/nuovo_socio/")
        badge = stranger.get_by_test_id("club-badge")
        expect(badge).to_have_text("TORRE")
        badge.click()
        expect(stranger.get_by_test_id("club-page")).to_be_visible()
        stranger.goto(f"{site}/clubs/")
        both_widths(stranger, "list")

        # An expired invite says so before the form (RULES 12.4).
        stale = clubs_services.invite_create(club_id=club.pk, by=founder, uses=5, days=1)
        SignupLink.objects.filter(pk=stale.pk).update(expires_at=timezone.now())
        contexts.append(browser.new_context(locale="it-IT"))
        visitor = contexts[-1].new_page()
        visitor.goto(f"{site}/clubs/invite/{stale.token}/")
        expect(visitor.get_by_test_id("signup-link-closed")).to_contain_text(
            "L'invito al circolo «Circolo della Torre» è scaduto."
        )
        both_widths(visitor, "signup-invite-expired", axe=Axe())

        # The battle form: the rival club found by a search as it is typed, then ticked.
        rivals = club_with(name="Dama Pavia", short_name="DAMA", city="Pavia", province="PV")
        boss.goto(f"{site}/arenas/new/")
        boss.get_by_label("Battaglia tra circoli", exact=True).check()
        boss.get_by_label("Cerca un circolo").fill("pav")
        found = boss.get_by_test_id("battle-found").get_by_label("Dama Pavia")
        found.check()
        expect(boss.get_by_test_id("battle-chosen").get_by_label("Dama Pavia")).to_be_checked()
        both_widths(boss, "battle-form", axe=Axe())

        # A club battle's page: the clubs' standings, each club's best, the player's own place.
        arena = ArenaFactory(
            name="Battaglia del giovedì", opened_by=founder, battle_top_n=3,
            status="running", starts_at=timezone.now(), started_at=timezone.now(),
        )  # fmt: skip
        for battling in (club, rivals):
            BattleClub.objects.create(arena=arena, club=battling)
        for name, points in (("presidente", 7), ("nuovo_socio", 4), ("aspirante", 2)):
            EntryFactory(arena=arena, player=User.objects.get(username=name), club=club,
                         points=points, state="paused")  # fmt: skip
        for n, points in enumerate((6, 6, 5, 1)):
            rival = UserFactory(username=f"damista{n}")
            Membership.objects.create(club=rivals, user=rival, joined_at=timezone.now())
            EntryFactory(arena=arena, player=rival, club=rivals, points=points, state="paused")
        boss.goto(f"{site}/arenas/{arena.pk}/")
        rows = boss.get_by_test_id("battle-row")
        expect(rows).to_have_count(2)
        expect(rows.first).to_have_attribute("data-club", "DAMA")  # 6 + 6 + 5 = 17 > 13
        expect(rows.first.get_by_test_id("battle-score")).to_have_text("17")
        expect(boss.get_by_test_id("my-battle")).to_contain_text("1°")
        both_widths(boss, "battle")
    finally:
        for context in contexts:
            context.close()
