"""Websocket routes of every app, gathered in one list."""

from __future__ import annotations

from games.routing import websocket_urlpatterns as games_routes
from tournaments.routing import websocket_urlpatterns as tournaments_routes

websocket_urlpatterns: list = [*games_routes, *tournaments_routes]
