from django.urls import path

from fairplay import views

app_name = "fairplay"
urlpatterns = [
    path("focus/<int:game_id>/", views.focus, name="focus"),
    path("<slug:kind>/<int:pk>/", views.report, name="report"),
    path("<slug:kind>/<int:pk>/review/<int:player_id>/", views.review, name="review"),
    path("<slug:kind>/<int:pk>/analyses/", views.analyses, name="analyses"),
    path("<slug:kind>/<int:pk>/annul/<int:player_id>/", views.annul, name="annul"),
]
