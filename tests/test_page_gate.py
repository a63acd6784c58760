"""config.asgi's PageGate: at most HTTP_CONCURRENCY pages of a process at once, the others
waiting their turn on the event loop, every one served in the end."""

from __future__ import annotations

import asyncio

import pytest

from config.asgi import Pace, PageGate


async def _serve(limit: int, pages: int) -> tuple[int, int]:
    inside, most, done = 0, 0, 0
    go_on = asyncio.Event()

    async def page(scope, receive, send):
        nonlocal inside, most, done
        inside += 1
        most = max(most, inside)
        await go_on.wait()
        inside -= 1
        done += 1

    gate = PageGate(page, limit)
    served = [asyncio.create_task(gate({"type": "http"}, None, None)) for _ in range(pages)]
    while inside < min(limit, pages) if limit else inside < pages:
        await asyncio.sleep(0)  # let every page that may enter, enter
    for _ in range(10):
        await asyncio.sleep(0)  # and give the others their chance to (wrongly) enter too
    seen = most
    go_on.set()
    await asyncio.gather(*served)
    return seen, done


@pytest.mark.asyncio
async def test_pages_beyond_the_limit_wait_their_turn_and_are_all_served():
    assert await _serve(limit=2, pages=6) == (2, 6)


@pytest.mark.asyncio
async def test_static_files_pass_the_gate():
    passed = []

    async def page(scope, receive, send):
        passed.append(scope["path"])

    gate = PageGate(page, 1, free="/static/")
    gate.gate = asyncio.Semaphore(0)  # every page's turn taken
    await asyncio.wait_for(gate({"type": "http", "path": "/static/js/game.js"}, None, None), 1)
    assert passed == ["/static/js/game.js"]


@pytest.mark.asyncio
async def test_no_limit_lets_every_page_in():
    assert await _serve(limit=0, pages=6) == (6, 6)


@pytest.mark.asyncio
async def test_account_forms_take_turns_in_a_lane_of_their_own():
    """A flood of sign-ups or resets holds the lane, never the pages' turns: a page still goes
    in while the lane is full, and the lane's posts pass one at a time."""
    inside = {"lane": 0, "most": 0}
    hold = asyncio.Event()
    served = []

    async def app(scope, receive, send):
        if scope["method"] == "POST":
            inside["lane"] += 1
            inside["most"] = max(inside["most"], inside["lane"])
            await hold.wait()
            inside["lane"] -= 1
        served.append(scope["path"])

    gate = PageGate(app, 1, lane=("/accounts/signup/",))
    posts = [
        asyncio.create_task(
            gate({"type": "http", "method": "POST", "path": "/accounts/signup/"}, None, None)
        )
        for _ in range(5)
    ]
    for _ in range(10):
        await asyncio.sleep(0)
    # The lane is busy (one post in, four waiting): a page passes the pages' gate at once.
    await asyncio.wait_for(gate({"type": "http", "method": "GET", "path": "/"}, None, None), 1)
    assert served == ["/"] and inside["lane"] == 1
    hold.set()
    await asyncio.gather(*posts)
    assert inside["most"] == 1 and served.count("/accounts/signup/") == 5


def test_the_pace_lets_a_burst_through_then_one_per_interval_and_refuses_a_long_wait():
    pace = Pace(burst=3, rate=2, most=1.0)  # three at once, then one each half second
    assert [pace.wait(10.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert pace.wait(10.0) == 0.5
    assert pace.wait(10.0) == 1.0
    # A third waiting post would wait 1.5 s, over `most`: refused, and no token taken.
    assert pace.wait(10.0) is None
    assert pace.wait(10.5) == 1.0
    # Idle long enough, the bucket is full again: a burst passes once more.
    assert [pace.wait(100.0) for _ in range(3)] == [0.0, 0.0, 0.0]


@pytest.mark.asyncio
async def test_the_lane_keeps_its_pace_and_answers_429_past_the_wait():
    """Fails without the pace: a flood of posts passes one right after the other."""
    served: list[str] = []
    sent: list[dict] = []

    async def app(scope, receive, send):
        served.append(scope["path"])

    async def send(message):
        sent.append(message)

    gate = PageGate(app, 1, lane=("/accounts/",), lane_pace=Pace(1, 50, most=0.05))
    post = {"type": "http", "method": "POST", "path": "/accounts/password/reset/"}
    began = asyncio.get_running_loop().time()
    await asyncio.gather(*(gate(dict(post), None, send) for _ in range(5)))
    took = asyncio.get_running_loop().time() - began
    # One at once, then one each 20 ms up to 50 ms of waiting: three served, two refused.
    assert len(served) == 3 and took >= 0.035
    starts = [m for m in sent if m["type"] == "http.response.start"]
    assert [m["status"] for m in starts] == [429, 429]
    assert (b"retry-after", b"60") in starts[0]["headers"]
    # Pages never wait for the lane's pace.
    await asyncio.wait_for(gate({"type": "http", "method": "GET", "path": "/"}, None, send), 1)
    assert served[-1] == "/"
