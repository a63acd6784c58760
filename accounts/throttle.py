"""Throttling of log-ins.

Every attempt is counted *before* its password is checked, in one atomic step in Redis (issue
14: the check and the count were separate steps, and 40 parallel attempts all read "not
blocked" before any failure was written, so 39 wrong passwords were evaluated). One MULTI
transaction per attempt, for every counter: SET NX EX starts the counter's window at the first
attempt, INCR returns the new count, TTL says how long the window still runs. An attempt whose
count passes the limit is refused without touching the password, so of any number of attempts
at once at most LOGIN_FAILURE_LIMIT reach the password check within a window.

Counters (each lasting LOGIN_FAILURE_WINDOW seconds from its first attempt):
- per username (as log-in matches it: `ｄａｖｅ` and `DAVE` are `dave`), at
  LOGIN_FAILURE_LIMIT; a success clears it;
- per address, at LOGIN_FAILURE_LIMIT; a success gives its own attempt back, so only failures
  use it up.

Counters live in the cache's Redis, so every daphne process sees the same ones.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache

from accounts.models import User

# Gives back one attempt, but never creates a counter (and so never one without an expiry) if
# the window ran out while the password was being checked.
_GIVE_BACK = "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end"


def _redis():
    """The cache's own Redis client (same CACHES["default"], same connection pool): Django's
    RedisCache offers no transaction, and an INCR that also starts the window needs one."""
    return cache._cache.get_client(write=True)


def username_key(username: str) -> str:
    """The name as log-in matches it, so that every spelling of one account shares its counter
    (issue 14: failures for `dave` did not block `ｄａｖｅ`). The form strips the name and
    NFKC-normalises it (AuthenticationForm's UsernameField, like User.normalize_username); the
    backend then looks it up ignoring case (PlayerManager.get_by_natural_key: iexact, which is
    UPPER() on both sides in PostgreSQL, so `kım` with a dotless ı logs in as `Kim`: upper(),
    not lower(), folds the same way)."""
    return User.normalize_username(username.strip()).upper()


def _user_key(username: str) -> str:
    name = hashlib.sha256(username_key(username).encode()).hexdigest()[:32]
    return cache.make_key(f"login-fail:user:{name}")


def _address_key(address: str) -> str:
    return cache.make_key(f"login-fail:addr:{address}")


def attempt_start(username: str, address: str) -> int:
    """Count one log-in attempt; return how many seconds it must wait (0: check the password).

    A refused attempt counts too: hammering a blocked name does not shorten its wait, and the
    window still ends LOGIN_FAILURE_WINDOW seconds after its first attempt."""
    window = settings.LOGIN_FAILURE_WINDOW
    limits = {
        _user_key(username): settings.LOGIN_FAILURE_LIMIT,
        _address_key(address): settings.LOGIN_FAILURE_LIMIT,
    }
    pipe = _redis().pipeline(transaction=True)
    for key in limits:
        pipe.set(key, 0, ex=window, nx=True)
        pipe.incr(key)
        pipe.ttl(key)
    replies = pipe.execute()
    wait = 0
    for index, limit in enumerate(limits.values()):
        count, ttl = replies[3 * index + 1], replies[3 * index + 2]
        if count > limit:
            wait = max(wait, ttl if ttl > 0 else window)
    return wait


def attempt_succeeded(username: str, address: str) -> None:
    """The password was right: clear the username's counter, give the address its attempt back."""
    pipe = _redis().pipeline(transaction=True)
    pipe.delete(_user_key(username))
    pipe.eval(_GIVE_BACK, 1, _address_key(address))
    pipe.execute()
