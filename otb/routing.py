from __future__ import annotations

from django.urls import path

from otb.consumers import OtbConsumer

websocket_urlpatterns: list = [
    path("ws/otb/<int:pk>/", OtbConsumer.as_asgi()),
]
