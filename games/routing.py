from __future__ import annotations

from django.urls import path

from games.consumers import GameConsumer, LobbyConsumer

websocket_urlpatterns: list = [
    path("ws/game/<int:game_id>/", GameConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
]
