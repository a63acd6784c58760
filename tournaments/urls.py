from __future__ import annotations

from django.urls import path

from config.views import tournaments

app_name = "tournaments"
urlpatterns = [
    path("", tournaments, name="list"),
]
