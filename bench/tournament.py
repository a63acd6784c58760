"""Tournament benchmark (`make bench-tournament`): a 200-player Swiss started by the tick.

Runs in-process against the database of DATABASE_URL (PostgreSQL; migrations are applied) and
the configured channel layer (Redis):

1. 200 players registered, the tournament due now; one `tournaments_due_process()` call (what
   the Celery tick runs) starts it. Prints the time from that call to every game of round 1
   being open (committed), and to all 200 players' channels having received the "changed"
   push that tells their page to fetch the pairing (each player's socket is stood for by one
   channel of the real channel layer added to the tournament's group; daphne's own hop to the
   browser is measured by `make bench-live`).
2. Rounds 1-9 played by simulated players through the games services, the tick pairing each
   round; then the standings page (the htmx fragment of the tournament page) is requested at
   round 10 with the test client: server time (median of 20) and query count, against 50
   players for comparison (the count must not grow with the number of players).

3. 500 running tournaments with nothing due: the periodic work of one tick (the
   games' due checks and settling, the tournaments' due steps): median time of 20 and its
   queries, which must not grow with the number of running tournaments (compared with 50).

Targets (docs/benchmarks.md): start under 2 s; standings page under 100 ms with a constant query
count; a tick with nothing due in a few queries whatever the number of events.
The benchmark stands in for the Celery worker too: tasks run inline in this process.
Leaves its rows in the database; run it on a scratch database.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
START_TARGET_S = 2.0
PAGE_TARGET_MS = 100.0
TICK_QUERIES_TARGET = 6


def django_setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from config.celery import app

    app.conf.task_always_eager = True  # the worker's tasks (a game's settle) run here


def make_tournament(n: int, tag: str):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.utils import timezone

    from tournaments.models import Registration, Tournament

    user_model = get_user_model()
    password = make_password(None)
    users = user_model.objects.bulk_create(
        user_model(username=f"b-{tag}-{i}", email=f"b-{tag}-{i}@example.org", password=password)
        for i in range(n)
    )
    opener = user_model.objects.create(username=f"b-{tag}-op", password=password)
    tournament = Tournament.objects.create(
        name=f"Bench {tag}",
        opened_by=opener,
        variant="chess",
        base_seconds=180,
        increment_seconds=2,
        cadence="blitz",
        starts_at=timezone.now() + timedelta(minutes=5),
        seats=max(n, 4),
    )
    Registration.objects.bulk_create(Registration(tournament=tournament, player=u) for u in users)
    return tournament


def start_round_one(n: int) -> tuple[object, float, float]:
    """Seconds from the tick to round 1 open, and to every player's channel notified."""
    from django.utils import timezone

    from tests.listening import GroupListener
    from tournaments.broadcast import group_name
    from tournaments.models import Pairing
    from tournaments.running import tournaments_due_process

    tournament = make_tournament(n, uuid.uuid4().hex[:6])
    # One channel per player on the tournament group, read in a thread with its own loop.
    with GroupListener(group_name(tournament.pk), count=n, timeout=30) as listener:
        due = timezone.now()
        type(tournament).objects.filter(pk=tournament.pk).update(starts_at=due, next_due_at=due)
        began = time.perf_counter()
        tournaments_due_process()
        opened = time.perf_counter()
        received = [at for at, _message in listener.wait()]
    assert len(received) == n, f"{n - len(received)} players were not notified"
    boards = Pairing.objects.filter(round__tournament=tournament, black__isnull=False)
    assert all(p.game1_id for p in boards), "a game of round 1 did not open"
    tournament.refresh_from_db()
    return tournament, opened - began, max(received) - began


def play_rounds(tournament, until_round: int) -> None:
    """Every live game ends (resign or agreed draw); the tick pairs the next round."""
    from django.utils import timezone

    from games import services as games
    from games.models import Game
    from tournaments.running import round_pause, tournaments_due_process

    rng = random.Random(tournament.pk)
    while True:
        tournament.refresh_from_db()
        if tournament.current_round >= until_round or tournament.status != "running":
            return
        for game in Game.objects.filter(
            event_type__model="tournament", event_id=tournament.pk, status="live"
        ):
            if rng.random() < 0.2:
                games.game_draw_offer(game_id=game.pk, user_id=game.white_id)
                games.game_draw_accept(game_id=game.pk, user_id=game.black_id)
            else:
                loser = rng.choice((game.white_id, game.black_id))
                games.game_resign(game_id=game.pk, user_id=loser)
        # The games' settle tasks scored them and ended the round; after the pause, the tick
        # pairs the next one.
        tournaments_due_process(now=timezone.now() + round_pause() + timedelta(seconds=1))


def standings_page(tournament, *, anew: bool = True) -> tuple[float, int]:
    """Median milliseconds of 20 fetches of the page's live part, as a push makes htmx fetch
    it, and the queries of one: with `anew`, its shared part (the rounds, standings and top
    boards, events/shared_part.py) rendered each time, as after every change; else kept."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from events import shared_part

    client = Client()
    url = f"/tournaments/{tournament.pk}/"
    times = []
    for _ in range(20):
        if anew:
            shared_part.forget()
        with CaptureQueriesContext(connection) as queries:
            began = time.perf_counter()
            response = client.get(url, HTTP_HX_REQUEST="true", HTTP_HOST="localhost")
            times.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, response.status_code
    return statistics.median(times), len(queries)


def idle_tick(running: int) -> tuple[float, int]:
    """One tick's periodic work with `running` tournaments under way and nothing due: median
    milliseconds of 20 and the queries of one."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from games.services import games_due_process, games_settle_due
    from tournaments.models import Tournament
    from tournaments.running import tournaments_due_process

    tag = uuid.uuid4().hex[:6]
    opener = get_user_model().objects.create(username=f"b-{tag}-idle")
    now = timezone.now()
    Tournament.objects.bulk_create(
        Tournament(
            name=f"Idle {tag} {i}",
            opened_by=opener,
            variant="chess",
            base_seconds=600,
            increment_seconds=0,
            cadence="rapid",
            starts_at=now - timedelta(minutes=5),
            status=Tournament.Status.RUNNING,
            announced_end=now + timedelta(hours=2),
            next_due_at=now + timedelta(hours=2),  # a round in progress: due at the grace end
        )
        for i in range(running)
    )

    def tick() -> None:
        games_due_process()
        games_settle_due()
        tournaments_due_process()

    times = []
    for _ in range(20):
        began = time.perf_counter()
        tick()
        times.append((time.perf_counter() - began) * 1000)
    with CaptureQueriesContext(connection) as queries:
        tick()
    Tournament.objects.filter(name__startswith=f"Idle {tag}").delete()
    return statistics.median(times), len(queries)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--round", type=int, default=10, help="measure the standings here")
    args = parser.parse_args()
    django_setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

    tournament, open_s, pushed_s = start_round_one(args.players)
    print(
        f"{args.players} players: round 1 open in {open_s:.2f} s, "
        f"all {args.players} channels notified in {pushed_s:.2f} s (target < {START_TARGET_S} s)"
    )
    play_rounds(tournament, args.round)
    ms, queries = standings_page(tournament)
    kept_ms, kept_queries = standings_page(tournament, anew=False)
    small, _o, _p = start_round_one(50)
    play_rounds(small, min(args.round, small.total_rounds))
    _ms_small, queries_small = standings_page(small)
    print(
        f"standings at round {tournament.current_round}: {ms:.1f} ms (median of 20), "
        f"{queries} queries; with 50 players {queries_small} queries "
        f"(target < {PAGE_TARGET_MS:.0f} ms, count independent of players); "
        f"its shared part kept (between two changes): {kept_ms:.1f} ms, {kept_queries} queries"
    )
    # Only this benchmark's idle tournaments should be running for the tick line.
    from tournaments.models import Tournament

    Tournament.objects.filter(status="running").update(status="finished", next_due_at=None)
    tick_ms, tick_queries = idle_tick(500)
    _tick_ms_small, tick_queries_small = idle_tick(50)
    print(
        f"tick with 500 running tournaments and nothing due: {tick_ms:.1f} ms (median of 20), "
        f"{tick_queries} queries; with 50 running {tick_queries_small} queries "
        f"(target <= {TICK_QUERIES_TARGET}, count independent of the number of tournaments)"
    )
    ok = pushed_s < START_TARGET_S and ms < PAGE_TARGET_MS and queries == queries_small
    ok = ok and tick_queries == tick_queries_small <= TICK_QUERIES_TARGET
    print("OK" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
