"""Where a form's `next=` may send the visitor: signing up and every app's forms share it.

A `next` is followed only when it is a path on this site (`/…`, not `//…`, the same host for
Django's check), encodes as UTF-8 and holds no control or format character (newlines would
split the Location header, bidirectional overrides disguise it). Anything else is ignored,
never an error: the visitor lands on the page's default instead (a hostile `next` must not
answer 500, and `next=foo` is not a view name to resolve).
"""

from __future__ import annotations

import unicodedata

from django.http import HttpRequest
from django.utils.encoding import iri_to_uri
from django.utils.http import url_has_allowed_host_and_scheme

MAX_NEXT_CHARS = 2000


def local_next(request: HttpRequest, url: object) -> str | None:
    """`url` as a safe Location on this site (non-ASCII percent-encoded), or None."""
    if not isinstance(url, str) or not url.startswith("/") or len(url) > MAX_NEXT_CHARS:
        return None
    if url.startswith(("//", "/\\")):
        return None
    try:
        url.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return None
    if any(unicodedata.category(char) in ("Cc", "Cf") for char in url):
        return None
    if not url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return None
    return iri_to_uri(url)
