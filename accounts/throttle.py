"""Throttling of log-ins.

Every attempt is counted *before* its password is checked, in one atomic step in Redis: with
the check and the count as separate steps, 40 parallel attempts all read "not blocked" before
any failure was written, so 39 wrong passwords were evaluated. One MULTI
transaction per attempt, for every counter: SET NX EX starts the counter's window at the first
attempt, INCR returns the new count, TTL says how long the window still runs. An attempt whose
count passes the limit is refused without touching the password, so of any number of attempts
at once at most LOGIN_FAILURE_LIMIT reach the password check within a window.

Counters (each lasting LOGIN_FAILURE_WINDOW seconds from its first attempt):
- per username (as log-in matches it: `ｄａｖｅ` and `DAVE` are `dave`), at
  LOGIN_FAILURE_LIMIT; a success clears it;
- per (username, address), at LOGIN_FAILURE_LIMIT; a success clears only its own address's,
  so the owner logging in does not hand an attacker elsewhere a fresh set of guesses;
- per address alone, only at LOGIN_ADDRESS_FAILURE_LIMIT (at the username's limit, five
  typos by anyone behind one router, a club or a school, would lock everybody out); a
  success gives its own attempt back, so only failures use it up.

The address is the client's as seen by us or, when BEHIND_PROXY, by the trusted proxy
(client_address). Counters live in the cache's Redis, so every daphne process sees the same
ones. Without Redis the throttle cannot count, and attempt_start raises ThrottleUnavailable:
log-in fails closed (a 503 with a message, not a 500), since unthrottled password checks
during an outage are exactly what an attacker would wait for.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from dataclasses import dataclass

import redis
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from redis.exceptions import RedisError

from accounts.models import User
from live.budget import forwarded_address
from mail.mailbox import mailbox_digest

logger = logging.getLogger(__name__)

# Gives back one attempt, but never creates a counter (and so never one without an expiry) if
# the window ran out while the password was being checked.
_GIVE_BACK = "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end"


class ThrottleUnavailable(Exception):
    """Redis cannot be reached, so an attempt cannot be counted."""


def _redis() -> redis.Redis:
    """A client of the cache's Redis (CACHES["default"], with its timeouts): Django's RedisCache
    offers no transaction, and an INCR that also starts the window needs one. Our own client,
    not the cache's private one, which is no API of Django's (tests/test_no_patches.py); the
    keys are the cache's (`cache.make_key`)."""
    cached = settings.CACHES["default"]
    return _client(cached["LOCATION"], **cached.get("OPTIONS", {}))


@functools.lru_cache(maxsize=4)
def _client(url: str, **options: float) -> redis.Redis:
    return redis.Redis.from_url(url, **options)


def username_key(username: str) -> str:
    """The name as log-in matches it, so that every spelling of one account shares its counter
    (otherwise failures for `dave` would not block `ｄａｖｅ`). The form strips the name and
    NFKC-normalises it (AuthenticationForm's UsernameField, like User.normalize_username); the
    backend then looks it up ignoring case (PlayerManager.get_by_natural_key: iexact, which is
    UPPER() on both sides in PostgreSQL, so `kım` with a dotless ı logs in as `Kim`: upper(),
    not lower(), folds the same way)."""
    return User.normalize_username(username.strip()).upper()


def client_address(request: HttpRequest) -> str:
    """The address the request came from. Behind a trusted proxy (BEHIND_PROXY) that is the
    right-most X-Forwarded-For entry, the one the proxy appended (nginx's
    $proxy_add_x_forwarded_for); everything left of it was written by the client and is not
    believed. Otherwise X-Forwarded-For is ignored, since anyone can send it."""
    remote = request.META.get("REMOTE_ADDR") or "unknown"
    if not settings.BEHIND_PROXY:
        return remote
    return forwarded_address(remote, request.META.get("HTTP_X_FORWARDED_FOR", ""))


def _user_key(username: str) -> str:
    return hashlib.sha256(username_key(username).encode()).hexdigest()[:32]


def _keys(username: str, address: str) -> tuple[str, str, str]:
    """The counters of an attempt: username, (username, address), address."""
    name = _user_key(username)
    return (
        cache.make_key(f"login-fail:user:{name}"),
        cache.make_key(f"login-fail:user-addr:{name}:{address}"),
        cache.make_key(f"login-fail:addr:{address}"),
    )


def attempt_start(username: str, address: str) -> int:
    """Count one log-in attempt; return how many seconds it must wait (0: check the password).

    A refused attempt counts too: hammering a blocked name does not shorten its wait, and the
    window still ends LOGIN_FAILURE_WINDOW seconds after its first attempt."""
    window = settings.LOGIN_FAILURE_WINDOW
    user, user_address, address_alone = _keys(username, address)
    limits = {
        user: settings.LOGIN_FAILURE_LIMIT,
        user_address: settings.LOGIN_FAILURE_LIMIT,
        address_alone: settings.LOGIN_ADDRESS_FAILURE_LIMIT,
    }
    try:
        pipe = _redis().pipeline(transaction=True)
        for key in limits:
            pipe.set(key, 0, ex=window, nx=True)
            pipe.incr(key)
            pipe.ttl(key)
        replies = pipe.execute()
    except RedisError as error:
        # Expected during an outage: one line, no traceback; the user gets a message (503).
        logger.warning("Log-in refused, attempts cannot be counted: %s", error)
        raise ThrottleUnavailable from error
    wait = 0
    for index, limit in enumerate(limits.values()):
        count, ttl = replies[3 * index + 1], replies[3 * index + 2]
        if count > limit:
            wait = max(wait, ttl if ttl > 0 else window)
    return wait


def attempt_succeeded(username: str, address: str) -> None:
    """The password was right: clear the username's counter and its pair with this address, give
    the address alone its attempt back."""
    user, user_address, address_alone = _keys(username, address)
    try:
        pipe = _redis().pipeline(transaction=True)
        pipe.delete(user, user_address)
        pipe.eval(_GIVE_BACK, 1, address_alone)
        pipe.execute()
    except RedisError as error:
        # The attempt was counted and its password checked; the counters just run out.
        logger.warning("Log-in counters not cleared after a success: %s", error)


# --- counters of other attempts: sign-ups, private events' passwords --------------------------


@dataclass(frozen=True)
class Counter:
    """`limit` attempts within `window` seconds from the first one, under the cache key `key`."""

    key: str
    limit: int
    window: int


def count_in_order(counters: list[Counter]) -> tuple[int, Counter | None]:
    """Count one attempt on each counter in turn, stopping at the first one over its limit:
    returns how many seconds that one still runs, and which it is (0 and None: go on).

    Each counter is one MULTI (SET NX EX starts its window, INCR counts, TTL says how long the
    window runs), so any number of attempts at once are counted exactly. The counters after a
    refusing one are not touched: a client refused by its own counter does not use up a shared
    one (an address hammering sign-up does not close it to everyone). Raises
    ThrottleUnavailable when Redis cannot be reached: the caller fails closed."""
    try:
        client = _redis()
        for counter in counters:
            pipe = client.pipeline(transaction=True)
            pipe.set(counter.key, 0, ex=counter.window, nx=True)
            pipe.incr(counter.key)
            pipe.ttl(counter.key)
            _set, count, ttl = pipe.execute()
            if count > counter.limit:
                return (ttl if ttl > 0 else counter.window), counter
    except RedisError as error:
        logger.warning("attempt refused, it cannot be counted: %s", error)
        raise ThrottleUnavailable from error
    return 0, None


def attempt_right(*, give_back: list[str], clear: list[str]) -> None:
    """An attempt counted by `count_in_order` turned out right: it no longer counts on the
    counters `give_back` (those of wrong attempts only), and the counters `clear` start again."""
    try:
        pipe = _redis().pipeline(transaction=True)
        for key in give_back:
            pipe.eval(_GIVE_BACK, 1, key)
        if clear:
            pipe.delete(*clear)
        pipe.execute()
    except RedisError as error:  # the counters just run out
        logger.warning("attempt counters not given back: %s", error)


def signup_attempt(address: str) -> int:
    """Count a sign-up about to create an account; return how many seconds to wait (0: go on).

    Only a valid form is counted (nothing else creates an account, and a typo must not use up a
    club's allowance): SIGNUP_ADDRESS_LIMIT per address within SIGNUP_WINDOW seconds, then
    SIGNUP_GLOBAL_LIMIT a minute over the whole site, the bound of an attacker with many
    addresses. Accounts made by one address at a time were what let private passwords be
    guessed with fresh accounts."""
    return count_in_order(
        [
            Counter(
                cache.make_key(f"signup:addr:{address}"),
                settings.SIGNUP_ADDRESS_LIMIT,
                settings.SIGNUP_WINDOW,
            ),
            Counter(cache.make_key("signup:site"), settings.SIGNUP_GLOBAL_LIMIT, 60),
        ]
    )[0]


def reset_attempt(address: str, email: str) -> tuple[int, bool]:
    """Count a password-reset request; return (seconds to wait, whether the client's address
    is the one refused). PASSWORD_RESET_ADDRESS_LIMIT requests per client address, then
    PASSWORD_RESET_EMAIL_LIMIT per e-mail address (however many clients ask), within
    PASSWORD_RESET_WINDOW: a mailbox is not flooded, and nobody tries addresses by the
    thousand. The e-mail's counter is its mailbox's (RULES 10.1: every spelling of one mailbox
    shares it), kept under a digest of its key."""
    window = settings.PASSWORD_RESET_WINDOW
    mailbox = mailbox_digest(email)
    by_address = Counter(
        cache.make_key(f"reset:addr:{address}"), settings.PASSWORD_RESET_ADDRESS_LIMIT, window
    )
    by_email = Counter(
        cache.make_key(f"reset:email:{mailbox}"), settings.PASSWORD_RESET_EMAIL_LIMIT, window
    )
    wait, refusing = count_in_order([by_address, by_email])
    return wait, refusing is by_address
