from __future__ import annotations

from django.urls import path

from games import analysis_views, views

app_name = "games"
urlpatterns = [
    path("play/", views.lobby, name="lobby"),
    path("play/notices/", views.notices, name="notices"),
    path("play/pool/", views.pool_join, name="pool_join"),
    path("play/pool/leave/", views.pool_leave, name="pool_leave"),
    path("play/<int:pk>/accept/", views.challenge_accept, name="challenge_accept"),
    path("play/<int:pk>/cancel/", views.challenge_cancel, name="challenge_cancel"),
    path("games/", views.watch, name="watch"),
    path("guida/senza-scacchiera/", views.text_guide, name="text_guide"),
    path("games/<int:pk>/", views.game, name="game"),
    path("games/<int:pk>/positions/", views.game_positions, name="positions"),
    path("games/<int:pk>/ratings/", views.game_ratings, name="ratings"),
    path("games/<int:pk>/rematch/", views.rematch, name="rematch"),
    path("games/<int:pk>/new-opponent/", views.new_opponent, name="new_opponent"),
    path("games/<int:pk>/export/", views.game_export, name="export"),
    path("games/<int:pk>/analysis/", analysis_views.analysis, name="analysis"),
    path("games/<int:pk>/analysis/export/", analysis_views.analysis_export, name="analysis_export"),
    path("games/analysis/move/", analysis_views.analysis_move, name="analysis_move"),
]
