from django.contrib import admin
from django.urls import include, path

from accounts import views as account_views
from config import health, views

urlpatterns = [
    path("", views.home, name="home"),
    path("", include("games.urls")),
    path("", include("analysis.urls")),
    path("tournaments/", include("tournaments.urls")),
    path("arenas/", include("arena.urls")),
    path("incontri/", include("teams.urls")),
    path("clubs/", include("clubs.urls")),
    path("tavolino/", include("otb.urls")),
    path("players/", account_views.player_list, name="players"),
    path("@/<str:username>/", account_views.player_detail, name="player"),
    path("accounts/", include("accounts.urls")),
    path("ratings/", include("ratings.urls")),
    # Django's language switch, which also keeps a signed-in player's choice (their mails).
    path("i18n/setlang/", account_views.set_language, name="set_language"),
    path("events/", include("events.urls")),
    path("fairplay/", include("fairplay.urls")),
    path("healthz", health.healthz, name="healthz"),
    path("admin/", admin.site.urls),
]
