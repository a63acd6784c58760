from __future__ import annotations

from django.urls import path

from ratings import views

app_name = "ratings"
urlpatterns = [
    path("", views.leaderboards, name="index"),
    path("<str:variant>/<str:cadence>/", views.leaderboard, name="leaderboard"),
]
