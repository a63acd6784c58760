"""The site's admin: Django's AdminSite with the club's titles and the throttled log-in,
installed as the default site the way Django documents it ("Overriding the default admin
site": `config.apps.AdminConfig.default_site`), so `admin.site` and `@admin.register` in every
app are this site. Nothing of Django's is patched: replacing the log-in view on the default
site object would break silently when Django changes it (tests/test_no_patches.py)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _

from accounts.forms import AdminLoginForm


class CircoloAdminSite(admin.AdminSite):
    # The admin speaks the club's name, not "Amministrazione Django".
    site_header = _("Amministrazione del Circolo")
    site_title = _("Circolo")
    index_title = _("Gestione del circolo")
    login_form = AdminLoginForm

    def login(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        """AdminSite.login with AdminLoginForm, answering 429 / 503 like the site's log-in when
        the throttle refused (Django's view re-renders every invalid form with 200)."""
        response = super().login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        if isinstance(form, AdminLoginForm):
            response.status_code = form.refusal_status()
        return response
