from django.urls import path

from teams import league_views, views

app_name = "teams"

urlpatterns = [
    path("nuovo/", views.new, name="new"),
    path("<int:match_id>/", views.detail, name="detail"),
    path("<int:match_id>/formazione/", views.lineup, name="lineup"),
    path("<int:match_id>/disponibile/", views.availability, name="availability"),
    path("<int:match_id>/annulla/", views.cancel, name="cancel"),
    # RULES 16.8: the leagues of team matches.
    path("campionati/nuovo/", league_views.new, name="league_new"),
    path("campionati/<int:league_id>/", league_views.detail, name="league"),
    path("campionati/<int:league_id>/stampa/", league_views.print_sheet, name="league_print"),
    path("campionati/<int:league_id>/trf/", league_views.trf, name="league_trf"),
    path("campionati/<int:league_id>/avvia/", league_views.start, name="league_start"),
    path("campionati/<int:league_id>/annulla/", league_views.cancel, name="league_cancel"),
    path(
        "campionati/<int:league_id>/squadre/nuova/", league_views.team_add, name="league_team_add"
    ),
    path(
        "campionati/<int:league_id>/squadre/<int:team_id>/",
        league_views.team,
        name="league_team",
    ),
    path(
        "campionati/<int:league_id>/squadre/<int:team_id>/ritira/",
        league_views.withdraw,
        name="league_withdraw",
    ),
]
