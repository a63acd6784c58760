"""The walk of a move as the code takes it (docs/architecture.md, walk 1), traced.

A stop is the walk entering a function of another module of ours: a call from a different
file, or a coroutine of ours the event loop resumes. The pure leaves the walk uses are not
stops (the rules, `games.rules`; a model's own methods, `games/models.py`; the push
constructors, `live/messages.py`), nor is a connection's set-up (`live.locks` sets its lock
timeout when a thread opens one, `live.threads` checks it came before the message's answer). Traced with `sys.setprofile` on the event loop's thread and,
through the pool's public entry (`live.threads.database_sync_to_async`), on every socket
thread, while Black's move goes from Black's socket to both players' sockets of this process.

Fails when the walk changes and docs/architecture.md is not changed with it, when the move
goes back and forth in the game services (more than eight stops there, or a file of theirs
entered more than twice), or when any module is entered more than three times.
"""

from __future__ import annotations

import asyncio
import re
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings

from games.tests.test_consumers import at_ply, receive_until, seated
from live.threads import SOCKET_DB_THREADS, database_sync_to_async

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent
LEAVES = ("games/rules/", "games/models.py", "live/messages.py")
NOT_THE_WALK = {("live/locks.py", "_set_lock_timeout"), ("live/threads.py", "_connected")}
GENERATOR_FLAGS = 0x20 | 0x80 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR

# Black's socket reads the frame, the consumer hands the move to a socket thread and sends
# what it committed from the loop; this process's sockets of the game get it from the layer.
MOVER_LOOP = [
    ("live/sockets.py", "_read_client"),
    ("live/budget.py", "admit"),
    ("live/budget.py", "queued"),
    ("live/sockets.py", "__call__"),  # the socket's inbox loop, `_serve`, resumed
    ("live/budget.py", "taken"),
    ("games/consumers.py", "on_move"),
    ("live/sockets.py", "call"),
    ("live/threads.py", "run"),
    ("live/pushes.py", "send_collected"),
    ("live/layers.py", "group_send"),
]
SOCKET_THREAD = [
    ("live/threads.py", "_in_pool"),
    ("live/pushes.py", "collecting"),
    ("games/services/play.py", "game_move"),
    ("games/services/state.py", "now_ms"),
    ("games/services/memory.py", "take"),
    ("games/services/acting.py", "check_action"),
    ("games/services/store.py", "write_move_if_unchanged"),
    ("live/locks.py", "in_code_transaction"),
    ("games/services/memory.py", "remember"),
    ("games/services/state.py", "push_move_on_commit"),
    ("live/pushes.py", "group_send_on_commit"),
]
# In the opponent's process (here: this one, for both players' sockets; the mover's inbox
# loop is already on the walk).
RECEIVER = [
    ("live/sockets.py", "__call__"),
    ("games/consumers.py", "game_state"),
    ("games/services/memory.py", "heard"),
    ("live/sockets.py", "send"),
]


class Trace:
    def __init__(self) -> None:
        self.stops: list[tuple[str, str, str]] = []  # (thread, file, function)
        self._lock = threading.Lock()
        self._seen = threading.local()

    @staticmethod
    def _ours(filename: str) -> str | None:
        path = Path(filename)
        if not path.is_relative_to(ROOT) or ".venv" in path.parts or "tests" in path.parts:
            return None
        return path.relative_to(ROOT).as_posix()

    def profile(self, frame, event, arg) -> None:
        if event != "call":
            return
        here = self._ours(frame.f_code.co_filename)
        if here is None or here.startswith(LEAVES):
            return
        code = frame.f_code
        caller = None
        if code.co_flags & GENERATOR_FLAGS:
            seen = self._seen.__dict__.setdefault("frames", {})
            if id(frame) in seen:
                return  # resumed again: already on the walk
            seen[id(frame)] = frame  # held, so that no other frame takes its id
        back = frame.f_back
        while back is not None and caller is None:
            caller = self._ours(back.f_code.co_filename)
            back = back.f_back
        if caller is not None and caller.startswith(LEAVES):
            return
        if caller != here and (here, code.co_name) not in NOT_THE_WALK:
            with self._lock:
                self.stops.append((threading.current_thread().name, here, code.co_name))


def is_subsequence(wanted: list, stops: list) -> bool:
    found = iter(stops)
    return all(stop in found for stop in wanted)


async def on_every_socket_thread(profile) -> None:
    """Each socket thread of both lanes sets `profile` (one job per thread: each waits for all
    the others of its lane)."""
    for lane, count in (("db", SOCKET_DB_THREADS), ("play", settings.SOCKET_PLAY_THREADS)):
        everyone = threading.Barrier(count)

        def install(everyone=everyone) -> None:
            everyone.wait(timeout=10)
            sys.setprofile(profile)

        await asyncio.gather(*(database_sync_to_async(install, lane)() for _ in range(count)))


async def test_a_move_walks_one_way_as_the_architecture_page_says():
    _game, w, b = await seated(("e2e4",))
    trace = Trace()
    await on_every_socket_thread(trace.profile)
    sys.setprofile(trace.profile)
    try:
        await b.send_json_to({"type": "move", "ply": 1, "move": "e7e5"})
        await receive_until(w, at_ply(2))
        await receive_until(b, at_ply(2))
    finally:
        sys.setprofile(None)
        await on_every_socket_thread(None)
    await w.disconnect()
    await b.disconnect()

    loop = [(f, n) for t, f, n in trace.stops if t == threading.current_thread().name]
    pooled = [(f, n) for t, f, n in trace.stops if t.startswith("socket-play")]
    assert pooled[: len(SOCKET_THREAD)] == SOCKET_THREAD, pooled
    assert is_subsequence(MOVER_LOOP + RECEIVER[1:] + RECEIVER, loop), loop

    walk = MOVER_LOOP[:-2] + SOCKET_THREAD + MOVER_LOOP[-2:]
    entered = Counter(f for f, _ in walk)
    services = {f: n for f, n in entered.items() if f.startswith("games/services/")}
    assert max(services.values()) <= 2 and sum(services.values()) <= 8, services
    assert max(entered.values()) <= 3, entered
    # The page names every stop, file by file, in the order walked.
    page = (ROOT / "docs" / "architecture.md").read_text()
    walk_text = page[page.index("## Walk 1") : page.index("## Walk 2")]
    for file, function in [*walk, *RECEIVER]:
        line = rf"`{re.escape(file)}`[^\n]*?\b{re.escape(function)}\b"
        assert re.search(line, walk_text), f"docs/architecture.md, walk 1: no {file} {function}"
    print(f"walk 1: {len(walk)} stops in the mover's process, {len(RECEIVER)} in each receiver's")
