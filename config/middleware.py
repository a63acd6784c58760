from __future__ import annotations

from django.conf import settings
from django.contrib.sessions.middleware import SessionMiddleware as SessionMiddleware_
from django.middleware.locale import LocaleMiddleware
from django.utils import translation


class ChosenLanguageMiddleware(LocaleMiddleware):
    """Italian unless the visitor chose otherwise with the language switch.

    Django's LocaleMiddleware would follow the browser's Accept-Language; the club is Italian
    by default, so only the language cookie (set by the switch) changes the language.
    """

    def process_request(self, request):
        language = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        if language not in dict(settings.LANGUAGES):
            language = settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()


class ServiceUnavailableMiddleware:
    """A page that cannot reach PostgreSQL or Redis answers 503 with the site's page saying so,
    not a 500 and a traceback (a 10-second outage is no bug of the page); the log has one line.
    A path with a NUL character is no page of the site (PostgreSQL cannot even look it up): 404.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path:
            from django.http import Http404

            raise Http404("no such page")
        return self.get_response(request)

    def process_exception(self, request, exception):
        from live.outages import is_outage

        if not is_outage(exception):
            return None
        import logging

        from django.shortcuts import render

        logging.getLogger("django.request").warning(
            "%s %s: service unavailable (%s)", request.method, request.path, exception
        )
        return render(request, "503.html", status=503)


class SessionMiddleware(SessionMiddleware_):
    """Django's, but a session whose load failed (its database away) is simply not saved,
    instead of turning the 503 above into a 500."""

    def process_response(self, request, response):
        try:
            return super().process_response(request, response)
        except AttributeError:
            if response.status_code >= 500:
                return response
            raise
