"""The error pages: the site's layout, in Italian and in English, never Django's
bare English pages. 500 is rendered without a request, as Django renders it."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory
from django.utils import translation
from django.views import defaults

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "title"), [("it", "Errore del server"), ("en", "Server error")]
)
def test_the_500_page_has_the_layout_without_a_request(language, title):
    with translation.override(language):
        response = defaults.server_error(RequestFactory().get("/"))
    page = response.content.decode()
    assert response.status_code == 500
    assert title in page and 'class="topbar"' in page and 'data-testid="error-page"' in page


@pytest.mark.parametrize(("language", "title"), [("it", "Accesso negato"), ("en", "Access denied")])
def test_the_403_page(rf, language, title):
    request = rf.get("/")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    with translation.override(language):
        response = defaults.permission_denied(request, PermissionDenied())
    assert response.status_code == 403 and title in response.content.decode()


def test_a_missing_page_is_the_site_s_404(client):
    response = client.get("/non-esiste/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "Pagina non trovata" in page and 'class="topbar"' in page
    client.cookies["django_language"] = "en"
    assert "Page not found" in client.get("/non-esiste/").content.decode()


def test_a_refused_form_is_the_site_s_403(client):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403 and "Modulo scaduto" in response.content.decode()
