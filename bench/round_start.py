"""What one player's round start costs the server (bench/evening.py runs it before each evening).

`players` players of a Swiss sit on the tournament's page (its one socket open: the
tournament's, its chat and the site's news), the servers otherwise idle. The tick starts the
tournament; each player's socket says "mygame", and their browser goes to the game as
live/static/live/mygame.js takes it there: the tournament page's socket closes, the game page
is loaded with whatever it fetches as it loads (the `hx-get` of every element whose
`hx-trigger` starts with "load"), and the page opens its one socket (`/ws/page/game/<id>/`:
the game, its chat and the site's news) and waits for the game's first state.

Measured: the server processes' CPU — every daphne, the Celery worker and beat (with their
children), PostgreSQL's backends (/proc) and Redis (its INFO) — from just before the start to
the last player's first state and a settling second, less what the same processes spend idle
over as long (measured just before: the tick's own work), divided by the players. **Target**:
at most 5 ms of server CPU per round-start player, and one HTTP request per game page view.
CPU is a count of work done, not of waiting: it holds on a busy machine, where latencies do not.
"""

from __future__ import annotations

import asyncio
import html
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.live import Socket  # noqa: E402

TARGET_MS_PER_PLAYER = 5.0
IDLE_SECONDS = 3.0  # the idle baseline's window
SETTLE_SECONDS = 1.0  # after the last first state: presence pushes and the like still running
TIMEOUT_SECONDS = 60.0

_TAG = re.compile(r"<[a-zA-Z][^>]*>")
_LOADS = re.compile(r'\bhx-trigger="(?:[^"]*[,\s])?load(?=[,"\s])')
_GET = re.compile(r'\bhx-get="([^"]+)"')


def fetched_on_load(page: str) -> list[str]:
    """The URLs a page's htmx fetches as soon as it is in (hx-trigger "load")."""
    urls = []
    for tag in _TAG.findall(page):
        found = _GET.search(tag)
        if found and _LOADS.search(tag):
            urls.append(html.unescape(found.group(1)))
    return urls


async def load_game_page(port: int, game_id: int, cookie: str) -> list[tuple[str, int, float]]:
    """A browser loading the game's page: the page, then what it fetches as it loads (at once,
    in parallel); (path, status, ms) of each request."""
    from bench.evening import http

    status, _head, text, ms = await http(port, "GET", f"/games/{game_id}/", cookie)
    done = [(f"/games/{game_id}/", status, ms)]
    fragments = fetched_on_load(text) if status == 200 else []

    async def fragment(path: str) -> tuple[str, int, float]:
        got, _h, _t, took = await http(port, "GET", path, cookie, HX_Request="true")
        return path, got, took

    done += await asyncio.gather(*(fragment(path) for path in fragments))
    return done


async def _first(sock: Socket, wanted: Callable[[dict], bool], deadline: float) -> dict | None:
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            message = await asyncio.wait_for(sock.receive(), left)
        except TimeoutError:
            return None
        if message is None or wanted(message):
            return message


async def _probe(ports, swiss_id: int, players: list[dict], cpu, start) -> dict:
    gate = asyncio.Semaphore(10)

    async def sit(player: dict) -> Socket:
        # The tournament page's one socket: the tournament's, its chat and the site's news
        # (docs/protocol.md, "Page sockets").
        port = ports[player["id"] % len(ports)]
        async with gate:
            return await Socket.connect(port, f"/ws/page/tournament/{swiss_id}/", player["cookie"])

    seated = await asyncio.gather(*(sit(p) for p in players))
    await asyncio.sleep(2.0)  # their own connects' work done
    idle_before = await asyncio.to_thread(cpu)
    idle_began = time.monotonic()
    await asyncio.sleep(IDLE_SECONDS)
    idle_after = await asyncio.to_thread(cpu)
    idle_span = time.monotonic() - idle_began
    # Each process's CPU a second while nothing happens but the tick.
    idle = {k: (idle_after[k] - idle_before.get(k, 0.0)) / idle_span for k in idle_after}

    before = await asyncio.to_thread(cpu)
    began = time.monotonic()
    deadline = began + TIMEOUT_SECONDS
    await asyncio.to_thread(start)
    opened: list[Socket] = []

    async def round_start(player: dict, page: Socket):
        port = ports[player["id"] % len(ports)]
        told = await _first(page, lambda m: m.get("what") == "mygame", deadline)
        page.close()  # the browser leaves the tournament's page for the game's
        if told is None:
            return None
        game_id = told["game"]
        requests = await load_game_page(port, game_id, player["cookie"])
        cookie = player["cookie"]
        # The page's one socket: the game, its chat and the site's news (docs/protocol.md,
        # "Page sockets"; live/static/live/socket.js).
        sock = await Socket.connect(port, f"/ws/page/game/{game_id}/", cookie)
        opened.append(sock)
        state = await _first(sock, lambda m: m.get("type") == "state", deadline)
        if state is None:
            return None
        return requests, time.monotonic() - began

    outcomes = await asyncio.gather(
        *(round_start(p, page) for p, page in zip(players, seated, strict=True)),
        return_exceptions=True,
    )
    last = max((o[1] for o in outcomes if isinstance(o, tuple)), default=0.0)
    await asyncio.sleep(max(0.0, began + last + SETTLE_SECONDS - time.monotonic()))
    after = await asyncio.to_thread(cpu)
    window = time.monotonic() - began
    for sock in opened:
        sock.close()

    done = [o for o in outcomes if isinstance(o, tuple)]
    failures = sorted({repr(o)[:100] for o in outcomes if isinstance(o, BaseException)})
    spent = {k: after[k] - before.get(k, 0.0) - idle.get(k, 0.0) * window for k in after}
    server = sum(spent.values())
    requests = [r for o in done for r in o[0]]
    page_ms = [ms for o in done for path, _s, ms in o[0] if path.startswith("/games/")]
    return {
        "players": len(players),
        "done": len(done),
        "failures": failures,
        "window s": window,
        "last state s": last,
        "server cpu s": server,
        "ms per player": server * 1000 / max(1, len(done)),
        "by process ms per player": {k: v * 1000 / max(1, len(done)) for k, v in spent.items()},
        "requests per game page": len(requests) / max(1, len(done)),
        "http errors": sum(1 for _p, status, _ms in requests if status != 200),
        "game page p50 ms": statistics.median(page_ms) if page_ms else float("nan"),
    }


def round_start_probe(ports, players_count: int, cpu_by_process: Callable[[], dict]) -> dict:
    """A Swiss of `players_count` started on the idle servers of `ports` (module docstring);
    its games are ended and the tournament closed afterwards, so the evening does not carry
    them."""
    from django.utils import timezone

    from bench.evening import make_swiss
    from games.models import Game
    from tournaments.models import Tournament

    swiss_id, players = make_swiss(players_count)

    def start() -> None:
        now = timezone.now()
        Tournament.objects.filter(pk=swiss_id).update(starts_at=now, next_due_at=now)

    try:
        return asyncio.run(_probe(ports, swiss_id, players, cpu_by_process, start))
    finally:
        Tournament.objects.filter(pk=swiss_id).update(status="finished", next_due_at=None)
        Game.objects.filter(
            event_type__model="tournament", event_id=swiss_id, status="live"
        ).update(status="finished", settled=True)


async def _parts(ports, games: dict[int, int], players: list[dict], cpu, ops: int) -> dict:
    """Each piece of a round start alone, `ops` times (ten at once), on servers where the games
    are open and nothing else happens: the server CPU (less the idle rate) per piece, in ms."""
    gate = asyncio.Semaphore(10)
    before = await asyncio.to_thread(cpu)
    await asyncio.sleep(IDLE_SECONDS)
    after = await asyncio.to_thread(cpu)
    idle = sum(after[k] - before.get(k, 0.0) for k in after) / IDLE_SECONDS

    def who(i: int) -> tuple[int, dict, int]:
        player = players[i % len(players)]
        return ports[i % len(ports)], player, games[player["id"]]

    async def socket_until(port, path, cookie, wanted) -> None:
        """Open, then a ping: its pong comes once the whole opening is done (a socket's
        messages are handled in turn), or the socket is closed (a guest's site socket)."""
        sock = await Socket.connect(port, path, cookie)
        try:
            sock.send({"type": "ping", "id": "opened"})
            await _first(
                sock, lambda m: m.get("type") == "pong" and wanted(m), time.monotonic() + 60
            )
        finally:
            sock.close()

    async def guest_socket(i):  # no cookie: no session or user read
        await socket_until(ports[i % len(ports)], "/ws/me/", "", lambda m: True)

    async def guest_page(i):  # a page without a database query: the guide's
        from bench.evening import http

        await http(ports[i % len(ports)], "GET", "/guida/senza-scacchiera/", "")

    async def game_page(i):
        port, player, game_id = who(i)
        await load_game_page(port, game_id, player["cookie"])

    async def site_socket(i):
        port, player, _game = who(i)
        await socket_until(port, "/ws/me/", player["cookie"], lambda m: True)

    async def game_socket(i):
        port, player, game_id = who(i)
        await socket_until(port, f"/ws/game/{game_id}/", player["cookie"], lambda m: True)

    async def chat_socket(i):
        port, player, game_id = who(i)
        await socket_until(port, f"/ws/chat/game/{game_id}/", player["cookie"], lambda m: True)

    async def page_socket(i):
        port, player, game_id = who(i)
        await socket_until(port, f"/ws/page/game/{game_id}/", player["cookie"], lambda m: True)

    figures = {}
    for name, piece in (
        ("guest socket (floor)", guest_socket),
        ("guest page without queries (floor)", guest_page),
        ("game page and its fetches", game_page),
        ("site socket to its first message", site_socket),
        ("game socket to its first state", game_socket),
        ("chat socket to its first message", chat_socket),
        ("game page socket (game, chat, site) to its opening", page_socket),
    ):

        async def one(i, piece=piece):
            async with gate:
                await piece(i)

        await asyncio.gather(*(one(i) for i in range(min(20, ops))))  # warm
        await asyncio.sleep(SETTLE_SECONDS)
        before = await asyncio.to_thread(cpu)
        began = time.monotonic()
        await asyncio.gather(*(one(i) for i in range(ops)))
        await asyncio.sleep(SETTLE_SECONDS)  # the closes' clean-up
        after = await asyncio.to_thread(cpu)
        window = time.monotonic() - began
        spent = sum(after[k] - before.get(k, 0.0) for k in after) - idle * window
        figures[name] = spent * 1000 / ops
    return figures


def parts_probe(ports, players_count: int, cpu_by_process: Callable[[], dict], ops: int) -> dict:
    """A Swiss of `players_count` started and its games opened, then `_parts` on them."""
    from django.utils import timezone

    from bench.evening import make_swiss
    from games.models import Game
    from tournaments.models import Tournament

    swiss_id, players = make_swiss(players_count)
    now = timezone.now()
    Tournament.objects.filter(pk=swiss_id).update(starts_at=now, next_due_at=now)
    live = Game.objects.filter(event_type__model="tournament", event_id=swiss_id, status="live")
    until = time.monotonic() + TIMEOUT_SECONDS
    while live.count() < players_count // 2 and time.monotonic() < until:
        time.sleep(0.5)
    games = {}
    for pk, white, black in live.values_list("pk", "white_id", "black_id"):
        games[white] = games[black] = pk
    try:
        return asyncio.run(
            _parts(ports, games, [p for p in players if p["id"] in games], cpu_by_process, ops)
        )
    finally:
        Tournament.objects.filter(pk=swiss_id).update(status="finished", next_due_at=None)
        live.update(status="finished", settled=True)


def report(probe: dict) -> str:
    """The probe's lines, as bench/evening.py prints them."""
    by = ", ".join(
        f"{k} {v:.1f}"
        for k, v in sorted(probe["by process ms per player"].items())
        if abs(v) >= 0.05
    )
    lines = [
        f"  round start: {probe['done']} of {probe['players']} players at their game in "
        f"{probe['last state s']:.2f} s; server CPU per round-start player "
        f"{probe['ms per player']:.1f} ms (target ≤ {TARGET_MS_PER_PLAYER:g}; {by}); "
        f"HTTP requests per game page view {probe['requests per game page']:.1f}, "
        f"game page p50 {probe['game page p50 ms']:.0f} ms",
    ]
    if probe["failures"] or probe["http errors"]:
        lines.append(
            f"  round start problems: HTTP {probe['http errors']}, {probe['failures'][:3]}"
        )
    return "\n".join(lines)


def main() -> int:
    """`python bench/round_start.py --players 100`: the probe alone, on two daphne, a worker
    and beat started for it (as bench/evening.py starts them), `--repeat` times on the same
    servers; exit 1 when a run misses the target."""
    import argparse
    import os
    import tempfile

    from bench.evening import ROUND_PAUSE_SECONDS, cpu_by_process
    from bench.live import django_setup, server_environment, start_servers
    from harness import Processes

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100, help="the Swiss's players (even)")
    parser.add_argument("--servers", type=int, default=2, help="daphne processes")
    parser.add_argument("--repeat", type=int, default=1, help="round starts, one after another")
    parser.add_argument(
        "--parts",
        type=int,
        default=0,
        metavar="N",
        help="then each piece of a round start alone, N times: the server CPU of each",
    )
    args = parser.parse_args()
    django_setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    log_dir = Path(tempfile.mkdtemp(prefix="bench-round-start-"))
    env = dict(server_environment(), ROUND_PAUSE_SECONDS=str(ROUND_PAUSE_SECONDS))
    site = Processes(log_dir, env)
    missed = 0
    try:
        ports = start_servers(site, args.servers)
        site.start_worker(node=f"bench-round-start-{os.getpid()}")
        site.start_beat()
        time.sleep(3)
        for _ in range(args.repeat):
            probe = round_start_probe(
                ports, args.players - args.players % 2, lambda: cpu_by_process(site)
            )
            print(report(probe))
            if probe["ms per player"] > TARGET_MS_PER_PLAYER or probe["requests per game page"] > 1:
                missed += 1
        if args.parts:
            parts = parts_probe(
                ports, args.players - args.players % 2, lambda: cpu_by_process(site), args.parts
            )
            for name, ms in parts.items():
                print(f"  {name}: {ms:.1f} ms of server CPU each")
    finally:
        site.stop_all()
    print(
        f"bench round start: {args.repeat - missed} of {args.repeat} met the target (logs in {log_dir})"
    )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
