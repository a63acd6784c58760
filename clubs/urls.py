from __future__ import annotations

from django.urls import path

from clubs import views

app_name = "clubs"
urlpatterns = [
    path("", views.club_list, name="list"),
    path("new/", views.club_new, name="new"),
    path("invite/<str:token>/", views.invite, name="invite"),
    path("notice/<int:request_id>/dismiss/", views.notice_dismiss, name="notice_dismiss"),
    path("<int:pk>/", views.club_detail, name="detail"),
    path("<int:pk>/calendar.ics", views.club_calendar, name="calendar"),
    path("<int:pk>/edit/", views.club_edit, name="edit"),
    path("<int:pk>/manage/", views.club_manage, name="manage"),
    path("<int:pk>/request/", views.club_request, name="request"),
    path(
        "<int:pk>/request/<int:request_id>/withdraw/",
        views.request_withdraw,
        name="request_withdraw",
    ),
    path("<int:pk>/request/<int:request_id>/decide/", views.request_decide, name="request_decide"),
    path("<int:pk>/leave/", views.club_leave, name="leave"),
    path("<int:pk>/members/<slug:action>/", views.member_action, name="member_action"),
    path("<int:pk>/dissolve/", views.club_dissolve, name="dissolve"),
    path("<int:pk>/invites/", views.invite_create, name="invite_create"),
    path("<int:pk>/invites/<int:link_id>/revoke/", views.invite_revoke, name="invite_revoke"),
]
