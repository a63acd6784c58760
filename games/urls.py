from __future__ import annotations

from django.urls import path

from games import views

app_name = "games"
urlpatterns = [
    path("play/", views.lobby, name="lobby"),
    path("play/notices/", views.notices, name="notices"),
    path("play/<int:pk>/accept/", views.challenge_accept, name="challenge_accept"),
    path("play/<int:pk>/cancel/", views.challenge_cancel, name="challenge_cancel"),
    path("games/<int:pk>/", views.game, name="game"),
    path("games/<int:pk>/export/", views.game_export, name="export"),
]
