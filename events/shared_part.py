"""The part of an event's live page that is the same for every viewer, rendered once per change.

A running event's page re-fetches its live fragment at each "changed" push (STYLE 7), and a
push reaches everyone at once: every player of a Swiss at each round start, every waiting
player of an arena at each pairing. Most of that fragment — the standings, the round's pairings,
the leaderboard, the top boards — does not depend on who looks. Rendered per request it was
most of a server's time on a busy evening (bench/evening.py: 55 ms and 13 queries a fetch for a
100-player Swiss). So it is rendered once per change in each server process and shared; what is
the viewer's own (their game, their entry, the buttons) stays outside it.

"Once per change" is a version kept in Redis per event, bumped after the commit of every change
the kind pushes, before the push itself (`bump_on_commit`, called by the kind's
`changed_on_commit`): a page fetched because of a push reads the new version, so it never gets
a part older than the push. A part is kept at most `EVENT_PART_SECONDS` (settings) even if no
push came, which bounds what a change that pushes nothing (a staff edit in the admin, a player
renamed) leaves stale. With Redis away the part is rendered for each request, as before.

While one thread renders a part, the others asking for the same part wait for it instead of
rendering it too (the whole Swiss fetches at once).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from live import heartbeat

log = logging.getLogger(__name__)

# Parts kept per process: a few per running event (languages, leaderboard pages).
KEEP = 64
# How long the version stays in Redis after the event's last change.
VERSION_SECONDS = 2 * 24 * 3600

# The parts' age is read on this clock (tests set it).
clock = time.monotonic

_parts: OrderedDict[tuple, tuple[str, float]] = OrderedDict()
_parts_lock = threading.Lock()
_rendering: dict[tuple, threading.Lock] = {}


def _version_key(kind: str, event_id: int) -> str:
    return heartbeat.prefixed(f"event-version:{kind}:{event_id}")


def bump_on_commit(kind: str, event_id: int) -> None:
    """After commit, mark every shared part of this event out of date. Call it before the
    "changed" push is registered, so the bump runs first."""
    transaction.on_commit(lambda: bump(kind, event_id))


def bump(kind: str, event_id: int) -> None:
    try:
        redis = heartbeat.client()
        key = _version_key(kind, event_id)
        redis.incr(key)
        redis.expire(key, VERSION_SECONDS)
    except Exception:
        # The parts then live out their EVENT_PART_SECONDS; the push itself fails the same way.
        log.warning("event part version of %s %s not bumped", kind, event_id, exc_info=True)


def version(kind: str, event_id: int) -> int | None:
    """The event's version now, or None with Redis away."""
    try:
        value = heartbeat.client().get(_version_key(kind, event_id))
    except Exception:
        log.warning("event part version of %s %s not read", kind, event_id, exc_info=True)
        return None
    return int(value or 0)


def shared_html(kind: str, event_id: int, part: str, render: Callable[[], str]) -> SafeString:
    """The event's `part` (a name, with whatever else the HTML depends on: a page number) as
    `render()` makes it, from this process's copy when it is of the current version and
    younger than EVENT_PART_SECONDS. `render` must depend only on the event and the language,
    never on the viewer."""
    seconds = settings.EVENT_PART_SECONDS
    current = version(kind, event_id) if seconds > 0 else None
    if current is None:
        return mark_safe(render())
    key = (kind, event_id, part, current, get_language())
    found = _fresh(key, seconds)
    if found is not None:
        return mark_safe(found)
    with _parts_lock:
        gate = _rendering.setdefault(key, threading.Lock())
    with gate:  # one renders, the others wait and take its result
        found = _fresh(key, seconds)
        if found is None:
            found = render()
            with _parts_lock:
                _parts[key] = (found, clock())
                while len(_parts) > KEEP:
                    _parts.popitem(last=False)
    with _parts_lock:
        _rendering.pop(key, None)
    return mark_safe(found)


def _fresh(key: tuple, seconds: float) -> str | None:
    with _parts_lock:
        found = _parts.get(key)
        if found is None:
            return None
        html, made = found
        if clock() - made >= seconds:
            del _parts[key]
            return None
        _parts.move_to_end(key)
        return html


def forget() -> None:
    """Drop every part this process keeps (tests)."""
    with _parts_lock:
        _parts.clear()


_memos: dict[tuple, tuple[Any, float]] = {}


def memo(key: tuple, seconds: float, compute: Callable[[], Any]) -> Any:
    """`compute()`, shared by the requests of this process for `seconds`: for what no push
    announces but every viewer asks for (an arena's waiting players, from the sockets' presence),
    where a second's age is as good as now."""
    if settings.EVENT_PART_SECONDS <= 0:
        return compute()
    now = clock()
    with _parts_lock:
        found = _memos.get(key)
    if found is not None and now - found[1] < seconds:
        return found[0]
    value = compute()
    with _parts_lock:
        if len(_memos) > KEEP:
            _memos.clear()
        _memos[key] = (value, now)
    return value
