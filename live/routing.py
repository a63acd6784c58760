from __future__ import annotations

from django.urls import path

from live.consumers import UserConsumer

websocket_urlpatterns: list = [path("ws/me/", UserConsumer.as_asgi())]
