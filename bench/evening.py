"""A club's peak evening, measured whole (`make bench-evening`): everything at once on one machine.

On two daphne, a Celery worker and beat over the PostgreSQL and Redis of DATABASE_URL and
REDIS_URL (private ones from `make`), as the README deploys them (`pool=20`), after
``--warmup`` seconds and for ``--minutes``, all together:

- a Swiss of 200 players with double games, round after round (the players' page and site
  sockets open; each "mygame" push opens the game, played with random moves or resigned);
- an arena of 300 players, re-paired as their games end (bench/arena.py's players);
- 600 other games played at one move per game every ``--interval`` seconds (bench/live.py's
  games), with spectators on their sockets;
- 2,000 spectator sockets in all: on those games and on the tournament's and the arena's pages;
- the players re-fetching their event's page as the live pages do (`Refresher`, as
  static/js/events.js): a Swiss player's at each new round and on each push between their
  games, an arena player's on each push while they wait; and loading their game's page, and
  the two notices it fetches once in, at each "mygame", which takes their browser away from
  the event's page until the game ends;
- sign-ups and log-ins through the forms (the password hashed as deployed);
- the reminders of 200 players of a tournament starting in 30 minutes, falling due mid-window
  (bench/reminders.py).

It prints move latency p50/p99; the Swiss round turnaround (the last game of a round ending to
every game of the next round open and pushed, less the configured pause between rounds,
``ROUND_PAUSE_SECONDS``, a rule's pause and not the server's work); the arena's next game p99;
HTTP p50/p99 by page; Celery queue wait p99 by task (the periodic tasks from the expiry beat
stamps on them, the tasks sent with a countdown from their eta; a task sent at once carries no
time of sending and is not counted); database connections opened (the worker's per minute, and
PostgreSQL's sessions in all); CPU by process; daphne's RSS per socket; errors and tracebacks.

Targets (docs/benchmarks.md): moves p99 < 100 ms, Swiss turnaround p99 < 3 s, arena next game
p99 < 3 s, pages p99 < 300 ms, queue wait p99 < 1 s, the worker's connections per minute at
most its concurrency, no error and no traceback. Exit 1 if one is missed. ``--repeat N`` runs N
evenings (new servers and events each time) and says how many met every target. ``--scale``
multiplies every count (a quick look: ``--scale 0.25 --minutes 2``). ``--page-servers N``
adds N daphne that serve the pages alone (the socket daphne then serve only sockets), the
deployment that keeps a round start's page fetches off the sockets' processes.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import re
import statistics
import sys
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.arena import make_arena, player_loop  # noqa: E402
from bench.live import (  # noqa: E402
    LAG_PROBE_SECONDS,
    Socket,
    connect_game,
    django_setup,
    open_games,
    play_game,
    postgres_cpu_seconds,
    process_cpu_seconds,
    redis_cpu_seconds,
    server_environment,
    session_cookie,
    start_servers,
)
from bench.reminders import RUNS_ENV, connections_opened, make_reminded_tournament  # noqa: E402
from bench.reminders import task_runs as worker_task_runs  # noqa: E402
from bench.round_start import load_game_page, round_start_probe  # noqa: E402
from bench.round_start import report as round_start_report  # noqa: E402
from harness import Processes  # noqa: E402

TARGETS = {
    "moves p99 ms": 100.0,
    "swiss turnaround p99 s": 3.0,
    "arena next game p99 s": 3.0,
    "pages p99 ms": 300.0,
    "queue wait p99 s": 1.0,
}
ROUND_PAUSE_SECONDS = 1  # the pause between rounds in this bench (RULES 4.8: a setting)
WORKER_CONCURRENCY = 2  # deploy/systemd/circolo-worker.service
LOGIN_PASSWORD = "serata-al-circolo-1"


def pct(values, q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


# --- a tiny HTTP client (the pages a player's browser fetches) -------------------------------


async def http(port: int, method: str, path: str, cookie: str = "", body: str = "", **headers):
    """(status, response headers as one text, body text, milliseconds)."""
    began = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    if cookie:
        lines.append(f"Cookie: {cookie}")
    for name, value in headers.items():
        lines.append(f"{name.replace('_', '-')}: {value}")
    if method == "POST":
        lines += [
            "Content-Type: application/x-www-form-urlencoded",
            f"Content-Length: {len(body.encode())}",
            f"Origin: http://127.0.0.1:{port}",
            f"Referer: http://127.0.0.1:{port}{path}",
        ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n" + body).encode())
    raw = await reader.read()
    writer.close()
    ms = (time.perf_counter() - began) * 1000
    head, _, text = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head else 0
    return status, head.decode("latin1"), text.decode(errors="replace"), ms


def _cookie(head: str, name: str) -> str:
    found = re.search(rf"(?im)^set-cookie: {name}=([^;\r\n]+)", head)
    return found.group(1) if found else ""


async def sign_up_and_log_in(ports, logins, deadline, measure_from, out, every: float, tag: str):
    """Through the forms, as a browser: a sign-up every `every` seconds and two log-ins."""
    from urllib.parse import urlencode

    n = 0
    while True:
        pause = every * (0.5 + random.random())
        if time.perf_counter() + pause >= deadline:
            return
        await asyncio.sleep(pause)
        n += 1
        port = ports[n % len(ports)]
        for kind, path, fields in (
            (
                "sign-up",
                "/accounts/signup/",
                {
                    "username": f"ev{tag}{n}",
                    "email": f"ev{tag}{n}@example.org",
                    "password1": LOGIN_PASSWORD,
                    "password2": LOGIN_PASSWORD,
                },
            ),
            ("log-in", "/accounts/login/", {"username": logins[n % len(logins)], "password": LOGIN_PASSWORD}),
            ("log-in", "/accounts/login/", {"username": logins[(n + 1) % len(logins)], "password": LOGIN_PASSWORD}),
        ):  # fmt: skip
            status, head, text, ms_get = await http(port, "GET", path)
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text)
            csrf = _cookie(head, "csrftoken")
            if status != 200 or token is None:
                out["http_errors"].append(f"GET {path} {status}")
                continue
            fields = {**fields, "csrfmiddlewaretoken": token.group(1)}
            status, _head, _text, ms_post = await http(
                port, "POST", path, f"csrftoken={csrf}", urlencode(fields)
            )
            if status != 302:  # a valid form goes on to the next page
                out["http_errors"].append(f"POST {path} {status}")
            if time.perf_counter() >= measure_from:
                out["pages"].setdefault(f"{kind} form", []).append(ms_get)
                out["pages"].setdefault(f"{kind} sent", []).append(ms_post)


# How a page asks: htmx answering a push of the page's socket (static/js/events.js), htmx
# fetching a fragment, the browser loading a whole page.
ASKED = {
    "push": {"HX_Request": "true", "X_Event_Refresh": "push"},
    "fragment": {"HX_Request": "true"},
    "page": {},
}


async def fetch_page(port, path, cookie, kind, measure_from, out, *, asked="push") -> None:
    """An event page's live part, as htmx fetches it when the page's socket says "changed";
    or a fragment, or a whole page (`asked`)."""
    headers = ASKED[asked]
    status, _head, _text, ms = await http(port, "GET", path, cookie, **headers)
    if status != 200:
        out["http_errors"].append(f"GET {path} {status}")
    elif time.perf_counter() >= measure_from:
        out["pages"].setdefault(kind, []).append(ms)
        out["page_at"].append((time.perf_counter(), ms))


class Refresher:
    """One open event page's refresh, as static/js/events.js does it: a push schedules one fetch
    a random part of the event's spread later (events/views.py, `refresh_spread_ms`), at least a
    spread after the page's last fetch, and the pushes that come while it waits are answered by
    it; one that comes during the fetch asks for one more, once the fragment is in."""

    SETTLE = 0.1  # events.js's SETTLE_MS

    def __init__(self, spread_s: float, fetch) -> None:
        self.spread, self.fetch = spread_s, fetch
        self.waiting: asyncio.Task | None = None
        self.fetching = self.pending = False
        self.last = float("-inf")

    def push(self) -> None:
        if self.fetching:
            self.pending = True
        elif self.waiting is None:
            self.waiting = asyncio.create_task(self._after(0.0))

    async def _after(self, least: float) -> None:
        wait = max(least, random.random() * self.spread, self.last + self.spread - time.monotonic())
        await asyncio.sleep(wait)
        self.waiting, self.fetching, self.pending = None, True, False
        self.last = time.monotonic()
        try:
            await self.fetch()
        finally:
            self.fetching = False
            if self.pending:
                self.waiting = asyncio.create_task(self._after(self.SETTLE))


async def watch(port, path, deadline, gate) -> None:
    """A spectator on a page's socket: reads everything, says nothing."""
    async with gate:
        ws = await Socket.connect(port, path, "")
    try:
        while time.perf_counter() < deadline:
            if await asyncio.wait_for(ws.receive(), deadline - time.perf_counter()) is None:
                return
    except TimeoutError:
        pass
    finally:
        ws.close()


def client_process(part: dict, ports, args, ready, go, queue) -> None:
    async def main():
        out = {
            "latencies": [], "sent_at": [], "moves": 0, "errors": 0, "error_codes": {},
            "finished": 0, "stalled": [], "next_game_ms": [], "games_ended": 0,
            "swiss": {"opened": [], "ended": [], "next_game_ms": [], "games_ended": 0},
            "pages": {}, "page_at": [], "http_errors": [], "lags": [], "game_page_requests": [],
        }  # fmt: skip
        gate = asyncio.Semaphore(10)
        games = part["games"]
        sockets = await asyncio.gather(*(connect_game(g, ports, gate) for g in games))
        ready.put(len(games))
        await asyncio.get_running_loop().run_in_executor(None, go.wait)
        measure_from = time.perf_counter() + args.warmup
        deadline = measure_from + args.minutes * 60
        swiss, arena = part["swiss_id"], part["arena_id"]
        rounds_seen: dict[int, int] = {}

        refreshers: list[Refresher] = []

        page_ports = part["page_ports"] or ports

        # The players whose browser is on their game's page, not their event's: from "mygame"
        # to their game's end, as the event's socket tells (player_loop's `in_game`).
        at_game: set[int] = set()

        def refresher(player, path: str, kind: str, spread_s: float) -> Refresher:
            port = page_ports[player["id"] % len(page_ports)]

            async def fetch() -> None:
                if player["id"] not in at_game:  # the page was left for the game meanwhile
                    await fetch_page(port, path, player["cookie"], kind, measure_from, out)

            found = Refresher(spread_s, fetch)
            refreshers.append(found)
            return found

        loads: set[asyncio.Task] = set()

        def game_page(player):
            """The site socket's "mygame" takes the browser to the game's page (mygame.js)."""
            port = page_ports[player["id"] % len(page_ports)]

            async def visit(game_id: int) -> None:
                # The page, then whatever it fetches once it is in (hx-trigger "load").
                requests = await load_game_page(port, game_id, player["cookie"])
                out["game_page_requests"].append(len(requests))
                for path, status, ms in requests:
                    kind = "game page" if path.startswith("/games/") else "game page's fragments"
                    if status != 200:
                        out["http_errors"].append(f"GET {path} {status}")
                    elif time.perf_counter() >= measure_from:
                        out["pages"].setdefault(kind, []).append(ms)
                        out["page_at"].append((time.perf_counter(), ms))

            def load(game_id: int) -> None:
                at_game.add(player["id"])
                task = asyncio.create_task(visit(game_id))
                loads.add(task)
                task.add_done_callback(loads.discard)

            return load

        def tournament_page(player):
            page = refresher(
                player, f"/tournaments/{swiss}/", "tournament page", part["swiss_spread"]
            )

            async def on_page(message, in_game):
                # At each new round the player looks at the new pairings and standings, unless
                # their new game took them away first; between their games their page is open
                # and follows every push (its game's page while they play).
                if not in_game:
                    at_game.discard(player["id"])
                round_number = message.get("round", 0)
                if round_number != rounds_seen.get(player["id"]):
                    rounds_seen[player["id"]] = round_number
                    page.push()
                elif not in_game:
                    page.push()

            return on_page

        def arena_page(player):
            page = refresher(player, f"/arenas/{arena}/", "arena page", part["arena_spread"])

            async def on_page(message, in_game):
                if not in_game:  # its page is open only while the player waits for a game
                    at_game.discard(player["id"])
                    page.push()

            return on_page

        async def lag_monitor():
            """How late this client's own loop wakes: a busy client shows up as latency of the
            server's that the server did not cause."""
            while time.perf_counter() < deadline:
                asked = time.perf_counter()
                await asyncio.sleep(LAG_PROBE_SECONDS)
                if asked >= measure_from:
                    out["lags"].append((time.perf_counter() - asked - LAG_PROBE_SECONDS) * 1000)

        tasks = [
            lag_monitor(),
            *(
                play_game(g, s, args.interval, deadline, measure_from, out)
                for g, s in zip(games, sockets, strict=True)
            ),
            *(
                player_loop(
                    f"/ws/page/tournament/{swiss}/",
                    p,
                    ports,
                    args.move_every,
                    deadline,
                    measure_from,
                    out["swiss"],
                    gate,
                    tournament_page(p),
                    game_page(p),
                )  # fmt: skip
                for p in part["swiss_players"]
            ),
            *(
                player_loop(
                    f"/ws/page/arena/{arena}/",
                    p,
                    ports,
                    args.move_every,
                    deadline,
                    measure_from,
                    out,
                    gate,
                    arena_page(p),
                    game_page(p),
                )  # fmt: skip
                for p in part["arena_players"]
            ),
            *(
                watch(ports[i % len(ports)], path, deadline, gate)
                for i, path in enumerate(part["watched_pages"])
            ),
            sign_up_and_log_in(
                page_ports,
                part["logins"],
                deadline,
                measure_from,
                out,
                part["signup_every"],
                part["tag"],
            ),  # fmt: skip
        ]
        try:
            outcomes = await asyncio.wait_for(
                asyncio.gather(*tasks, return_exceptions=True), deadline - time.perf_counter() + 15
            )
        except TimeoutError:
            outcomes = []
            out["http_errors"].append("a client part still running 15 s after the end")
        for page in refreshers:  # a fetch still waiting when the evening ends is not made
            if page.waiting is not None:
                page.waiting.cancel()
        for task in list(loads):
            task.cancel()
        out["client_failures"] = sorted(
            {repr(o)[:120] for o in outcomes if isinstance(o, BaseException)}
        )
        return out

    out = asyncio.run(main())
    out["cpu_seconds"] = time.process_time()  # the whole client process, warm-up included
    queue.put(out)


# --- the evening ----------------------------------------------------------------------------


def make_swiss(n: int):
    """A Swiss of `n` players with double games (RULES 4.5), due to start when told."""
    from bench.tournament import make_tournament
    from tournaments.models import Tournament

    tournament = make_tournament(n, uuid.uuid4().hex[:6])
    Tournament.objects.filter(pk=tournament.pk).update(legs=2, base_seconds=600, increment_seconds=0, cadence="rapid")  # fmt: skip
    players = [
        {"id": r.player_id, "cookie": session_cookie(r.player)}
        for r in tournament.registrations.select_related("player")
    ]
    return tournament.pk, players


def make_logins(n: int, tag: str) -> list[str]:
    from django.contrib.auth.hashers import make_password

    from accounts.models import User

    password = make_password(LOGIN_PASSWORD)
    names = [f"evl{tag}{i}" for i in range(n)]
    User.objects.bulk_create(User(username=name, password=password) for name in names)
    return names


def tree_cpu_seconds(pid: int) -> float:
    """CPU so far of a process and its children (a prefork worker)."""
    total = process_cpu_seconds(pid)
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        total += sum(tree_cpu_seconds(int(child)) for child in children)
    return total


def rss_mb(pid: int) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan")
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024


def cpu_by_process(site: Processes) -> dict[str, float]:
    cpu = {name: tree_cpu_seconds(proc.pid) for name, proc in site.running.items()}
    cpu["postgresql"] = postgres_cpu_seconds()
    cpu["redis"] = redis_cpu_seconds()
    return cpu


def sessions_so_far() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


def swiss_turnarounds(swiss_id: int, opened, ended, measure_from: float) -> list[float]:
    """Per round in the window: its first leg's last game open and pushed, less the previous
    round's last game ending, less the pause between rounds (seconds)."""
    from tournaments.models import Pairing

    first_legs: dict[int, list[int]] = {}
    last_legs: dict[int, list[int]] = {}
    for number, game1, game2 in Pairing.objects.filter(round__tournament_id=swiss_id).values_list(
        "round__number", "game1_id", "game2_id"
    ):
        if game1:
            first_legs.setdefault(number, []).append(game1)
        if game2 or game1:
            last_legs.setdefault(number, []).append(game2 or game1)
    opened_at: dict[int, float] = {}
    for game, at in opened:
        opened_at[game] = max(at, opened_at.get(game, 0.0))
    ended_at: dict[int, float] = {}
    for game, at in ended:
        ended_at[game] = max(at, ended_at.get(game, 0.0))
    turnarounds = []
    for number, games in sorted(first_legs.items()):
        before = last_legs.get(number - 1)
        if not before or any(g not in ended_at for g in before):
            continue
        if any(g not in opened_at for g in games):
            continue
        last_end = max(ended_at[g] for g in before)
        if last_end >= measure_from:
            turnarounds.append(max(opened_at[g] for g in games) - last_end - ROUND_PAUSE_SECONDS)
    return turnarounds


def queue_waits(runs, start: float, end: float) -> dict[str, list[float]]:
    """Seconds each task waited in the queue, by task: the periodic ones from the expiry beat
    stamped (sent at expiry less its window, config/celery.py), those sent with a countdown
    from their eta."""
    from config.celery import TICK_SECONDS

    expiry_window = max(5.0, TICK_SECONDS * 5)
    waits: dict[str, list[float]] = {}
    for name, began, _end, eta, expires in runs:
        if not start <= began <= end:
            continue
        if eta:
            sent = datetime.fromisoformat(eta).timestamp()
        elif expires:
            sent = datetime.fromisoformat(expires).timestamp() - expiry_window
        else:
            continue
        waits.setdefault(name, []).append(max(0.0, began - sent))
    return waits


def log_problems(log_dir: Path) -> tuple[int, int]:
    """(error lines, tracebacks) in the processes' logs."""
    errors = tracebacks = 0
    for log in log_dir.glob("*.log"):
        text = log.read_text(errors="replace")
        tracebacks += text.count("Traceback (most recent call last)")
        errors += len(re.findall(r"\bERROR\b", text))
    return errors, tracebacks


def run_once(args, run: int) -> dict:
    from django.utils import timezone

    from arena.models import Arena
    from events.views import refresh_spread_ms
    from tournaments.models import Tournament

    scale = args.scale
    tag = uuid.uuid4().hex[:5]
    log_dir = (
        Path(os.environ.get("BENCH_LOG_DIR", "/tmp")) / f"bench-evening-{os.getpid()}" / str(run)
    )
    log_dir.mkdir(parents=True, exist_ok=True)
    swiss_id, swiss_players = make_swiss(max(8, round(200 * scale)))
    arena_id, arena_players = make_arena(max(4, round(300 * scale)))
    n_games = max(2, round(600 * scale))
    spectators = round(2000 * scale)
    per_game = max(0, round(spectators / 2 / n_games))
    games = open_games(n_games, "chess", 0, per_game)
    page_watchers = max(0, spectators - per_game * n_games)
    # The event pages' one sockets, as a guest's browser opens them (docs/protocol.md).
    pages = [f"/ws/page/tournament/{swiss_id}/", f"/ws/page/arena/{arena_id}/"] * (
        page_watchers // 2
    )
    logins = make_logins(20, tag)
    # Reminders due in the middle of the window (bench/reminders.py).
    middle = args.warmup + args.minutes * 30 + 20
    reminded, _moment, _addresses = make_reminded_tournament(max(4, round(200 * scale)), middle)

    runs_key = f"bench-evening:{os.getpid()}:{run}:{tag}"
    env = dict(
        server_environment(),
        ROUND_PAUSE_SECONDS=str(ROUND_PAUSE_SECONDS),
        SIGNUP_ADDRESS_LIMIT="100000",
        SIGNUP_GLOBAL_LIMIT="100000",
        **{RUNS_ENV: runs_key},
    )
    from live import heartbeat

    runs_key = heartbeat.prefixed(runs_key)
    env[RUNS_ENV] = runs_key
    site = Processes(log_dir, env)
    try:
        ports = start_servers(site, 2)
        # Pages only, as a deployment sending /ws/ to the others would run them.
        page_ports = start_servers(site, args.page_servers, name="pages")
        site.start_worker(node=f"bench-evening-{os.getpid()}", include=["bench.reminders"])
        site.start_beat()
        time.sleep(3)
        # A round start alone on the idle servers: its CPU per player (bench/round_start.py).
        probe = round_start_probe(
            ports + page_ports, len(swiss_players) - len(swiss_players) % 2,
            lambda: cpu_by_process(site),
        )  # fmt: skip
        clients = args.clients
        parts = [
            {
                "games": games[i::clients],
                "swiss_id": swiss_id,
                "arena_id": arena_id,
                "swiss_players": swiss_players[i::clients],
                "arena_players": arena_players[i::clients],
                "watched_pages": pages[i::clients],
                "page_ports": page_ports,
                "logins": logins,
                "signup_every": 10.0 * clients,
                "tag": f"{tag}{i}",
                "swiss_spread": refresh_spread_ms(len(swiss_players)) / 1000,
                "arena_spread": refresh_spread_ms(len(arena_players)) / 1000,
            }
            for i in range(clients)
        ]
        queue: multiprocessing.Queue = multiprocessing.Queue()
        ready: multiprocessing.Queue = multiprocessing.Queue()
        go = multiprocessing.Event()
        procs = [
            multiprocessing.Process(target=client_process, args=(part, ports, args, ready, go, queue))
            for part in parts
        ]  # fmt: skip
        for p in procs:
            p.start()
        for _ in procs:
            ready.get(timeout=300)
        go.set()
        began = time.perf_counter()
        # The events start now: the tick starts the Swiss; the arena pairs whoever waits.
        now = timezone.now()
        Tournament.objects.filter(pk=swiss_id).update(starts_at=now, next_due_at=now)
        Arena.objects.filter(pk=arena_id).update(
            starts_at=now - timedelta(seconds=1), next_due_at=now
        )
        time.sleep(args.warmup)
        wall_start = time.time()
        cpu_before, sessions_before = cpu_by_process(site), sessions_so_far()
        time.sleep(args.minutes * 60)
        cpu_after, sessions_after = cpu_by_process(site), sessions_so_far()
        wall_end = time.time()
        rss = {
            name: rss_mb(proc.pid)
            for name, proc in site.running.items()
            if name.startswith("server")
        }
        results = [queue.get(timeout=300) for _ in procs]
        for p in procs:
            p.join(timeout=30)
    finally:
        site.stop_all()
    for model, pk in ((Tournament, swiss_id), (Tournament, reminded.pk), (Arena, arena_id)):
        model.objects.filter(pk=pk).update(status="finished", next_due_at=None)

    seconds = args.minutes * 60
    # Client times are perf_counter of their own process: the same clock on Linux (monotonic).
    measure_from = began + args.warmup
    moves = [x for r in results for x in r["latencies"]]
    swiss_opened = [x for r in results for x in r["swiss"]["opened"]]
    swiss_ended = [x for r in results for x in r["swiss"]["ended"]]
    turnarounds = swiss_turnarounds(swiss_id, swiss_opened, swiss_ended, measure_from)
    arena_waits = [x / 1000 for r in results for x in r["next_game_ms"]]
    page_ms: dict[str, list[float]] = {}
    for r in results:
        for kind, values in r["pages"].items():
            page_ms.setdefault(kind, []).extend(values)
    all_pages = [x for v in page_ms.values() for x in v]
    runs = worker_task_runs(runs_key, full=True)
    waits = queue_waits(runs, wall_start, wall_end)
    all_waits = [x for v in waits.values() for x in v]
    opened = [t for t in connections_opened(runs_key) if wall_start <= t <= wall_end]
    per_minute = len(opened) / args.minutes
    log_errors, tracebacks = log_problems(log_dir)
    socket_errors = sum(r["errors"] for r in results)
    http_errors = [e for r in results for e in r["http_errors"]]
    sockets_total = (
        2 * n_games
        + per_game * n_games
        + 2 * len(swiss_players)
        + 2 * len(arena_players)
        + len(pages)
    )

    figures = {
        "moves p99 ms": pct(moves, 0.99),
        "swiss turnaround p99 s": pct(turnarounds, 0.99),
        "arena next game p99 s": pct(arena_waits, 0.99),
        "pages p99 ms": pct(all_pages, 0.99),
        "queue wait p99 s": pct(all_waits, 0.99),
    }
    missed = [k for k, target in TARGETS.items() if not figures[k] < target]
    if per_minute > WORKER_CONCURRENCY:
        missed.append("worker connections per minute")
    problems = socket_errors + len(http_errors) + log_errors + tracebacks
    if problems:
        missed.append("errors")

    print(f"run {run}: {len(swiss_players)}-player Swiss (double games), {len(arena_players)}-player arena, "
          f"{n_games} games, {sockets_total} sockets, {args.minutes:g} min after {args.warmup:g} s")  # fmt: skip
    print(
        f"  moves: p50 {pct(moves, 0.5):.1f} ms, p99 {figures['moves p99 ms']:.1f} ms over {len(moves)} moves"
    )
    print(f"  Swiss round turnaround: p50 {pct(turnarounds, 0.5):.2f} s, p99 {figures['swiss turnaround p99 s']:.2f} s "
          f"over {len(turnarounds)} rounds (less the {ROUND_PAUSE_SECONDS} s pause)")  # fmt: skip
    print(f"  arena next game: p50 {pct(arena_waits, 0.5):.2f} s, p99 {figures['arena next game p99 s']:.2f} s "
          f"over {len(arena_waits)} games")  # fmt: skip
    for kind, values in sorted(page_ms.items()):
        print(
            f"  page {kind}: p50 {pct(values, 0.5):.0f} ms, p99 {pct(values, 0.99):.0f} ms ({len(values)})"
        )
    for name, values in sorted(waits.items()):
        print(
            f"  queue wait {name}: p99 {pct(values, 0.99) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms ({len(values)})"
        )
    print(round_start_report(probe))
    views = [n for r in results for n in r["game_page_requests"]]
    if views:
        print(
            f"  HTTP requests per game page view: {statistics.fmean(views):.1f} ({len(views)} views)"
        )
    print(f"  database connections opened: worker {len(opened)} ({per_minute:.1f}/min, at most "
          f"{WORKER_CONCURRENCY}), PostgreSQL sessions {sessions_after - sessions_before} in all")  # fmt: skip
    cpu = {k: (cpu_after[k] - cpu_before.get(k, 0.0)) / seconds for k in cpu_after}
    print("  CPU (share of one core): " + ", ".join(f"{k} {v:.0%}" for k, v in sorted(cpu.items())))
    # Every server process (the clients aside): the machine's cost of an evening's minute.
    server_per_minute = sum(cpu.values()) * 60
    print(
        f"  server CPU per evening-minute: {server_per_minute:.1f} s ({sum(cpu.values()):.2f} cores)"
    )
    per_daphne = sockets_total / max(1, len(rss))
    print("  daphne RSS: " + ", ".join(f"{k} {v:.0f} MB" for k, v in sorted(rss.items()))
          + f" ({statistics.fmean(rss.values()) * 1024 / per_daphne:.0f} KB per socket)")  # fmt: skip
    print(f"  errors: socket {socket_errors}, HTTP {len(http_errors)} {sorted(set(http_errors))[:5]}, "
          f"log ERROR lines {log_errors}, tracebacks {tracebacks} (logs in {log_dir})")  # fmt: skip
    lags = [x for r in results for x in r["lags"]]
    print(f"  clients: their loops late p50 {pct(lags, 0.5):.1f} ms, p99 {pct(lags, 0.99):.1f} ms; "
          f"CPU {sum(r['cpu_seconds'] for r in results):.0f} s in all (warm-up included)")  # fmt: skip
    if args.timeline:
        sent = [x for r in results for x in r["sent_at"]]
        print("  moves p99 by 10 s: " + p99_by_ten_seconds(zip(sent, moves, strict=True)))
        pages_at = [(at - measure_from, ms) for r in results for at, ms in r["page_at"]]
        print("  pages p99 by 10 s: " + p99_by_ten_seconds(pages_at))
        opened_at = sorted(
            {round(at - measure_from) for _g, at in swiss_opened if at >= measure_from}
        )
        print(f"  Swiss games opened at (s): {opened_at[:40]}")
    failures = sorted({f for r in results for f in r.get("client_failures", [])})
    if failures:
        print(f"  client failures (the bench's own): {failures[:5]}")
    print("  " + ("every target met" if not missed else "missed: " + ", ".join(missed)))
    return {
        **figures,
        "missed": missed,
        "worker connections/min": per_minute,
        "round start ms per player": probe["ms per player"],
        "server cpu s per minute": server_per_minute,
    }


def p99_by_ten_seconds(timed) -> str:
    """The p99 of each 10 s of the measured window, from (seconds into it, milliseconds)."""
    buckets: dict[int, list[float]] = {}
    for at, ms in timed:
        if at >= 0:
            buckets.setdefault(int(at // 10), []).append(ms)
    return " ".join(f"{pct(v, 0.99):.0f}" for _k, v in sorted(buckets.items()))


def capacity(args) -> int:
    """`--capacity`: from `--capacity-from` up by 0.1, `--capacity-runs` evenings at each scale
    (new servers and events each time); the search stops at the first scale where a run misses
    a target, and the largest scale where every run met every target is the machine's
    capacity. Exit 1 when not even the first scale holds."""
    held = None
    step = 0
    run = 0
    while True:
        scale = round(args.capacity_from + 0.1 * step, 1)
        if scale > args.capacity_to + 1e-9:
            break
        reports = []
        for _ in range(args.capacity_runs):
            reports.append(run_once(argparse.Namespace(**{**vars(args), "scale": scale}), run))
            run += 1
            if reports[-1]["missed"]:
                break  # the scale is lost: no need for its other runs
        met = sum(not r["missed"] for r in reports)
        cpu = [r["round start ms per player"] for r in reports]
        print(f"capacity: scale {scale:g}: {met} of {args.capacity_runs} runs met every target"
              f" (round start {min(cpu):.1f}-{max(cpu):.1f} ms per player)")  # fmt: skip
        if met < args.capacity_runs:
            break
        held = scale
        step += 1
    if held is None:
        print(f"bench-evening --capacity: no scale held, not even {args.capacity_from:g}")
        return 1
    print(f"bench-evening --capacity: largest scale with every target in "
          f"{args.capacity_runs} of {args.capacity_runs} runs: {held:g}")  # fmt: skip
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="the measured window")
    parser.add_argument("--warmup", type=float, default=60.0, help="seconds before it")
    parser.add_argument("--scale", type=float, default=1.0, help="every count multiplied")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds per move, other games")
    parser.add_argument(
        "--move-every", type=float, default=1.5, help="seconds per own move, events"
    )
    parser.add_argument(
        "--page-servers",
        type=int,
        default=0,
        help="daphne processes for pages only (0: the socket servers serve them too)",
    )
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--repeat", type=int, default=1, help="evenings, each from scratch")
    parser.add_argument(
        "--timeline",
        action="store_true",
        help="moves and pages p99 of each 10 s, and when the Swiss rounds opened",
    )
    parser.add_argument(
        "--capacity",
        action="store_true",
        help="the largest --scale (steps of 0.1) at which every target holds in every run",
    )
    parser.add_argument("--capacity-from", type=float, default=0.1, help="the first scale tried")
    parser.add_argument("--capacity-to", type=float, default=2.0, help="the last scale tried")
    parser.add_argument("--capacity-runs", type=int, default=3, help="runs at each scale")
    args = parser.parse_args()

    django_setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if args.capacity:
        return capacity(args)
    reports = [run_once(args, run) for run in range(args.repeat)]
    met = sum(not r["missed"] for r in reports)
    if args.repeat > 1:
        for key in TARGETS:
            values = [r[key] for r in reports]
            print(f"{key}: {min(values):.2f} to {max(values):.2f} (target < {TARGETS[key]:g})")
    print(f"bench-evening: {met} of {args.repeat} evenings met every target")
    return 0 if met == args.repeat or (args.repeat >= 10 and met >= 0.9 * args.repeat) else 1


if __name__ == "__main__":
    sys.exit(main())
