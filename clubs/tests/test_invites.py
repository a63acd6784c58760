"""A club's invite links (RULES 12.4, 10.6) through the real sign-up view: its first evening
signs up 30 players from one Wi-Fi, each a member at once, while the address's own limit still
stops scripted sign-ups without the link; past its bound or expiry the link says so."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import SignupLink, User
from accounts.tests.factories import PASSWORD, UserFactory
from clubs import selectors, services
from clubs.models import Membership
from clubs.services import ClubError
from clubs.tests.factories import club_with

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_counters")]
SIGNUP = reverse("accounts:signup")
CLUB_WIFI = "198.51.100.9"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def sign_up(path: str, name: str, address: str = CLUB_WIFI):
    return Client().post(
        path,
        {
            "username": name,
            "email": f"{name}@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        REMOTE_ADDR=address,
    )


def officer_and_club():
    officer = UserFactory(username="segretaria", verified=True)
    return officer, club_with(officers=[officer])


def test_an_invite_link_signs_up_thirty_members_from_one_address(settings):
    settings.SIGNUP_ADDRESS_LIMIT, settings.SIGNUP_GLOBAL_LIMIT = 5, 30
    officer, club = officer_and_club()
    link = services.invite_create(club_id=club.pk, by=officer, uses=30, days=7)
    invite = Client().get(reverse("clubs:invite", args=[link.token]))
    assert invite.status_code == 302  # a visitor goes to the sign-up link, then to the club
    path = invite.url.split("?")[0]
    assert path == reverse("accounts:signup_link", args=[link.token])
    codes = [sign_up(path, f"socio{n}").status_code for n in range(30)]
    assert codes == [302] * 30
    members = set(
        Membership.objects.filter(club=club, left_at=None).values_list("user__username", flat=True)
    )
    assert {f"socio{n}" for n in range(30)} <= members
    # The ordinary per-address limit still stops scripted sign-ups without a link.
    script = [sign_up(SIGNUP, f"script{n}").status_code for n in range(20)]
    assert script.count(302) == 5 and script.count(429) == 15
    # And the link past its bound: refused by it, then by the address's limit (used up).
    past = sign_up(path, "trentunesimo")
    assert past.status_code == 429
    assert not User.objects.filter(username="trentunesimo").exists()
    link.refresh_from_db()
    assert link.uses == 30


def test_an_invite_link_reused_past_its_bound_is_refused_and_says_so():
    officer, club = officer_and_club()
    link = services.invite_create(club_id=club.pk, by=officer, uses=1, days=1)
    first, second = UserFactory(), UserFactory()
    services.join_by_link(token=link.token, user=first)
    with pytest.raises(ClubError) as refused:
        services.join_by_link(token=link.token, user=second)
    assert "numero massimo" in refused.value.message
    assert selectors.current_membership(user_id=second.pk) is None


def test_an_expired_invite_link_is_refused_and_says_so():
    officer, club = officer_and_club()
    link = services.invite_create(club_id=club.pk, by=officer, uses=5, days=1)
    SignupLink.objects.filter(pk=link.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    player = UserFactory()
    with pytest.raises(ClubError) as refused:
        services.join_by_link(token=link.token, user=player)
    assert "scaduto" in refused.value.message
    assert selectors.current_membership(user_id=player.pk) is None
    client = Client()
    client.force_login(player)
    page = client.get(reverse("clubs:invite", args=[link.token])).content.decode()
    assert 'data-testid="invite-closed"' in page and "scaduto" in page


def test_an_invite_link_bound_is_never_above_the_sites(settings):
    settings.SIGNUP_LINK_USES = 40
    officer, club = officer_and_club()
    link = services.invite_create(club_id=club.pk, by=officer, uses=500, days=99)
    assert link.uses_limit == 40
    assert link.expires_at <= timezone.now() + timedelta(days=settings.SIGNUP_LINK_DAYS)


def test_a_member_makes_no_invite_link():
    member = UserFactory(verified=True)
    club = club_with(members=[member])
    with pytest.raises(ClubError) as refused:
        services.invite_create(club_id=club.pk, by=member, uses=5, days=1)
    assert refused.value.code == "not_officer"
    assert not SignupLink.objects.exists()


def test_a_signed_in_player_joins_through_the_link_page():
    officer, club = officer_and_club()
    link = services.invite_create(club_id=club.pk, by=officer, uses=5, days=1)
    player = UserFactory()
    client = Client()
    client.force_login(player)
    answer = client.post(reverse("clubs:invite", args=[link.token]))
    assert answer.status_code == 302 and answer.url == club.get_absolute_url()
    assert selectors.is_member(club_id=club.pk, user_id=player.pk)


def test_a_dissolved_clubs_links_are_revoked():
    officer = UserFactory(verified=True)
    club = club_with(president=officer)
    link = services.invite_create(club_id=club.pk, by=officer, uses=5, days=1)
    services.club_dissolve(club_id=club.pk, by=officer)
    link.refresh_from_db()
    assert link.state() == "revoked"


# --- the sign-up page of an invite (RULES 12.4) -------------------------------------------------


def signup_page(link) -> tuple[str, str]:
    """The page a visitor reaches through the club's invite, and the path it posts to."""
    invite = Client().get(reverse("clubs:invite", args=[link.token]), follow=True)
    assert invite.status_code == 200
    path, _query = invite.redirect_chain[-1][0].split("?")
    return invite.content.decode(), path + "?" + _query if _query else path


def test_the_sign_up_page_of_an_invite_says_which_club_it_joins():
    officer = UserFactory(username="segretaria", verified=True)
    club = club_with(officers=[officer], name="Torre & <Re>", city="Lodi", province="LO")
    link = services.invite_create(club_id=club.pk, by=officer, uses=5, days=1)
    page, path = signup_page(link)
    assert 'data-testid="signup-link-open"' in page
    # The name as text (escaped), never as HTML.
    assert (
        "Ti iscrivi ed entri nel circolo «<strong>Torre &amp; &lt;Re&gt;</strong>» (Lodi, LO), "
        "con l&#x27;invito di segretaria"
    ) in page
    assert 'name="link_seen" value="open"' in page
    assert sign_up(path, "nuovo").status_code == 302
    assert selectors.is_member(club_id=club.pk, user_id=User.objects.get(username="nuovo").pk)


@pytest.mark.parametrize("closed", ["expired", "used_up", "revoked", "dissolved"])
def test_a_closed_invite_says_so_before_the_form_and_signs_up_in_no_club(closed):
    officer, club = officer_and_club()
    link = services.invite_create(club_id=club.pk, by=officer, uses=1, days=1)
    if closed == "expired":
        SignupLink.objects.filter(pk=link.pk).update(expires_at=timezone.now() - timedelta(1))
    elif closed == "used_up":
        services.join_by_link(token=link.token, user=UserFactory())
    elif closed == "revoked":
        services.invite_revoke(club_id=club.pk, by=officer, link_id=link.pk)
    else:
        services.club_dissolve(club_id=club.pk, by=club.founded_by)
    page, path = signup_page(link)
    said = {
        "expired": "L&#x27;invito al circolo «<strong>%s</strong>» è scaduto.",
        "used_up": "L&#x27;invito al circolo «<strong>%s</strong>» ha già avuto tutte le",
        "revoked": "L&#x27;invito al circolo «<strong>%s</strong>» è stato revocato.",
        "dissolved": "Il circolo «<strong>%s</strong>» è stato sciolto",
    }[closed] % club.name
    assert 'data-testid="signup-link-closed"' in page and said in page
    then = "senza circolo" if closed == "dissolved" else "Se ti iscrivi ora non entri nel circolo"
    assert then in page
    assert page.index(said) < page.index('<form method="post"')  # before the form
    assert "Ti iscrivi ed entri" not in page
    # RULES 12.4: signing up stays possible, in no club, with the address's own limits.
    assert sign_up(path, "senzacircolo").status_code == 302
    player = User.objects.get(username="senzacircolo")
    assert selectors.current_membership(user_id=player.pk) is None


def test_an_invite_closed_while_its_form_was_filled_in_makes_no_account_until_sent_again():
    """The page showed the club; the link's last use went meanwhile: the account is not made
    in no club behind the sender's back: the page says what changed, sending again makes it."""
    officer, club = officer_and_club()
    link = services.invite_create(club_id=club.pk, by=officer, uses=1, days=1)
    page, path = signup_page(link)
    assert 'name="link_seen" value="open"' in page
    services.join_by_link(token=link.token, user=UserFactory())  # the last use, meanwhile
    data = {
        "username": "ritardo",
        "email": "ritardo@example.org",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    first = Client().post(path, {**data, "link_seen": "open"}, REMOTE_ADDR=CLUB_WIFI)
    body = first.content.decode()
    assert first.status_code == 200 and "si è chiuso mentre compilavi" in body
    assert 'data-state="used_up"' in body and 'name="link_seen" value="used_up"' in body
    assert not User.objects.filter(username="ritardo").exists()
    again = Client().post(path, {**data, "link_seen": "used_up"}, REMOTE_ADDR=CLUB_WIFI)
    assert again.status_code == 302
    player = User.objects.get(username="ritardo")
    assert selectors.current_membership(user_id=player.pk) is None
