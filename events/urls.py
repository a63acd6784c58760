from django.urls import path

from events import views

app_name = "events"
urlpatterns = [
    path("<slug:kind>/<int:pk>/calendar.ics", views.event_calendar, name="calendar"),
    path("reminders/", views.reminder_notices, name="reminders"),
    path("reminders/<int:pk>/dismiss/", views.reminder_dismiss, name="reminder_dismiss"),
]
