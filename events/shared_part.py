"""The part of an event's live page that is the same for every viewer, rendered once per change.

A running event's page re-fetches its live fragment at each "changed" push (STYLE 7), and a
push reaches everyone at once: every player of a Swiss at each round start, every waiting
player of an arena at each pairing. Most of that fragment — the standings, the round's pairings,
the leaderboard, the top boards — does not depend on who looks. Rendered per request it was
most of a server's time on a busy evening (bench/evening.py: 55 ms and 13 queries a fetch for a
100-player Swiss). So it is rendered once per change in each server process and shared; what is
the viewer's own (their game, their entry, the buttons) stays outside it.

"Once per change" is the count of the changes the event's page group has been told of, kept in
Redis and counted after each change's commit, before any push of it (`live.pushes.count_push`,
through the kinds' "changed" pushes, throttled or not): a page loaded after a change reads a
count at least that change's, so it never gets a part older than the change. (Counting only the
pushes sent let an arena's page loaded inside the throttle window get a part without the last
entrant, and its socket, opened after the window's trailing push, never heard of it.)

A page's re-fetch that answers a push (`answers_push`: static/js/events.js says so in a
header) needs no more than what that push carried, since any later change brings its own push:
it reads the count of the changes pushed (`live.pushes.mark_pushed`). A busy arena changes many
times in its one-second push window; its waiting players, all fetching because of the window's
one push, then share one part instead of one per change. A part rendered after either count
read k holds every change up to k, so both kinds of fetch share the parts by that number.

A part is kept at most `EVENT_PART_SECONDS` (settings) however few pushes came,
which bounds what a change that pushes nothing (a player renamed) leaves stale. With Redis away
the part is rendered for each request, as before.

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
from django.http import HttpRequest
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from live import pushes

log = logging.getLogger(__name__)

# Parts kept per process: a few per running event (languages, leaderboard pages).
KEEP = 64

# The parts' age is read on this clock (tests set it).
clock = time.monotonic

_parts: OrderedDict[tuple, tuple[str, float]] = OrderedDict()
_parts_lock = threading.Lock()
_rendering: dict[tuple, threading.Lock] = {}


REFRESH_HEADER = "X-Event-Refresh"  # static/js/events.js


def answers_push(request: HttpRequest) -> bool:
    """Whether this request is a live page's re-fetch because its socket said "changed"."""
    return request.method == "GET" and request.headers.get(REFRESH_HEADER) == "push"


def shared_html(
    group: str, part: str, render: Callable[[], str], *, after_push: bool = False
) -> SafeString:
    """The `part` (a name, with whatever else the HTML depends on: a page number) of the event
    whose page listens to `group`, as `render()` makes it, from this process's copy when no
    change came to the group since (with `after_push`, no push) and it is younger than
    EVENT_PART_SECONDS. `render` must depend only on the event and the language, never on
    the viewer."""
    return mark_safe(shared(group, part, render, after_push=after_push))


def shared(group: str, part: str, compute: Callable[[], Any], *, after_push: bool = False) -> Any:
    """`shared_html` for any value the requests of the event's page read alike and never change
    (a map of its players' live games, from which each viewer takes their own): `compute()`
    once per change, kept as the parts are."""
    seconds = settings.EVENT_PART_SECONDS
    count = pushes.pushes_so_far(group, pushed=after_push) if seconds > 0 else None
    if count is None:
        return compute()
    key = (group, part, count, get_language())
    found = _fresh(key, seconds)
    if found is not None:
        return found
    with _parts_lock:
        gate = _rendering.setdefault(key, threading.Lock())
    with gate:  # one computes, the others wait and take its result
        found = _fresh(key, seconds)
        if found is None:
            found = compute()
            with _parts_lock:
                _parts[key] = (found, clock())
                while len(_parts) > KEEP:
                    _parts.popitem(last=False)
    with _parts_lock:
        _rendering.pop(key, None)
    return found


def _fresh(key: tuple, seconds: float) -> Any:
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
    """Drop every part and memo this process keeps (tests)."""
    with _parts_lock:
        _parts.clear()
        _memos.clear()


_memos: dict[tuple, tuple[Any, float]] = {}


def memo(key: tuple, seconds: float, compute: Callable[[], Any]) -> Any:
    """`compute()`, shared by the requests of this process for `seconds`: for what no push
    announces but every viewer asks for (an arena's waiting players, from the sockets' presence),
    where a second's age is as good as now. Off, like the parts, with EVENT_PART_SECONDS 0."""
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
