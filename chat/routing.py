from __future__ import annotations

from django.urls import path

from chat.consumers import ChatConsumer

# `place`: "game", or an event kind's code ("tournament", "arena"; chat.rooms).
websocket_urlpatterns: list = [path("ws/chat/<slug:place>/<int:pk>/", ChatConsumer.as_asgi())]
