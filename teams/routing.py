from __future__ import annotations

from django.urls import path

from teams.consumers import LeagueConsumer, TeamMatchConsumer

websocket_urlpatterns: list = [
    path("ws/teams/<int:pk>/", TeamMatchConsumer.as_asgi()),
    path("ws/leagues/<int:pk>/", LeagueConsumer.as_asgi()),
]
