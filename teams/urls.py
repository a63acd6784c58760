from django.urls import path

from teams import views

app_name = "teams"

urlpatterns = [
    path("nuovo/", views.new, name="new"),
    path("<int:match_id>/", views.detail, name="detail"),
    path("<int:match_id>/formazione/", views.lineup, name="lineup"),
    path("<int:match_id>/disponibile/", views.availability, name="availability"),
]
