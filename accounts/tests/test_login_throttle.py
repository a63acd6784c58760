"""Log-in throttling against what an outside attack broke (issue 14, "Logins"), on real Redis
and PostgreSQL: parallel attempts, look-alike usernames, one address for a whole club, the
admin's own log-in page and Redis being down."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.db import connection
from django.test import Client, override_settings

from accounts.tests.factories import PASSWORD, UserFactory

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
