"""How the site's processes log (config/settings.py LOGGING).

An outage of a service the site stands on (PostgreSQL, Redis, the broker) is reported in one
line per failure, not a traceback each: `/healthz` says what is down, and a traceback there
says nothing a one-line "connection refused" does not, while it buries the tracebacks of real
bugs (a 10-second outage would log hundreds). Everything else keeps its traceback.
"""

from __future__ import annotations

import logging

from live.outages import is_outage


class OutageInOneLine(logging.Filter):
    """A record whose exception is an outage loses its traceback and says the error in the
    message instead; nothing is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and is_outage(record.exc_info[1]):
            error = record.exc_info[1]
            record.msg = f"{record.getMessage()} [{type(error).__name__}: {str(error)[:200]}]"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


class ClientErrorInOneLine(logging.Filter):
    """Django logs a client's bad request with the exception's traceback: a 4xx (an unparsable
    body) as a warning of django.request, a suspicious one (a body too big, a bad host) as an
    error of django.security. The client's error, not the site's: one line is enough."""

    def filter(self, record: logging.LogRecord) -> bool:
        client = record.name.startswith("django.security") or (
            record.name.startswith("django.request") and record.levelno < logging.ERROR
        )
        if record.exc_info and client:
            error = record.exc_info[1]
            record.msg = f"{record.getMessage()} [{type(error).__name__}: {str(error)[:200]}]"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True
