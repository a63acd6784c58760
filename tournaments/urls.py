from __future__ import annotations

from django.urls import path

from tournaments import views

app_name = "tournaments"
urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("new/", views.tournament_new, name="new"),
    path("<int:pk>/", views.tournament_detail, name="detail"),
    path("<int:pk>/edit/", views.tournament_edit, name="edit"),
    path("<int:pk>/join/", views.tournament_join, name="join"),
    path("<int:pk>/withdraw/", views.tournament_withdraw, name="withdraw"),
    path("<int:pk>/cancel/", views.tournament_cancel, name="cancel"),
    path(
        "<int:pk>/invite/regenerate/", views.tournament_invite_regenerate, name="invite_regenerate"
    ),
    path("<int:pk>/player/<int:number>/", views.tournament_player, name="player"),
    path("<int:pk>/round/<int:number>/", views.tournament_round, name="round"),
    path("<int:pk>/print/", views.tournament_print, name="print"),
    path("<int:pk>/trf/", views.tournament_trf, name="trf"),
    path("<int:pk>/games/", views.tournament_games, name="games"),
    path("banner/", views.tournament_banner, name="banner"),
    path("<int:pk>/invite/<str:token>/", views.tournament_invite, name="invite"),
]
