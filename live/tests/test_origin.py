"""Websocket Origin check: the full origin — scheme, host and port — must be the site's own, or
one of CSRF_TRUSTED_ORIGINS; any port and scheme of an allowed host is not enough (another port
of the same host is another site)."""

from __future__ import annotations

import pytest
from django.test import override_settings

from live.sockets import SameOriginValidator


def scope(origin: str | None, host: str = "127.0.0.1:8000", scheme: str = "ws", **extra) -> dict:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    headers += [(k.encode(), v.encode()) for k, v in extra.items()]
    return {"type": "websocket", "scheme": scheme, "headers": headers}


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "allowed"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", "ws", True),
        ("http://localhost:8000", "localhost:8000", "ws", True),
        ("http://[::1]:8000", "[::1]:8000", "ws", True),
        ("http://127.0.0.1:9999", "127.0.0.1:8000", "ws", False),  # another port of the host
        ("https://127.0.0.1:8000", "127.0.0.1:8000", "ws", False),  # another scheme
        ("http://127.0.0.1", "127.0.0.1:8000", "ws", False),
        ("http://evil.example:8000", "127.0.0.1:8000", "ws", False),
        ("http://127.0.0.1:8000", "evil.example:8000", "ws", False),  # a host not allowed
        (None, "127.0.0.1:8000", "ws", False),
        ("null", "127.0.0.1:8000", "ws", False),
        ("http://127.0.0.1:abc", "127.0.0.1:8000", "ws", False),
    ],
)
def test_only_the_sites_own_origin(origin, host, scheme, allowed):
    assert SameOriginValidator.allowed(scope(origin, host, scheme)) is allowed


@override_settings(ALLOWED_HOSTS=["circolo.example"], BEHIND_PROXY=True)
def test_behind_a_proxy_that_terminates_tls():
    assert SameOriginValidator.allowed(
        scope("https://circolo.example", "circolo.example", "ws", **{"x-forwarded-proto": "https"})
    )
    assert not SameOriginValidator.allowed(scope("https://circolo.example", "circolo.example"))
    assert not SameOriginValidator.allowed(
        scope("http://circolo.example", "circolo.example", **{"x-forwarded-proto": "https"})
    )


@override_settings(CSRF_TRUSTED_ORIGINS=["https://play.circolo.example"])
def test_a_trusted_origin():
    assert SameOriginValidator.allowed(scope("https://play.circolo.example", "127.0.0.1:8000"))
