"""Websocket routes of every app, gathered in one list."""

from __future__ import annotations

websocket_urlpatterns: list = []
