"""Websocket routes of every app, gathered in one list (the root: it may import the apps)."""

from __future__ import annotations

from django.urls import path

from arena.routing import websocket_urlpatterns as arena_routes
from chat.routing import websocket_urlpatterns as chat_routes
from config.page_sockets import ArenaPageConsumer, GamePageConsumer, TournamentPageConsumer
from games.routing import websocket_urlpatterns as games_routes
from live.routing import websocket_urlpatterns as live_routes
from otb.routing import websocket_urlpatterns as otb_routes
from teams.routing import websocket_urlpatterns as teams_routes
from tournaments.routing import websocket_urlpatterns as tournaments_routes

websocket_urlpatterns: list = [
    *live_routes,
    *games_routes,
    *tournaments_routes,
    *arena_routes,
    *chat_routes,
    *otb_routes,
    *teams_routes,
    # A page's one socket: its own, its chat and the site's news (config/page_sockets.py).
    path("ws/page/game/<int:game_id>/", GamePageConsumer.as_asgi()),
    path("ws/page/tournament/<int:pk>/", TournamentPageConsumer.as_asgi()),
    path("ws/page/arena/<int:pk>/", ArenaPageConsumer.as_asgi()),
]
