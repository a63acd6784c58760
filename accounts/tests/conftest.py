"""Fixtures of the accounts' tests."""

from __future__ import annotations

import pytest
from django.core.cache import cache


@pytest.fixture
def fresh_counters(settings):
    """The throttles' counters (in the cache's Redis) empty before and after the test, and the
    real Redis back after a test that pointed the cache elsewhere (`redis_down`)."""
    caches = settings.CACHES
    cache.clear()
    yield
    settings.CACHES = caches
    cache.clear()


@pytest.fixture
def send(django_capture_on_commit_callbacks):
    """Post with the commit's follow-ups run: the mail task (eager here) sends to the server."""

    def post(client, url, data):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(url, data)

    return post
