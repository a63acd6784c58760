from __future__ import annotations

from django.urls import path

from arena.views import pages

app_name = "arena"
urlpatterns = [
    *pages.urls(),
    path("<int:pk>/enter/", pages.join, name="enter"),
    path("<int:pk>/pause/", pages.pause, name="pause"),
    path("<int:pk>/leave/", pages.leave, name="leave"),
    path("<int:pk>/@/<str:username>/", pages.player, name="player"),
]
