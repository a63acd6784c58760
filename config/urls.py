from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _

from accounts import views as account_views
from config import health, views

# The admin speaks the club's name (issue 16), not "Amministrazione Django".
admin.site.site_header = _("Amministrazione del Circolo")
admin.site.site_title = _("Circolo")
admin.site.index_title = _("Gestione del circolo")

urlpatterns = [
    path("", views.home, name="home"),
    path("", include("games.urls")),
    path("tournaments/", include("tournaments.urls")),
    path("arenas/", include("arena.urls")),
    path("players/", account_views.player_list, name="players"),
    path("@/<str:username>/", account_views.player_detail, name="player"),
    path("accounts/", include("accounts.urls")),
    path("ratings/", include("ratings.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("healthz", health.healthz, name="healthz"),
    path("admin/", admin.site.urls),
]
