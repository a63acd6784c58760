from __future__ import annotations

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _fresh_counters():
    """Every test starts with RULES 9.2's line counters at zero (they live in Redis)."""
    cache.clear()
    yield
    cache.clear()
