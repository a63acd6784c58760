from __future__ import annotations

from django.urls import path

from arena.consumers import ArenaConsumer

websocket_urlpatterns: list = [path("ws/arenas/<int:pk>/", ArenaConsumer.as_asgi())]
