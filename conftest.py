"""Fixtures for the whole suite."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    """A new channel layer for every test.

    channels keeps one layer object per process, and channels_redis binds its internal asyncio
    locks to the event loop that first used them; pytest-asyncio gives each test its own loop,
    so a layer reused across tests fails with "bound to a different event loop". Production has
    one loop per process and never sees this.
    """
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()
