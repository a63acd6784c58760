"""Scenario 3: presence. N live games, each with both players connected twice: one socket of
each player keeps playing (one move per game every half second, so pushes are on their way to
every socket all the time), the other — 2N sockets, half on each daphne — is closed all at
once, half with a close frame and half by resetting the connection.

After the stale window (a row not refreshed for GAME_PRESENCE_STALE_SECONDS is a dead
process's and is swept by the tick), each player must have exactly one presence row, the one of
the socket still open: any other row in `live_connection` is a *ghost* — a socket gone but
still counted as connected, which keeps its player from ever losing by abandonment (RULES 3).
The games' own counters (`<colour>_connections`) must say 1 too.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from bench.attack import fixtures
from bench.attack.client import AttackSocket, HandshakeRefused
from bench.attack.figures import Figures

SHOWN = ("requests", "ghosts", "unanswered", "tracebacks")


def cast(games: int) -> list[dict[str, Any]]:
    whites = fixtures.users([fixtures.name("pw", i) for i in range(games)])
    blacks = fixtures.users([fixtures.name("pb", i) for i in range(games)])
    found = []
    for white, black in zip(whites, blacks, strict=True):
        game = fixtures.live_game(white, black)
        found.append(
            {
                "id": game.pk,
                "white": white.pk,
                "black": black.pk,
                "cookies": {
                    "white": fixtures.session_cookie(white),
                    "black": fixtures.session_cookie(black),
                },
            }
        )
    return found


async def connect(port: int, path: str, cookie: str, gate: asyncio.Semaphore) -> AttackSocket:
    async with gate:  # a few handshakes at a time: a burst overflows daphne's listen backlog
        for attempt in range(6):
            try:
                return await AttackSocket.open(port, path, cookie)
            except (OSError, TimeoutError, HandshakeRefused):
                if attempt == 5:
                    raise
                await asyncio.sleep(0.3 * (attempt + 1))
    raise AssertionError("unreachable")


async def mover(game: dict, sockets: dict[str, AttackSocket], stop: asyncio.Event, out: dict):
    """Both players' kept sockets: random legal moves, one every half second per game."""
    rng = random.Random(game["id"])

    async def side(color: str) -> None:
        ws = sockets[color]
        moved_at = -1
        while not stop.is_set():
            try:
                message = await ws.next(1.0)
            except TimeoutError:
                continue
            if message is None:
                out["mover_closed"] += 1
                return
            if not isinstance(message, dict) or message.get("type") not in ("state", "played"):
                continue
            if message["status"] != "live":
                return
            if message["turn"] == color and message["legal_moves"] and message["ply"] > moved_at:
                await asyncio.sleep(0.5)
                moved_at = message["ply"]
                ws.send(
                    {"type": "move", "ply": moved_at, "move": rng.choice(message["legal_moves"])}
                )
                out["moves"] += 1

    await asyncio.gather(side("white"), side("black"))


def rows(game_ids: list[int]) -> dict[tuple[str, int], int]:
    from django.db.models import Count

    from live.models import Connection

    topics = [f"game:{pk}" for pk in game_ids]
    return {
        (r["topic"], r["user_id"]): r["n"]
        for r in Connection.objects.filter(topic__in=topics)
        .values("topic", "user_id")
        .annotate(n=Count("id"))
    }


def counters(game_ids: list[int]) -> list[tuple[int, int, int]]:
    from games.models import Game

    return list(
        Game.objects.filter(pk__in=game_ids).values_list(
            "pk", "white_connections", "black_connections"
        )
    )


async def run(games: list[dict], ports: list[int], figures: Figures, stale_seconds: float) -> None:
    gate = asyncio.Semaphore(10)
    a = ports[0]
    kept = []
    for game in games:
        path = f"/ws/game/{game['id']}/"
        pair = {}
        for color in ("white", "black"):
            pair[color] = await connect(a, path, game["cookies"][color], gate)
        kept.append(pair)
    victims = await asyncio.gather(
        *(
            connect(ports[(i + j) % len(ports)], f"/ws/game/{g['id']}/", g["cookies"][color], gate)
            for i, g in enumerate(games)
            for j, color in enumerate(("white", "black"))
        )
    )
    figures.add("requests", 2 * len(games) + len(victims))

    async def drain(ws: AttackSocket) -> None:  # victims read what is pushed to them
        while await ws.next(3600) is not None:
            pass

    readers = [asyncio.create_task(drain(ws)) for ws in victims]
    stop = asyncio.Event()
    out = {"moves": 0, "mover_closed": 0}
    movers = [asyncio.create_task(mover(g, s, stop, out)) for g, s in zip(games, kept, strict=True)]
    await asyncio.sleep(5)  # pushes flowing to every socket
    for i, ws in enumerate(victims):
        if i % 2:
            ws.abort()
        else:
            ws.close()
    closed_at = time.monotonic()
    for task in readers:
        task.cancel()
    ids = [g["id"] for g in games]
    await asyncio.sleep(5)
    soon = await asyncio.to_thread(fixtures.db, rows, ids)
    extra_soon = sum(n - 1 for n in soon.values() if n > 1)
    await asyncio.sleep(max(0.0, stale_seconds - (time.monotonic() - closed_at)))
    late = await asyncio.to_thread(fixtures.db, rows, ids)
    players = {(f"game:{g['id']}", g[c]) for g in games for c in ("white", "black")}
    ghosts = 0
    for key in sorted(players):
        n = late.get(key, 0)
        if n > 1:
            ghosts += n - 1
            figures.add(
                "ghosts", n - 1, detail=f"{key[0]} user {key[1]}: {n} rows for 1 open socket"
            )
        elif n == 0:
            figures.info.append(f"{key[0]} user {key[1]}: no row although a socket is open")
    wrong = [
        (pk, w, b)
        for pk, w, b in await asyncio.to_thread(fixtures.db, counters, ids)
        if (w, b) != (1, 1)
    ]
    stop.set()
    await asyncio.gather(*movers, return_exceptions=True)
    figures.add("requests", out["moves"])
    for pair in kept:
        for ws in pair.values():
            ws.close()
    figures.info.append(
        f"{len(games)} games, {len(victims)} sockets closed at once ({len(victims) // 2} reset) "
        f"while {out['moves']} moves were pushed; rows beyond the open sockets: {extra_soon} after "
        f"5 s, {ghosts} after {stale_seconds:.0f} s; games whose counters are not 1/1: {len(wrong)}"
        + (f" (e.g. game {wrong[0][0]}: {wrong[0][1]}/{wrong[0][2]})" if wrong else "")
    )
    if out["mover_closed"]:
        figures.info.append(f"{out['mover_closed']} kept sockets were closed by the server")
