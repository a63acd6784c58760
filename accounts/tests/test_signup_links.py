"""Sign-up links (RULES 10.6), on real PostgreSQL and Redis: a club signing up on one Wi-Fi
through its organizer's link gets in, a script from the same address does not. The sixth
member of a club was once locked out by the per-address limit on a first evening."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import services, signup_links
from accounts.models import SignupLink, User
from accounts.tests.factories import PASSWORD, UserFactory
from tests.concurrency import run_at_once

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_counters")]
SIGNUP = reverse("accounts:signup")
ACCOUNT = reverse("accounts:account")
CLUB_WIFI = "198.51.100.7"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def organizer() -> User:
    return UserFactory(username="organizzatrice", verified=True)


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


def made(prefix: str) -> int:
    return User.objects.filter(username__startswith=prefix).count()


def test_a_clubs_thirty_sign_ups_through_its_link_pass_a_scripts_hundred_do_not(settings):
    """From one address: the club's 30 through the link (counted on it, not on the address nor
    on the site's minute), then 100 scripted ones without it (the address's limit) and 20 more
    through the link past its bound (refused by it, then by the address's limit)."""
    settings.SIGNUP_ADDRESS_LIMIT, settings.SIGNUP_GLOBAL_LIMIT = 5, 30
    settings.SIGNUP_LINK_USES = 40
    link = services.signup_link_create(maker=organizer())
    path = reverse("accounts:signup_link", args=[link.token])
    club = [sign_up(path, f"socio{n}").status_code for n in range(30)]
    assert club == [302] * 30
    script = [sign_up(SIGNUP, f"bot{n}").status_code for n in range(100)]
    assert script.count(302) == 5  # the address's own allowance, untouched by the club
    past = [sign_up(path, f"oltre{n}").status_code for n in range(20)]
    assert past.count(302) == 10  # the link's last 10 uses; then nothing
    link.refresh_from_db()
    assert link.uses == 40
    assert (made("socio"), made("bot"), made("oltre")) == (30, 5, 10)


def test_past_its_bound_the_link_says_so_and_the_address_rule_applies(settings):
    settings.SIGNUP_ADDRESS_LIMIT, settings.SIGNUP_LINK_USES = 1, 2
    link = services.signup_link_create(maker=organizer())
    path = reverse("accounts:signup_link", args=[link.token])
    assert [sign_up(path, f"socio{n}").status_code for n in range(2)] == [302, 302]
    page = Client().get(path).content.decode()
    assert 'data-state="used_up"' in page and "già avuto tutte le iscrizioni" in page
    assert sign_up(path, "terzo").status_code == 302  # the address's one sign-up
    refused = sign_up(path, "quarto")
    assert refused.status_code == 429
    body = refused.content.decode()
    assert "già avuto tutte le iscrizioni" in body and "Troppe iscrizioni" in body


@pytest.mark.parametrize("closed", ["expired", "revoked", "unknown"])
def test_an_expired_revoked_or_unknown_link_says_so(settings, closed):
    settings.SIGNUP_ADDRESS_LIMIT = 1
    maker = organizer()
    link = services.signup_link_create(maker=maker)
    if closed == "expired":
        SignupLink.objects.filter(pk=link.pk).update(expires_at=timezone.now() - timedelta(1))
    elif closed == "revoked":
        assert services.signup_link_revoke(maker=maker, link_id=link.pk)
    token = "non-esiste" if closed == "unknown" else link.token
    path = reverse("accounts:signup_link", args=[token])
    page = Client().get(path).content.decode()
    assert f'data-state="{closed}"' in page
    assert [sign_up(path, f"socio{n}").status_code for n in range(2)] == [302, 429]
    link.refresh_from_db()
    assert link.uses == 0


@pytest.mark.django_db(transaction=True)
def test_sign_ups_at_once_through_a_link_count_exactly_its_uses(settings):
    """30 at once through a link of 10 uses, with the address's allowance at 0: exactly 10
    accounts (the conditional UPDATE on the link's row; reading then writing the count let
    them all in)."""
    settings.SIGNUP_LINK_USES, settings.SIGNUP_ADDRESS_LIMIT = 10, 0
    link = services.signup_link_create(maker=organizer())
    path = reverse("accounts:signup_link", args=[link.token])
    codes = run_at_once(*(lambda n=n: sign_up(path, f"socio{n}").status_code for n in range(30)))
    assert sorted(codes) == [302] * 10 + [429] * 20
    link.refresh_from_db()
    assert link.uses == 10 and made("socio") == 10


def test_a_taken_username_gives_the_links_use_back(settings):
    link = services.signup_link_create(maker=organizer())
    path = reverse("accounts:signup_link", args=[link.token])
    assert sign_up(path, "socio").status_code == 302
    again = sign_up(path, "SOCIO")
    assert again.status_code == 200 and "già preso" in again.content.decode()
    link.refresh_from_db()
    assert link.uses == 1


def test_the_account_page_makes_lists_and_revokes_links(client, settings):
    settings.SIGNUP_LINK_LIVE = 2
    maker = organizer()
    client.force_login(maker)
    new = reverse("accounts:account_signup_link")
    assert client.post(new).status_code == 302
    assert client.post(new).status_code == 302
    third = client.post(new)
    assert third.status_code == 400 and "Hai già 2 link attivi" in third.content.decode()
    page = client.get(ACCOUNT).content.decode()
    links = list(SignupLink.objects.filter(maker=maker))
    assert len(links) == 2
    for link in links:
        assert reverse("accounts:signup_link", args=[link.token]) in page
    assert "0 iscrizioni su 40" in page
    used, unused = links
    assert sign_up(reverse("accounts:signup_link", args=[used.token]), "socio").status_code == 302
    for link in links:
        revoke = reverse("accounts:account_signup_link_revoke", args=[link.pk])
        assert client.post(revoke).status_code == 302
    assert client.get(ACCOUNT).content.decode().count('data-state="revoked"') == 2
    # The link never used leaves room for a new one; the one used holds its place until it
    # expires (revoke and make again would be a fresh allowance each time).
    assert client.post(new).status_code == 302
    assert client.post(new).status_code == 400


def test_only_a_verified_address_makes_links_and_only_its_owner_revokes_them(client):
    unverified = UserFactory(email="nuovo@example.org")
    client.force_login(unverified)
    refused = client.post(reverse("accounts:account_signup_link"))
    assert (
        refused.status_code == 400 and "Conferma prima il tuo indirizzo" in refused.content.decode()
    )
    assert not SignupLink.objects.exists()
    link = services.signup_link_create(maker=organizer())
    client.post(reverse("accounts:account_signup_link_revoke", args=[link.pk]))
    link.refresh_from_db()
    assert link.revoked_at is None


def test_a_links_purpose_runs_in_the_sign_ups_transaction():
    """The place later features use (a club's invite): what joining through the link does runs
    with the new account; if it fails, the account and the link's use are undone."""
    joined = []

    def on_join(*, user, link):
        if user.username == "rifiutato":
            raise RuntimeError("the feature refused")
        joined.append((user.username, link.target_id))

    signup_links.register("prova", on_join)
    try:
        link = services.signup_link_create(maker=organizer(), purpose="prova", target_id=12)
        path = reverse("accounts:signup_link", args=[link.token])
        assert sign_up(path, "socio").status_code == 302
        assert joined == [("socio", 12)]
        with pytest.raises(RuntimeError):
            services.user_create(username="rifiutato", password=PASSWORD, link=link)
        link.refresh_from_db()
        assert link.uses == 1 and not User.objects.filter(username="rifiutato").exists()
    finally:
        signup_links.PURPOSES.pop("prova")


def test_a_deactivated_makers_links_are_closed(settings):
    settings.SIGNUP_ADDRESS_LIMIT = 0
    maker = organizer()
    link = services.signup_link_create(maker=maker)
    User.objects.filter(pk=maker.pk).update(is_active=False)
    path = reverse("accounts:signup_link", args=[link.token])
    assert 'data-state="revoked"' in Client().get(path).content.decode()
    assert sign_up(path, "socio").status_code == 429
    link.refresh_from_db()
    assert link.uses == 0


def test_staff_see_and_revoke_links_in_the_admin(client):
    link = services.signup_link_create(maker=organizer())
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    listing = client.get(reverse("admin:accounts_signuplink_changelist")).content.decode()
    assert "organizzatrice" in listing and link.token not in listing
    response = client.post(
        reverse("admin:accounts_signuplink_changelist"),
        {"action": "revoke", "_selected_action": [link.pk]},
    )
    assert response.status_code == 302
    link.refresh_from_db()
    assert link.state() == "revoked"
