from __future__ import annotations

from django.urls import path

from tournaments import views
from tournaments.views import pages

app_name = "tournaments"
urlpatterns = [
    *pages.urls(),
    path("<int:pk>/join/", pages.join, name="join"),
    path("<int:pk>/withdraw/", pages.withdraw, name="withdraw"),
    path("<int:pk>/player/<int:number>/", views.tournament_player, name="player"),
    path("<int:pk>/round/<int:number>/", views.tournament_round, name="round"),
    path("<int:pk>/print/", views.tournament_print, name="print"),
    path("<int:pk>/trf/", views.tournament_trf, name="trf"),
    path("<int:pk>/games/", views.tournament_games, name="games"),
    path("banner/", views.tournament_banner, name="banner"),
]
