"""Sign-ups throttled per address and over the whole site, on real Redis and PostgreSQL: 40
accounts from one address in 2.5 s were what let a private event's password be guessed with
fresh accounts."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

from accounts.tests.test_login_throttle import redis_down  # noqa: F401 - a fixture
from tests.concurrency import run_at_once

SIGNUP = "/accounts/signup/"


@pytest.fixture(autouse=True)
def _clear_throttle(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    caches = settings.CACHES
    cache.clear()
    yield
    settings.CACHES = caches  # the real Redis again, after `redis_down`
    cache.clear()


def sign_up(client: Client, name: str, address: str = "198.51.100.1"):
    return client.post(
        SIGNUP,
        {
            "username": name,
            "email": f"{name}@example.org",
            "password1": "una-password-lunga",
            "password2": "una-password-lunga",
        },
        REMOTE_ADDR=address,
    )


def accounts() -> set[str]:
    return set(get_user_model().objects.values_list("username", flat=True))


@pytest.mark.django_db
def test_sign_ups_from_one_address_stop_at_the_limit(settings):
    settings.SIGNUP_ADDRESS_LIMIT = 3
    for n in range(3):
        assert sign_up(Client(), f"socio{n}").status_code == 302
    refused = sign_up(Client(), "socio3")
    assert refused.status_code == 429
    assert "Troppe iscrizioni da questa rete" in refused.content.decode()
    assert refused.context["form"]["username"].value() == "socio3"  # the form, as it was
    # A mistyped form is not counted and says what is wrong, not "too many".
    mistyped = Client().post(SIGNUP, {"username": "x"}, REMOTE_ADDR="198.51.100.1")
    assert mistyped.status_code == 200 and "Troppe" not in mistyped.content.decode()
    # Another address is not affected.
    assert sign_up(Client(), "altro", address="203.0.113.4").status_code == 302
    assert accounts() == {"socio0", "socio1", "socio2", "altro"}


@pytest.mark.django_db
def test_sign_ups_over_the_whole_site_stop_at_the_global_limit(settings):
    """Many addresses, one at a time each: the site's own limit is the bound."""
    settings.SIGNUP_GLOBAL_LIMIT = 4
    for n in range(4):
        assert sign_up(Client(), f"socio{n}", address=f"198.51.100.{n + 1}").status_code == 302
    assert sign_up(Client(), "quinto", address="198.51.100.9").status_code == 429
    assert len(accounts()) == 4


@pytest.mark.django_db
def test_an_address_refused_does_not_use_up_the_sites_allowance(settings):
    settings.SIGNUP_ADDRESS_LIMIT, settings.SIGNUP_GLOBAL_LIMIT = 2, 5
    codes = [sign_up(Client(), f"bot{n}", address="198.51.100.66").status_code for n in range(20)]
    assert codes == [302] * 2 + [429] * 18  # one address hammering: 2 accounts
    for n in range(3):  # three others still get in: 2 + 3 = 5
        assert sign_up(Client(), f"socio{n}", address=f"203.0.113.{n + 1}").status_code == 302
    assert sign_up(Client(), "sesto", address="203.0.113.9").status_code == 429
    assert len(accounts()) == 5


@pytest.mark.django_db(transaction=True)
def test_forty_sign_ups_at_once_from_one_address_make_at_most_the_limit(settings):
    settings.SIGNUP_ADDRESS_LIMIT = 5
    results = run_at_once(
        *(lambda n=n: sign_up(Client(), f"bot{n}").status_code for n in range(40))
    )
    assert sorted(results) == [302] * 5 + [429] * 35
    assert len(accounts()) == 5


@pytest.mark.django_db
def test_with_redis_down_sign_up_refuses_and_says_so(client, redis_down):  # noqa: F811
    response = sign_up(client, "socio")
    assert response.status_code == 503
    assert "Iscrizione non disponibile" in response.content.decode()
    assert accounts() == set()


@pytest.mark.django_db
def test_behind_the_proxy_the_address_it_appended_is_counted(settings):
    """BEHIND_PROXY: the right-most X-Forwarded-For entry is the client's (client_address); what
    the client wrote left of it does not buy it a fresh allowance."""
    settings.BEHIND_PROXY, settings.SIGNUP_ADDRESS_LIMIT = True, 2

    def through_proxy(name: str, forwarded: str) -> int:
        return (
            Client()
            .post(
                SIGNUP,
                {
                    "username": name,
                    "email": f"{name}@example.org",
                    "password1": "una-password-lunga",
                    "password2": "una-password-lunga",
                },
                REMOTE_ADDR="127.0.0.1",
                HTTP_X_FORWARDED_FOR=forwarded,
            )
            .status_code
        )

    codes = [through_proxy(f"bot{n}", f"10.0.0.{n}, 198.51.100.66") for n in range(4)]
    assert codes == [302, 302, 429, 429]
    assert through_proxy("socio", "198.51.100.67") == 302  # another client behind the proxy
    assert accounts() == {"bot0", "bot1", "socio"}
