"""Arena benchmark (`make bench-arena`): one arena, many players over real websockets.

Starts two daphne processes, a Celery worker and beat on the database of DATABASE_URL and the
Redis of REDIS_URL (private ones from `make`), opens a running arena and N players (``--players``,
300) whose client processes (``--clients``) keep the arena page's one socket open (the arena's,
its chat's and the site's news: `/ws/page/arena/<id>/`), go to each game they are paired into
(its page's one socket), play random legal moves at a steady
pace (one every ``--interval`` seconds) or resign (a game lasts a few dozen plies), and go again,
for ``--seconds`` after a warm-up. Prints:

- games per minute in the measured window;
- the pairing pass time, median and worst (from the worker's log line of each pass);
- p50 / p99 of the time from a game ending (its final state reaching a player) to that player
  having their next game open (the "mygame" push of the pass that opened it);
- where that wait went, from the worker's timestamped lines: the game's end to its settle,
  the settle's wait for the arena's lock, the end to the pass being due (the coalescing window),
  the pass running late, the pass itself, its start to the games' pushes;
- the pure pairing (`arena.engine.pairing`) of 100, 500 and 1,000 waiting players.

``--repeat N`` runs N arenas one after the other (new servers each time) and prints the spread.

Targets on this 2-core machine: end-to-next-game p99 under the coalescing window + 1 s at 300
players in 9 runs of 10, every pairing pass under 300 ms; pure pairing of 1,000 waiting players
under 200 ms. Exits 1 if missed.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.live import (  # noqa: E402
    Socket,
    django_setup,
    process_cpu_seconds,
    server_environment,
    start_servers,
)
from harness import Processes  # noqa: E402

PURE_TARGET_MS = 200.0
PASS_TARGET_MS = 300.0  # the worst pairing pass of a run (docs/benchmarks.md)


def pure_pairing() -> dict[int, float]:
    """Median milliseconds of pairing n waiting players (a history of recent pairs included)."""
    from arena.engine.pairing import Together, Waiting, pair_key, pair_waiting

    now = 10**12
    found = {}
    for n in (100, 500, 1000):
        rng = random.Random(n)
        players = [
            Waiting(
                i,
                rank=1 + i // 5,
                rating=rng.randint(1000, 2300),
                whites=rng.randint(0, 6),
                blacks=rng.randint(0, 6),
                last_colour=rng.choice((None, "white", "black")),
                waiting_since_ms=now - rng.randint(0, 60_000),
            )
            for i in range(n)
        ]
        history = {}
        for _ in range(3 * n):
            a, b = rng.sample(range(n), 2)
            history[pair_key(a, b)] = Together(rng.randint(1, 4), now - rng.randint(0, 20) * 60_000)
        times = []
        for seed in range(7):
            began = time.perf_counter()
            pair_waiting(players, history, now, seed)
            times.append((time.perf_counter() - began) * 1000)
        found[n] = statistics.median(times)
    return found


def make_arena(n: int) -> tuple[int, list[dict]]:
    from datetime import timedelta

    from django.contrib.auth.hashers import make_password
    from django.utils import timezone

    from accounts.models import User
    from arena.models import Arena, Entry
    from bench.live import session_cookie

    tag = os.urandom(3).hex()
    password = make_password(None)
    opener = User.objects.create(username=f"ba-{tag}-op", password=password)
    arena = Arena.objects.create(
        name=f"Bench {tag}",
        opened_by=opener,
        variant="chess",
        base_seconds=600,
        increment_seconds=0,
        cadence="rapid",
        starts_at=timezone.now() - timedelta(seconds=1),
        duration_minutes=480,
        rated=False,
    )
    users = User.objects.bulk_create(
        User(username=f"ba-{tag}-{i}", password=password) for i in range(n)
    )
    Entry.objects.bulk_create(
        Entry(arena=arena, player=u, waiting_since=timezone.now()) for u in users
    )
    return arena.pk, [{"id": user.pk, "cookie": session_cookie(user)} for user in users]


async def player_loop(
    page_path,
    player,
    ports,
    interval,
    deadline,
    measure_from,
    out,
    gate,
    on_page=None,
    on_game=None,
):
    """One player of an event: its page's one socket stays open (`page_path`, the arena's or a
    tournament's page socket: the event's messages, its chat's and the site's news, told apart
    by `on`, docs/protocol.md "Page sockets"); every "mygame" opens that game's page socket,
    where the player moves or resigns until it ends. When `out` has the lists "opened" and "ended", each game's
    (id, time) of its "mygame" push and of its end go there (bench/evening.py). `on_page`
    (message, in_game) is awaited for each message of the page's socket (a page that
    re-fetches what changed); `on_game(game_id)` is called at each "mygame" (the browser
    loading the game's page)."""
    rng = random.Random(player["id"])
    port = ports[player["id"] % len(ports)]
    async with gate:
        page = await Socket.connect(port, page_path, player["cookie"])
    ended_at: float | None = None
    in_game = False
    games: asyncio.Queue = asyncio.Queue()
    site_news: asyncio.Queue = asyncio.Queue()

    async def site_socket():
        while time.perf_counter() < deadline:
            message = await site_news.get()
            if message is None:
                return
            if message.get("what") == "mygame":
                now = time.perf_counter()
                if ended_at is not None and ended_at >= measure_from:
                    out["next_game_ms"].append((now - ended_at) * 1000)
                if "opened" in out:
                    out["opened"].append((message["game"], now))
                if on_game is not None:
                    on_game(message["game"])
                await games.put(message["game"])

    async def event_page():
        try:
            while time.perf_counter() < deadline:
                message = await page.receive()
                if message is None:
                    return
                if message.get("on") == "me":
                    site_news.put_nowait(message)
                elif message.get("on") is None and on_page is not None:  # not the chat's
                    await on_page(message, in_game)
        finally:
            site_news.put_nowait(None)

    async def play(game_id: int):
        nonlocal ended_at, in_game
        in_game = True
        try:
            return await moves(game_id)
        finally:
            in_game = False

    async def moves(game_id: int):
        nonlocal ended_at
        # The game page's one socket: the game's messages, its chat's and the site's news.
        ws = await Socket.connect(port, f"/ws/page/game/{game_id}/", player["cookie"])
        limit = rng.randint(6, 40)
        last_ply = -1
        color = None
        try:
            while time.perf_counter() < deadline:
                message = await ws.receive()
                if message is None or message.get("type") not in ("state", "played"):
                    if message is None:
                        return
                    continue
                if message["status"] != "live":
                    ended_at = time.perf_counter()
                    if ended_at >= measure_from:
                        out["games_ended"] += 1
                    if "ended" in out:
                        out["ended"].append((game_id, ended_at))
                    return ws  # stays open: the just-finished game's page counts as present
                if message["type"] == "state":
                    color = "white" if message["white"]["id"] == player["id"] else "black"
                if color is None or message["turn"] != color or message["ply"] <= last_ply:
                    continue
                last_ply = message["ply"]
                await asyncio.sleep(interval * (0.5 + rng.random()))
                if message["ply"] >= limit or rng.random() < 0.03:
                    ws.send({"type": "resign", "ply": message["ply"]})
                elif message["legal_moves"]:
                    ws.send(
                        {
                            "type": "move",
                            "ply": message["ply"],
                            "move": rng.choice(message["legal_moves"]),
                        }
                    )
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
        return ws

    async def games_loop():
        previous = None
        try:
            while time.perf_counter() < deadline:
                try:
                    game_id = await asyncio.wait_for(games.get(), deadline - time.perf_counter())
                except TimeoutError:
                    return
                finished = await play(game_id)
                if previous is not None:
                    previous.close()
                previous = finished
        finally:
            if previous is not None:
                previous.close()

    tasks = [asyncio.create_task(t) for t in (site_socket(), event_page(), games_loop())]
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), deadline - time.perf_counter() + 5)
    except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
        pass
    for task in tasks:
        task.cancel()
    page.close()


def client_process(arena_id, players, ports, interval, seconds, warmup, ready, go, queue):
    async def main():
        out = {"next_game_ms": [], "games_ended": 0}
        gate = asyncio.Semaphore(10)
        ready.put(len(players))
        await asyncio.get_running_loop().run_in_executor(None, go.wait)
        measure_from = time.perf_counter() + warmup
        deadline = measure_from + seconds
        await asyncio.gather(
            *(
                player_loop(
                    f"/ws/page/arena/{arena_id}/",
                    p,
                    ports,
                    interval,
                    deadline,
                    measure_from,
                    out,
                    gate,
                )
                for p in players
            )
        )
        return out

    queue.put(asyncio.run(main()))


def start_background(procs: Processes) -> None:
    """The worker and beat as deployed; the worker at INFO, for the timestamped lines of each
    pairing pass and settle (`path_figures`)."""
    env = dict(procs.env, LOG_LEVEL="INFO")
    procs.start_worker(node=f"bench-arena-{os.getpid()}", loglevel="INFO", env=env)
    procs.start_beat(env=env)


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def path_figures(log: Path, arena_id: int) -> dict[str, list[float]]:
    """Where the wait for the next game went, from the worker's timestamped lines
    (`arena.running`): the game's end to its settle task running, the settle's wait for the
    arena's lock, the game's end to the pass it asked for being due, the pass running after it
    was due, the pass's own time, and the pass's start to its games' `mygame` pushes."""
    text = log.read_text(errors="replace")
    a = rf"arena {arena_id}: "
    found: dict[str, list[float]] = {
        "settle after end": [],
        "lock wait": [],
        "pass due after end": [],
        "pass late": [],
        "pass": [],
        "push after pass began": [],
    }
    for m in re.finditer(
        a + r"game \d+ scored; settle began (-?\d+) ms after its end, waited (\d+) ms for the"
        r" arena's lock; pass due (-?\d+) ms",
        text,
    ):
        found["settle after end"].append(float(m.group(1)))
        found["lock wait"].append(float(m.group(2)))
        if float(m.group(3)) >= 0:
            found["pass due after end"].append(float(m.group(3)))
    for m in re.finditer(
        a + r"pairing pass, \d+ waiting, (\d+) games opened in ([\d.]+) ms; ran (-?\d+) ms",
        text,
    ):
        found["pass"].append(float(m.group(2)))
        if int(m.group(1)):
            found["pass late"].append(float(m.group(3)))
    for m in re.finditer(a + r"\d+ games pushed \(mygame\) (\d+) ms", text):
        found["push after pass began"].append(float(m.group(1)))
    return found


def run_once(args, run: int) -> dict:
    """One arena of `args.players` from its start; returns the run's figures."""
    from django.conf import settings

    window_ms = float(settings.ARENA_PAIRING_COALESCE_SECONDS) * 1000 + 1000
    log_dir = (
        Path(os.environ.get("BENCH_LOG_DIR", "/tmp")) / f"bench-arena-{os.getpid()}" / str(run)
    )
    log_dir.mkdir(parents=True, exist_ok=True)
    arena_id, players = make_arena(args.players)
    site = Processes(log_dir, server_environment())
    try:
        ports = start_servers(site, args.servers)
        start_background(site)
        time.sleep(3)  # the worker and beat come up
        queue: multiprocessing.Queue = multiprocessing.Queue()
        ready: multiprocessing.Queue = multiprocessing.Queue()
        go = multiprocessing.Event()
        slices = [players[i :: args.clients] for i in range(args.clients)]
        procs = [
            multiprocessing.Process(
                target=client_process,
                args=(
                    arena_id,
                    s,
                    ports,
                    args.interval,
                    args.seconds,
                    args.warmup,
                    ready,
                    go,
                    queue,
                ),
            )
            for s in slices
        ]
        for p in procs:
            p.start()
        for _ in procs:
            ready.get(timeout=120)
        from arena.running import arena_advance

        go.set()
        arena_advance(arena_id=arena_id)  # the start: whoever has the page open is paired
        time.sleep(args.warmup)
        from django.utils import timezone

        from arena.models import ArenaGame

        opened_before = ArenaGame.objects.filter(arena_id=arena_id).count()
        window_start = timezone.now()
        pids = [proc.pid for proc in site.running.values()]
        cpu_before = sum(process_cpu_seconds(pid) for pid in pids)
        time.sleep(args.seconds)
        cpu_after = sum(process_cpu_seconds(pid) for pid in pids)
        opened = ArenaGame.objects.filter(arena_id=arena_id, started_at__gte=window_start).count()
        results = [queue.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=30)
    finally:
        site.stop_all()
    # Closed, so that the next run's worker and tick have nothing of it to do.
    from arena.models import Arena

    Arena.objects.filter(pk=arena_id).update(status=Arena.Status.FINISHED, next_due_at=None)
    waits = sorted(x for r in results for x in r["next_game_ms"])
    ended = sum(r["games_ended"] for r in results) // 2
    path = path_figures(log_dir / "worker.log", arena_id)
    passes = path["pass"]
    print(
        f"run {run}: {args.players} players, {args.seconds:g} s: "
        f"{opened * 60 / args.seconds:.0f} games/min opened "
        f"({ended * 60 / args.seconds:.0f} ended), {len(passes)} pairing passes "
        f"(median {statistics.median(passes) if passes else float('nan'):.1f} ms, "
        f"worst {max(passes) if passes else float('nan'):.1f} ms); server CPU "
        f"{(cpu_after - cpu_before) / args.seconds:.0%} of one core (of 200%)"
    )
    print(
        f"  game end to next game open: p50 {pct(waits, 0.5):.0f} ms, p99 {pct(waits, 0.99):.0f}"
        f" ms over {len(waits)} waits (target p99 < {window_ms:.0f} ms: the coalescing window"
        f" + 1 s); {opened_before} games opened in the warm-up"
    )
    print(
        "  along the path (p50 / p99 / max ms): "
        + "; ".join(
            f"{name} {pct(v, 0.5):.0f} / {pct(v, 0.99):.0f} / {max(v):.0f}"
            for name, v in path.items()
            if v
        )
    )
    return {
        "p99": pct(waits, 0.99),
        "worst_pass": max(passes) if passes else float("nan"),
        "window_ms": window_ms,
        "waits": len(waits),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--warmup", type=float, default=15.0)
    parser.add_argument("--interval", type=float, default=0.6, help="seconds per own move")
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="runs, each a new arena")
    args = parser.parse_args()

    pure = pure_pairing()
    print(
        "pure pairing: "
        + ", ".join(f"{n} waiting {ms:.1f} ms" for n, ms in pure.items())
        + f" (target: 1,000 under {PURE_TARGET_MS:.0f} ms)"
    )
    django_setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    runs = [run_once(args, run) for run in range(1, args.repeat + 1)]
    met = [r for r in runs if r["waits"] and r["p99"] < r["window_ms"]]
    passes_ok = all(r["worst_pass"] < PASS_TARGET_MS for r in runs)
    print(
        f"p99 over {len(runs)} runs: "
        + ", ".join(f"{r['p99']:.0f}" for r in sorted(runs, key=lambda r: r["p99"]))
        + f" ms; {len(met)} of {len(runs)} under the target; worst pass "
        + ", ".join(f"{r['worst_pass']:.0f}" for r in runs)
        + f" ms (target < {PASS_TARGET_MS:.0f} ms)"
    )
    # The targets (docs/benchmarks.md): p99 under the window in 9 runs of 10 (all of them when
    # fewer than 10), every pass under its target, and the pure pairing of 1,000 under its own.
    needed = len(runs) - len(runs) // 10
    ok = len(met) >= needed and passes_ok and pure[1000] < PURE_TARGET_MS
    print("OK" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
