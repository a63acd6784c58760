"""What an outage of a service the site stands on looks like (PostgreSQL, Redis, the broker):
the errors that say "it is away", as opposed to bugs. Sockets answer "unavailable" and the logs
say it in one line (config/logs.py)."""

from __future__ import annotations

# A socket whose handshake needs what is away is accepted, then closed with this code: "try
# again later" (the page's socket client does, with its back-off). WebSocket's own 1013 says
# that, but servers may not send it (daphne's autobahn allows 1000 and 3000-4999 only).
CLOSE_UNAVAILABLE = 4503


def _outage_types() -> tuple[type[BaseException], ...]:
    found: list[type[BaseException]] = [ConnectionError, TimeoutError]
    try:
        from django.db import InterfaceError, OperationalError

        found += [OperationalError, InterfaceError]
    except ImportError:
        pass
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        found += [RedisConnectionError, RedisTimeoutError]
    except ImportError:
        pass
    try:
        import psycopg

        found += [psycopg.OperationalError, psycopg.InterfaceError]
    except ImportError:
        pass
    try:
        from kombu.exceptions import OperationalError as BrokerError

        found.append(BrokerError)
    except ImportError:
        pass
    return tuple(found)


def is_outage(error: BaseException | None) -> bool:
    """Whether this error, or one it was raised from, is a backing service being away."""
    kinds = _outage_types()
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, kinds):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False
