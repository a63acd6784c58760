from __future__ import annotations

from django.urls import path

from games.consumers import GameConsumer

websocket_urlpatterns: list = [
    path("ws/game/<int:game_id>/", GameConsumer.as_asgi()),
]
