from __future__ import annotations

from django.urls import path

from tournaments.consumers import TournamentConsumer

websocket_urlpatterns: list = [
    path("ws/tournaments/<int:pk>/", TournamentConsumer.as_asgi()),
]
