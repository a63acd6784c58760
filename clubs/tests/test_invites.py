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
