"""Fixtures of the clubs' tests."""

from __future__ import annotations

import pytest
from django.core.cache import cache


@pytest.fixture
def fresh_counters(settings):
    """The sign-up throttle's counters (in the cache's Redis) empty before and after."""
    cache.clear()
    yield
    cache.clear()
