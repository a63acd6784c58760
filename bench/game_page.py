"""The game page's server CPU per view, in one process (`python bench/game_page.py`).

What a round start asks of the pages, without the sockets: a tournament game's page as its
player loads it (the page, and whatever it fetches as it loads: the `hx-get` of every element
whose `hx-trigger` starts with "load", bench/round_start.py), a casual game's as its player
does, and a tournament game's as a guest watching. Each is served `--views` times through
Django's whole request path (its middleware, the session, the view, the templates) by the test
client, after a few views to warm up; printed per kind: the CPU of this process and of its
PostgreSQL backend per view (page and fetches), and the requests a view makes. Runs on the
database of DATABASE_URL (PostgreSQL: it creates a tournament and users there).

CPU is work done, not waiting: the figure holds on a busy machine. The round start's whole
cost, sockets included, is bench/round_start.py's (run by `make bench-evening`); the target
there is at most 5 ms of server CPU per round-start player.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.live import django_setup, process_cpu_seconds, session_cookie  # noqa: E402


def _backend_cpu() -> float:
    """CPU so far of this process's own PostgreSQL backend."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    return process_cpu_seconds(pid)


# An event page's live part as htmx re-fetches it when the page's socket says "changed"
# (static/js/events.js), as bench/evening.py asks it.
PUSH = {"HTTP_HX_REQUEST": "true", "HTTP_X_EVENT_REFRESH": "push"}


def view(client, path: str, headers: dict | None = None) -> list[tuple[str, int]]:
    """One view of the page at `path`, as a browser makes it: the page, then what it fetches as
    it loads; (path, status) of each request."""
    from bench.round_start import fetched_on_load

    response = client.get(path, **(headers or {}))
    done = [(path, response.status_code)]
    for fragment in fetched_on_load(response.content.decode()):
        got = client.get(fragment, HTTP_HX_REQUEST="true", HTTP_HX_CURRENT_URL=path)
        done.append((fragment, got.status_code))
    return done


def measure(client, path: str, views: int, headers: dict | None = None, warmup: int = 5) -> dict:
    for _ in range(warmup):
        view(client, path, headers)
    cpu = []
    requests = []
    for _ in range(views):
        began = time.process_time(), _backend_cpu()
        done = view(client, path, headers)
        ended = time.process_time(), _backend_cpu()
        cpu.append(((ended[0] - began[0]) + (ended[1] - began[1])) * 1000)
        requests.append(len(done))
        if any(status != 200 for _p, status in done):
            raise SystemExit(f"{path}: {done}")
    return {
        "cpu ms": statistics.fmean(cpu),
        "cpu p50 ms": statistics.median(cpu),
        "requests": statistics.fmean(requests),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", type=int, default=200, help="views measured per kind")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="then the tournament game's page for its player under cProfile, N views: the "
        "functions with the most time, themselves and with what they call",
    )
    args = parser.parse_args()
    django_setup()
    import uuid
    from datetime import timedelta

    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client

    from accounts.models import User
    from arena.models import Arena
    from arena.running import arena_advance
    from bench.arena import make_arena
    from bench.evening import make_swiss
    from games.models import Game
    from games.services import game_open
    from tournaments.models import Tournament
    from tournaments.running import tournament_start

    call_command("migrate", verbosity=0)
    swiss_id, players = make_swiss(8)
    starts_at = Tournament.objects.get(pk=swiss_id).starts_at
    if not tournament_start(tournament_id=swiss_id, now=starts_at + timedelta(seconds=1)):
        raise SystemExit("the tournament did not start")
    game = Game.objects.filter(event_id=swiss_id, event_type__model="tournament").first()
    player = next(p for p in players if p["id"] == game.white_id)
    tag = uuid.uuid4().hex[:6]
    white = User.objects.create(username=f"gp-w-{tag}")
    black = User.objects.create(username=f"gp-b-{tag}")
    casual = game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code="chess",
        base_seconds=600,
        increment_seconds=0,
        rated=False,
    )

    def client_of(cookie: str | None) -> Client:
        client = Client(HTTP_HOST="127.0.0.1")
        if cookie:
            name, value = cookie.split("=", 1)
            client.cookies[name] = value
        return client

    arena_id, entrants = make_arena(8)
    arena_advance(arena_id=arena_id)  # started: its players wait to be paired
    kinds = {
        "tournament game, its player": (client_of(player["cookie"]), f"/games/{game.pk}/", None),
        "casual game, its player": (
            client_of(session_cookie(white)),
            f"/games/{casual.pk}/",
            None,
        ),
        "tournament game, a guest": (client_of(None), f"/games/{game.pk}/", None),
        "tournament page's re-fetch, a player": (
            client_of(player["cookie"]),
            f"/tournaments/{swiss_id}/",
            PUSH,
        ),
        "arena page's re-fetch, a player": (
            client_of(entrants[0]["cookie"]),
            f"/arenas/{arena_id}/",
            PUSH,
        ),
    }
    print(f"game page, {args.views} views each ({settings.DATABASES['default']['ENGINE']}):")
    try:
        for name, (client, path, headers) in kinds.items():
            found = measure(client, path, args.views, headers)
            print(
                f"  {name}: {found['cpu ms']:.2f} ms CPU per view (p50 {found['cpu p50 ms']:.2f}; "
                f"this process and its PostgreSQL backend), {found['requests']:.0f} requests"
            )
        if args.profile:
            import cProfile
            import pstats

            client, path, headers = kinds["tournament game, its player"]
            profile = cProfile.Profile()
            profile.runcall(lambda: [view(client, path, headers) for _ in range(args.profile)])
            stats = pstats.Stats(profile)
            stats.sort_stats("tottime").print_stats(25)
            stats.sort_stats("cumulative").print_stats(40)
    finally:
        Tournament.objects.filter(pk=swiss_id).update(status="finished", next_due_at=None)
        Arena.objects.filter(pk=arena_id).update(status="finished", next_due_at=None)
        Game.objects.filter(pk__in=[game.pk, casual.pk]).update(status="finished", settled=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
