from __future__ import annotations

from django.urls import path

from arena import views

app_name = "arena"
urlpatterns = [
    path("", views.arena_list, name="list"),
    path("new/", views.arena_new, name="new"),
    path("<int:pk>/", views.arena_detail, name="detail"),
    path("<int:pk>/edit/", views.arena_edit, name="edit"),
    path("<int:pk>/enter/", views.arena_enter, name="enter"),
    path("<int:pk>/pause/", views.arena_pause, name="pause"),
    path("<int:pk>/leave/", views.arena_leave, name="leave"),
    path("<int:pk>/cancel/", views.arena_cancel, name="cancel"),
    path("<int:pk>/invite/regenerate/", views.arena_invite_regenerate, name="invite_regenerate"),
    path("<int:pk>/invite/<str:token>/", views.arena_invite, name="invite"),
    path("<int:pk>/@/<str:username>/", views.arena_player, name="player"),
]
