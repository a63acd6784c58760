from django.urls import path

from otb import views

app_name = "otb"

urlpatterns = [
    path("", views.otb_list, name="list"),
    path("nuovo/", views.otb_new, name="new"),
    path("modello.csv", views.csv_model, name="csv_model"),
    path("<int:pk>/", views.public, name="public"),
    path("<int:pk>/arbitro/", views.desk, name="desk"),
    path("<int:pk>/arbitro/<str:action>/", views.desk_action, name="action"),
    path("<int:pk>/turno/<int:number>/", views.round_sheet, name="round"),
    path("<int:pk>/turno/<int:number>/<str:action>/", views.round_action, name="round_action"),
    path("<int:pk>/stampa/abbinamenti/<int:number>/", views.print_pairings, name="print_pairings"),
    path("<int:pk>/stampa/classifica/", views.print_standings, name="print_standings"),
    path("<int:pk>/stampa/tabellone/", views.print_cross, name="print_cross"),
    path("<int:pk>/stampa/cartellini/<int:number>/", views.print_labels, name="print_labels"),
    path("<int:pk>/stampa/foglietti/<int:number>/", views.print_slips, name="print_slips"),
    path("<int:pk>/trf/", views.trf, name="trf"),
    path("<int:pk>/elo/", views.rating_report_page, name="elo"),
]
