from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views

app_name = "accounts"
urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("signup/link/<str:token>/", views.signup, name="signup_link"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", views.PasswordChangeView.as_view(), name="password_change"),
    path("password/reset/", views.ResetView.as_view(), name="password_reset"),
    path("password/reset/sent/", views.ResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        views.ResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("email/verify/<str:token>/", views.email_verify, name="email_verify"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("settings/", views.account, name="account"),
    path("settings/email/", views.account_email, name="account_email"),
    path("settings/signup-links/", views.account_signup_link, name="account_signup_link"),
    path(
        "settings/signup-links/<int:link_id>/revoke/",
        views.account_signup_link_revoke,
        name="account_signup_link_revoke",
    ),
    path("settings/language/", views.account_language, name="account_language"),
    path("settings/reminders/", views.account_reminders, name="account_reminders"),
    path("settings/text-mode/", views.account_text_mode, name="account_text_mode"),
    path("settings/data/", views.account_data, name="account_data"),
    path("settings/data/<int:pk>/", views.account_data_download, name="account_data_download"),
    path("settings/delete/", views.account_delete, name="account_delete"),
]
