from __future__ import annotations

from django.urls import path

from analysis import views

app_name = "analysis"
urlpatterns = [
    path("games/<int:pk>/computer/", views.panel, name="panel"),
    path("games/<int:pk>/computer/button/", views.button, name="button"),
    path("games/<int:pk>/computer/pgn/", views.annotated_pgn, name="pgn"),
    path("analysis/", views.board, name="board"),
    path("analysis/export/", views.board_export, name="board_export"),
    path("analysis/engine/", views.engine_ask, name="engine_ask"),
    path("analysis/engine/<str:token>/", views.engine_answer, name="engine_answer"),
]
