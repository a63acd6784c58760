"""Log-in throttling against what an outside attack tries (`make attack`, docs/benchmarks.md),
on real Redis and PostgreSQL: parallel attempts, look-alike usernames, one address for a whole
club, the admin's own log-in page and Redis being down."""

from __future__ import annotations

import socket
import threading

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.db import connection
from django.test import Client, override_settings

from accounts import throttle
from accounts.tests.factories import PASSWORD, UserFactory
from config.env import ConfigError, env_int

LOGIN = "/accounts/login/"


@pytest.fixture(autouse=True)
def _clear_throttle():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def password_checks():
    """Every password the backends really evaluated: a failure sends user_login_failed, a
    success user_logged_in (a refused attempt sends neither)."""
    checks: list[str] = []

    def failed(sender, credentials, **kwargs):
        checks.append("failed")

    def succeeded(sender, user, **kwargs):
        checks.append("succeeded")

    user_login_failed.connect(failed, weak=False)
    user_logged_in.connect(succeeded, weak=False)
    yield checks
    user_login_failed.disconnect(failed)
    user_logged_in.disconnect(succeeded)


@pytest.mark.django_db(transaction=True)
@override_settings(LOGIN_FAILURE_LIMIT=5, LOGIN_FAILURE_WINDOW=600)
def test_parallel_wrong_passwords_get_at_most_the_limit_of_password_checks(
    fast_passwords, password_checks
):
    """40 attempts released at once, as in the attack: at most LIMIT passwords are evaluated,
    the rest refused. Fails if the throttle reads the count, checks the password and only then
    writes the count (every thread reads "not blocked" before any has written)."""
    UserFactory(username="Anna")
    attempts = 40
    barrier = threading.Barrier(attempts)
    statuses: list[int] = []
    errors: list[BaseException] = []

    def attempt(number: int) -> None:
        try:
            client = Client()
            barrier.wait()
            response = client.post(LOGIN, {"username": "Anna", "password": f"wrong-{number}"})
            statuses.append(response.status_code)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(attempts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert len(password_checks) == 5 and set(password_checks) == {"failed"}
    assert sorted(statuses) == [200] * 5 + [429] * 35


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("username", "variant"),
    [
        ("dave", "ｄａｖｅ"),  # full width: NFKC, as the log-in form normalises it
        ("dave", "ＤＡＶＥ"),
        ("dave", "DAVE"),
        ("dave", " dave "),
        ("Kim", "kım"),  # dotless ı: PostgreSQL's UPPER() makes it I, Python's lower() does not
    ],
)
@override_settings(LOGIN_FAILURE_LIMIT=5, LOGIN_FAILURE_WINDOW=600)
def test_failures_for_a_name_block_every_spelling_that_logs_in_as_it(client, username, variant):
    UserFactory(username=username)
    # The spelling really is the same account to the log-in...
    assert client.post(LOGIN, {"username": variant, "password": PASSWORD}).status_code == 302
    client.logout()
    for _ in range(5):
        client.post(LOGIN, {"username": username, "password": "wrong"}, REMOTE_ADDR="192.0.2.1")
    # ...so it is refused once the name is blocked, from any address, and cannot reset the
    # counter.
    response = client.post(
        LOGIN, {"username": variant, "password": PASSWORD}, REMOTE_ADDR="192.0.2.2"
    )
    assert response.status_code == 429
    assert "Troppi tentativi falliti" in response.content.decode()
    assert "_auth_user_id" not in client.session
    response = client.post(
        LOGIN, {"username": username, "password": PASSWORD}, REMOTE_ADDR="192.0.2.3"
    )
    assert response.status_code == 429


@pytest.mark.django_db
@override_settings(LOGIN_FAILURE_LIMIT=3, LOGIN_ADDRESS_FAILURE_LIMIT=50, LOGIN_FAILURE_WINDOW=600)
def test_the_owner_logging_in_gives_an_attacker_elsewhere_no_fresh_guesses(password_checks):
    """A success clears the username's counter, but not its pair with another address. Fails
    without the (username, address) counter: the attacker's address alone is far from its
    limit."""
    UserFactory(username="Anna")
    attacker, owner = Client(REMOTE_ADDR="203.0.113.66"), Client(REMOTE_ADDR="198.51.100.7")
    for _ in range(2):
        attacker.post(LOGIN, {"username": "Anna", "password": "wrong"})
    assert owner.post(LOGIN, {"username": "Anna", "password": PASSWORD}).status_code == 302
    assert attacker.post(LOGIN, {"username": "Anna", "password": "wrong"}).status_code == 200
    assert attacker.post(LOGIN, {"username": "Anna", "password": "wrong"}).status_code == 429
    assert password_checks == ["failed", "failed", "succeeded", "failed"]


@override_settings(BEHIND_PROXY=False)
def test_client_address_ignores_x_forwarded_for_without_a_trusted_proxy(rf):
    request = rf.post(LOGIN, REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="198.51.100.1")
    assert throttle.client_address(request) == "203.0.113.9"


@pytest.mark.parametrize(
    ("forwarded", "address"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("198.51.100.1, 203.0.113.9", "203.0.113.9"),  # the left part is the client's own
        ("forged, 10.0.0.1 ,203.0.113.9", "203.0.113.9"),
        ("2001:DB8:0::1", "2001:db8::1"),  # one spelling per address
        ("", "127.0.0.1"),  # the proxy did not set it: the proxy's own address
        ("198.51.100.1, not-an-address", "127.0.0.1"),
    ],
)
@override_settings(BEHIND_PROXY=True)
def test_client_address_behind_a_proxy_is_the_right_most_forwarded_one(rf, forwarded, address):
    request = rf.post(LOGIN, REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
    assert throttle.client_address(request) == address


@pytest.mark.django_db
@override_settings(
    BEHIND_PROXY=True,
    LOGIN_FAILURE_LIMIT=3,
    LOGIN_ADDRESS_FAILURE_LIMIT=4,
    LOGIN_FAILURE_WINDOW=600,
)
def test_behind_a_proxy_each_client_has_its_own_address_and_cannot_forge_another():
    """Every request arrives from the proxy (127.0.0.1). Fails if the throttle reads
    REMOTE_ADDR (all share one counter) or the left-most X-Forwarded-For entry (forged)."""
    UserFactory(username="Anna")
    via_proxy = {"REMOTE_ADDR": "127.0.0.1"}
    for number in range(4):
        Client(**via_proxy).post(
            LOGIN,
            {"username": f"nobody{number}", "password": "wrong"},
            HTTP_X_FORWARDED_FOR=f"192.0.2.{number}, 203.0.113.66",
        )
    attacker = Client(**via_proxy, HTTP_X_FORWARDED_FOR="192.0.2.99, 203.0.113.66")
    assert attacker.post(LOGIN, {"username": "Anna", "password": PASSWORD}).status_code == 429
    member = Client(**via_proxy, HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert member.post(LOGIN, {"username": "Anna", "password": PASSWORD}).status_code == 302


def test_the_address_limit_setting_is_a_whole_number_of_at_least_one():
    name = "LOGIN_ADDRESS_FAILURE_LIMIT"
    assert env_int({}, name, 50) == 50
    assert env_int({name: " "}, name, 50) == 50
    assert env_int({name: "200"}, name, 50) == 200
    for bad in ["0", "-5", "many", "2.5"]:
        with pytest.raises(ConfigError, match=name):
            env_int({name: bad}, name, 50)


@pytest.fixture
def redis_down(settings):
    """The cache pointed at a port where nothing listens, as when Redis is stopped."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
        }
    }


@pytest.mark.django_db
def test_with_redis_down_log_in_fails_closed_with_a_message(
    client, redis_down, password_checks, caplog
):
    """With Redis stopped, log-in must not answer 500 with a traceback, nor check passwords
    unthrottled (what an attacker would wait for): it refuses, saying why (503)."""
    UserFactory(username="Anna")
    assert client.get(LOGIN).status_code == 200
    response = client.post(LOGIN, {"username": "Anna", "password": PASSWORD})
    assert response.status_code == 503
    assert "Accesso momentaneamente non disponibile" in response.content.decode()
    assert response.context["form"]["username"].value() == "Anna"  # the form, re-rendered
    assert "_auth_user_id" not in client.session
    assert password_checks == []
    assert not [record for record in caplog.records if record.exc_info]

    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "en"
    response = client.post(LOGIN, {"username": "Anna", "password": PASSWORD})
    assert response.status_code == 503
    assert "Log-in is temporarily unavailable" in response.content.decode()


ADMIN_LOGIN = "/admin/login/"


@pytest.mark.django_db
@override_settings(LOGIN_FAILURE_LIMIT=5, LOGIN_FAILURE_WINDOW=600)
def test_admin_log_in_is_throttled_like_the_site_s(client, password_checks):
    """With Django's own form, 12 wrong passwords for a staff account on /admin/login/, then
    the right one, logged in. Fails if the admin site keeps Django's unthrottled log-in form."""
    UserFactory(username="boss", is_staff=True, is_superuser=True)
    assert client.get(ADMIN_LOGIN).status_code == 200
    for _ in range(5):
        response = client.post(ADMIN_LOGIN, {"username": "boss", "password": "wrong"})
        assert response.status_code == 200
    response = client.post(ADMIN_LOGIN, {"username": "boss", "password": PASSWORD})
    assert response.status_code == 429
    assert "Troppi tentativi falliti: riprova tra 10 minuti." in response.content.decode()
    assert "_auth_user_id" not in client.session
    assert password_checks == ["failed"] * 5
    # One counter for both doors: the site's log-in is refused too.
    response = client.post(LOGIN, {"username": "BOSS", "password": PASSWORD})
    assert response.status_code == 429


@pytest.mark.django_db
def test_admin_log_in_still_lets_staff_in_and_only_staff(client):
    UserFactory(username="boss", is_staff=True)
    UserFactory(username="Anna")
    data = {"password": PASSWORD, "next": "/admin/"}
    response = client.post(ADMIN_LOGIN, {**data, "username": "Anna"})
    assert response.status_code == 200 and "_auth_user_id" not in client.session
    response = client.post(ADMIN_LOGIN, {**data, "username": "boss"})
    assert response.status_code == 302 and response["Location"] == "/admin/"


@pytest.mark.django_db
def test_admin_log_in_fails_closed_without_redis(client, redis_down):
    UserFactory(username="boss", is_staff=True)
    response = client.post(ADMIN_LOGIN, {"username": "boss", "password": PASSWORD})
    assert response.status_code == 503
    assert "Accesso momentaneamente non disponibile" in response.content.decode()
    assert "_auth_user_id" not in client.session
