"""Pushes to channel groups, sent after commit (STYLE 4): the one way services broadcast.

`group_send_on_commit` registers the send with `transaction.on_commit`, so a rolled-back change
is never announced. A push that fails is logged, never raised: a page a little late (pages also
re-sync on reconnect), never a failed write.

Inside a socket consumer the database work runs in a worker thread; sending from there would
block that thread while the event loop does the send (`async_to_sync`), two thread switches per
push on the hottest path of the site (a move). So the consumer runs its calls inside
`collected()`: the pushes committed meanwhile are handed back in a list, and the consumer sends
them from the event loop itself (`live.sockets`). Everywhere else (views, Celery tasks) they
are sent at once, through one event loop kept in a thread of the process (`_Pusher`):
`async_to_sync` would build a new loop, and with it a new Redis connection, for every push —
three hundred of them when a 200-player round opens (bench/tournament.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable, Coroutine, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from celery import current_app
from channels.layers import get_channel_layer
from django.db import transaction

from live import messages

log = logging.getLogger(__name__)
_local = threading.local()

Push = tuple[str, dict[str, Any]]
SEND_TIMEOUT_SECONDS = 10.0
PUSH_TIMEOUT_SECONDS = 2.0


class _Pusher:
    """An event loop in a daemon thread, one per process (a forked Celery child starts its
    own), where synchronous code's pushes run; the channel layer keeps its Redis connection
    for that loop between pushes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pid = 0

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            alive = self._thread is not None and self._thread.is_alive()
            if self._loop is None or self._pid != os.getpid() or not alive:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name="pushes", daemon=True
                )
                self._thread.start()
                self._pid = os.getpid()
            return self._loop

    def run(self, make: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
        future = asyncio.run_coroutine_threadsafe(make(), self._running_loop())
        return future.result(SEND_TIMEOUT_SECONDS)


_pusher = _Pusher()


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send now, or hand the push to the consumer collecting in this thread."""
    outbox = getattr(_local, "outbox", None)
    if outbox is not None:
        outbox.append((group, message))
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        _pusher.run(lambda: layer.group_send(group, message))
    except Exception:
        log.exception("push to %s failed", group)


def group_send_on_commit(group: str, message: dict[str, Any]) -> None:
    transaction.on_commit(lambda: group_send(group, message))


# --- counted changes (a page's shared part is as new as the last change, events/shared_part.py) ---

COUNT_SECONDS = 2 * 24 * 3600  # a group's count is kept this long after its last push


def _count_key(group: str) -> str:
    from live import heartbeat

    return heartbeat.prefixed(f"pushes:{group}")


def _pushed_key(group: str) -> str:
    from live import heartbeat

    return heartbeat.prefixed(f"pushed:{group}")


# Count `ARGV[1]` more changes (0 or 1) and, with ARGV[3] "1", mark them all pushed: the pushed
# count only ever grows to the changes' count, whatever order two processes do this in.
_COUNT = """
local changes = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
if ARGV[3] == '1' and changes > tonumber(redis.call('GET', KEYS[2]) or '0') then
    redis.call('SET', KEYS[2], changes, 'EX', ARGV[2])
end
return changes
"""


def _count(group: str, *, more: int, pushed: bool) -> None:
    from live import heartbeat

    try:
        heartbeat.client().eval(
            _COUNT, 2, _count_key(group), _pushed_key(group), more, COUNT_SECONDS, int(pushed)
        )
    except Exception:
        log.warning("push to %s not counted", group, exc_info=True)


def count_push(group: str) -> None:
    """One more change announced to `group`, counted in Redis after its commit and before any
    push of it is sent: whatever a page reads after a change, pushed or not yet, is read at a
    count at least the change's."""
    _count(group, more=1, pushed=False)


def mark_pushed(group: str, *, more: int = 0) -> None:
    """Every change counted so far (and `more`) is about to be pushed to `group`: a page
    fetched because of this push reads a pushed count at least theirs (`pushes_so_far`)."""
    _count(group, more=more, pushed=True)


def pushes_so_far(group: str, *, pushed: bool = False) -> int | None:
    """How many changes `group` has been told of (`count_push`), or with `pushed` how many of
    them a push has gone out for (`mark_pushed`); None with Redis away."""
    from live import heartbeat

    try:
        key = _pushed_key(group) if pushed else _count_key(group)
        return int(heartbeat.client().get(key) or 0)
    except Exception:
        log.warning("pushes to %s not read", group, exc_info=True)
        return None


def group_send_counted(group: str, message: dict[str, Any]) -> None:
    mark_pushed(group, more=1)
    group_send(group, message)


def group_send_counted_on_commit(group: str, message: dict[str, Any]) -> None:
    """After commit, count the change as pushed, then send its push."""
    transaction.on_commit(lambda: group_send_counted(group, message))


@contextmanager
def collected() -> Iterator[list[Push]]:
    """Collect, instead of sending, the pushes made in this thread inside the block."""
    previous = getattr(_local, "outbox", None)
    _local.outbox = outbox = []
    try:
        yield outbox
    finally:
        _local.outbox = previous


def collecting(
    func: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[list[Push], Any, BaseException | None]:
    """`func(*args, **kwargs)` with its pushes `collected`: the outbox, its result and the
    error it raised (for the caller to raise once the pushes are out, `live.sockets.call`)."""
    with collected() as outbox:
        try:
            return outbox, func(*args, **kwargs), None
        except Exception as error:
            return outbox, None, error


async def send_collected(layer: Any, outbox: list[Push]) -> list[Push]:
    """Send collected pushes from the event loop, in the order they were committed; returns
    those that could not be sent (Redis away: each is given up after a couple of seconds, so a
    reply never hangs behind an outage)."""
    failed = []
    # The site's layer bounds every send itself (`live.layers`: one timer per connection, not
    # a timeout per push, bench/live.py); any other layer gets a timeout per push.
    bounded = getattr(layer, "bounded_sends", False)
    for group, message in outbox:
        try:
            if bounded:
                await layer.group_send(group, message)
            else:
                async with asyncio.timeout(PUSH_TIMEOUT_SECONDS):
                    await layer.group_send(group, message)
        except Exception:
            log.warning("push to %s failed", group, exc_info=True)
            failed.append((group, message))
    return failed


# --- the site socket (`/ws/me/`, live.consumers.UserConsumer) ----------------------------------


def user_group(user_id: int) -> str:
    """The group of one user's site-wide sockets (`/ws/me/`, docs/protocol.md)."""
    return f"user.{user_id}"


def user_changed_on_commit(
    user_ids: Iterable[int | None], what: messages.What, **data: Any
) -> None:
    """After commit, tell these users' pages that `what` changed for them (`challenges`,
    `mytournament`, `mygame`, …), with a little data for the page (a game's id): the page
    re-fetches that fragment or goes there (STYLE 7). A push lost on the way costs a fragment
    a little late: each also polls slowly."""
    message = messages.user_changed(what, **data)
    for pk in sorted({pk for pk in user_ids if pk is not None}):
        group_send_on_commit(user_group(pk), message)


def account_group(user_id: int) -> str:
    """The group every socket of a signed-in player joins, whatever its page
    (`live.sockets.LiveConsumer`): what ends them all, the account closed."""
    return f"account.{user_id}"


def account_closed_on_commit(user_ids: Iterable[int]) -> None:
    """After commit, close every open socket of these players (deleted or deactivated
    accounts): a page left open must not go on acting for an account that is gone."""
    for pk in sorted(set(user_ids)):
        group_send_on_commit(account_group(pk), messages.account_closed())


def member_group(place: str, user_id: int) -> str:
    """The group of one player's sockets on a place only its members read (a club's room,
    `club.<id>`): what tells them their membership ended."""
    return f"member.{place}.{user_id}"


def membership_ended_on_commit(place: str, user_ids: Iterable[int]) -> None:
    """After commit, tell these players' sockets on a members-only place that they are members
    no more (left, removed, the club dissolved): a page left open must not go on reading a
    room its viewer no longer belongs to."""
    for pk in sorted(set(user_ids)):
        group_send_on_commit(member_group(place, pk), messages.membership_ended(place))


# --- throttled pushes (a busy arena changes all the time) --------------------------------------


def group_send_throttled_on_commit(group: str, message: dict[str, Any], every_ms: int = 1000):
    """After commit, push to `group` at most once per `every_ms`, and never lose the last one.

    The first push of a window goes at once; one that comes while the window is open arms a
    single trailing push at its end (the `live.push` task), which carries the same message
    (a "changed" with no data, so the newest state is what the page fetches then). The window
    is kept in Redis, so every process shares it. Every change is counted (`count_push`),
    pushed at once or not: a page loaded inside the window must not be given a part rendered
    before it; each push marks what it carries (`mark_pushed`), so the pages fetching because
    of it can share one part per push (events/shared_part.py). With Redis away the push is
    simply sent."""
    transaction.on_commit(lambda: _send_throttled(group, message, every_ms))


def _send_throttled(group: str, message: dict[str, Any], every_ms: int) -> None:
    from live import heartbeat

    try:
        redis = heartbeat.client()
        if redis.set(heartbeat.prefixed(f"throttle:{group}"), 1, nx=True, px=every_ms):
            mark_pushed(group, more=1)
            group_send(group, message)
            return
        count_push(group)
        if redis.set(heartbeat.prefixed(f"trailing:{group}"), 1, nx=True, px=every_ms):
            # By name, from Celery's registry (live.apps imports live.tasks in every process):
            # the task module is above this one, which it calls.
            current_app.tasks["live.push"].apply_async(
                args=[group, message], countdown=every_ms / 1000, retry=False
            )
    except Exception:
        log.warning("throttled push to %s sent at once", group, exc_info=True)
        group_send(group, message)
