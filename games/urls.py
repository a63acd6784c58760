from __future__ import annotations

from django.urls import path

from config.views import play

app_name = "games"
urlpatterns = [
    path("play/", play, name="lobby"),
]
