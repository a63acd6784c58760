"""An outage of PostgreSQL or Redis: pages answer 503 with a page that needs
neither, sockets answer "unavailable" and stay, the logs say it in one line."""

from __future__ import annotations

import logging

import pytest
from django.db import OperationalError
from django.test import override_settings
from redis.exceptions import ConnectionError as RedisConnectionError

from config.logs import ClientErrorInOneLine, OutageInOneLine
from live.outages import is_outage


def record(error: BaseException, name: str = "x", level: int = logging.ERROR):
    try:
        raise error
    except BaseException:
        import sys

        return logging.LogRecord(name, level, __file__, 1, "failed %s", ("here",), sys.exc_info())


def test_outages_are_told_apart_from_bugs():
    assert is_outage(OperationalError("connection refused"))
    assert is_outage(RedisConnectionError("Error 111"))
    wrapped = RuntimeError("while handling")
    wrapped.__cause__ = RedisConnectionError("gone")
    assert is_outage(wrapped)
    assert not is_outage(ValueError("a bug"))
    assert not is_outage(None)


def test_an_outage_is_one_line_a_bug_keeps_its_traceback():
    outage = record(OperationalError("server closed the connection"))
    assert OutageInOneLine().filter(outage) and outage.exc_info is None
    assert "OperationalError" in outage.getMessage() and "failed here" in outage.getMessage()
    bug = record(KeyError("x"))
    assert OutageInOneLine().filter(bug) and bug.exc_info is not None


def test_a_clients_bad_request_is_one_line():
    from django.core.exceptions import RequestDataTooBig

    warning = record(
        RequestDataTooBig("too big"), "django.security.RequestDataTooBig", logging.WARNING
    )
    assert ClientErrorInOneLine().filter(warning) and warning.exc_info is None
    suspicious = record(RequestDataTooBig("too big"), "django.security.RequestDataTooBig")
    assert ClientErrorInOneLine().filter(suspicious) and suspicious.exc_info is None
    error = record(KeyError("x"), "django.request", logging.ERROR)
    assert ClientErrorInOneLine().filter(error) and error.exc_info is not None


@pytest.mark.django_db
def test_a_page_answers_503_when_its_database_is_away(client, monkeypatch):
    from games import views

    def away(*args, **kwargs):
        raise OperationalError("connection to server failed")

    monkeypatch.setattr(views.selectors, "open_challenges", away)
    response = client.get("/play/")
    assert response.status_code == 503
    assert "non disponibile" in response.content.decode()


@pytest.mark.django_db
def test_a_path_with_nul_is_no_page(client):
    assert client.get("/@/a%00b/").status_code == 404


@override_settings(
    CACHES={
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.2},
        }
    }
)
@pytest.mark.django_db
def test_log_in_with_redis_away_is_still_a_clear_page(client):
    response = client.post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 503
