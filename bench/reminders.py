"""Reminders benchmark (`make bench-reminders`): a tournament's reminder mails against the timed
work of the worker.

Starts an SMTP server (tests/mailbox.py) in this process, and the real Celery worker (two
processes, as deployed) and beat on the database of DATABASE_URL and the Redis of REDIS_URL
(private ones from `make`), the worker mailing to that server. Then, for each run
(``--repeat``):

1. a scheduled tournament with N registered players (``--players``, 200), all with a verified
   address, mail reminders on and the default lead of 30 minutes, joined two hours before the
   start. The start is set so that their moment comes ``--baseline`` seconds (20) later: until
   then the reminders' tick already sees the tournament every 10 s and finds nobody due, as
   for the half hour before on a real site; that stretch is the idle baseline.
2. the first reminders tick after the moment creates the reminders and queues the mails; the
   mail sender sends them after its commit. Measured: the tick's start (after the moment) and
   its own duration, each mail's arrival at the SMTP server from the tick's start (p50 / max),
   how many arrived and to how many distinct addresses and Message-IDs, the Mail rows sent;
   the sender's run.
3. the other timed work: every start of every task beat sends each second (`games.due`,
   `tournaments.due`, `arena.due`, `games.pools`, `live.heartbeat`) is recorded by the worker
   itself (Celery's task_prerun / task_postrun signals, connected by this module when the
   worker loads it with ``--include``; nothing of the site is changed), and the worst gap
   between two consecutive starts of one task is compared between the baseline and the burst
   (from the tick's start to one second after the last mail). The worker's heartbeat as
   /healthz reads it (the Redis key `live.heartbeat` writes, sampled every 20 ms) is printed
   beside it.

Targets (exit 1 if missed in any run): every mail at the SMTP server exactly once, and all N
Mail rows sent, within one reminders interval (10 s) + 3 s of the tick's start; the worst gap
of the every-second tasks during the burst at most 2 x the baseline's worst gap + 1 s.
The SMTP server answers on loopback at once: the times are the site's own cost, and a relay
across a network adds its round trips to every mail (they are sent one after the other).
Leaves its rows in the database (each run's tournament cancelled); run it on a scratch database.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import threading
import time
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# The worker records its task runs in this Redis list (named by the benchmark, in the worker's
# environment); unset, importing the module records nothing.
RUNS_ENV = "BENCH_REMINDERS_RUNS"
DELIVERY_SLACK_S = 3.0  # past one reminders interval
SAMPLE_S = 0.02  # the heartbeat key and the SMTP server's count are read this often
TAIL_S = 3.0  # kept watching after the last mail, so the gaps that span the burst's end close


def _record_task_runs(key: str) -> None:
    """In the worker: each task run as [name, start, end, eta, expires] (time.time(); eta and
    expires as the message gave them, ISO or None) appended to `key`, and each database
    connection the worker opens as ["connection", time] to `key` + ":connections". One RPUSH
    per run, about what the heartbeat task itself costs."""
    from celery.signals import task_postrun, task_prerun
    from django.db.backends.signals import connection_created
    from django.dispatch import receiver

    started: dict[str, float] = {}

    backends: set[int] = set()

    @receiver(connection_created, weak=False)
    def _connected(connection=None, **_kwargs) -> None:
        from live import heartbeat

        # With a pool Django says "created" at each checkout: a connection is new only if its
        # PostgreSQL backend is (psycopg's `info.backend_pid`; SQLite has none, each counts).
        info = getattr(getattr(connection, "connection", None), "info", None)
        backend = getattr(info, "backend_pid", None)
        if backend is not None:
            if backend in backends:
                return
            backends.add(backend)
        try:
            heartbeat.client().rpush(key + ":connections", json.dumps(time.time()))
        except Exception:
            pass

    @task_prerun.connect(weak=False)
    def _began(task_id=None, **_kwargs) -> None:
        started[task_id] = time.time()

    @task_postrun.connect(weak=False)
    def _ended(task_id=None, task=None, **_kwargs) -> None:
        began = started.pop(task_id, None)
        if began is None:
            return
        from live import heartbeat

        try:
            request = task.request
            eta, expires = request.eta, request.expires
            record = [task.name, began, time.time(), eta and str(eta), expires and str(expires)]
            heartbeat.client().rpush(key, json.dumps(record))
        except Exception:  # a missed record shows as a gap; the task itself is done
            pass


if __name__ != "__main__" and os.environ.get(RUNS_ENV):
    _record_task_runs(os.environ[RUNS_ENV])


def every_tick_tasks() -> tuple[list[str], float, float]:
    """The tasks beat sends every tick, the tick, and the reminders' interval (config/celery)."""
    from config.celery import TICK_SECONDS, app

    schedule = app.conf.beat_schedule
    names = sorted(e["task"] for e in schedule.values() if e["schedule"] == TICK_SECONDS)
    return names, TICK_SECONDS, float(schedule["events.reminders"]["schedule"])


def start_background(log_dir: Path, box, runs_key: str):
    """The worker as deployed plus this module, and beat, both mailing to `box`."""
    from bench.live import server_environment
    from harness import Processes

    env = dict(
        server_environment(), EMAIL_HOST=box.host, EMAIL_PORT=str(box.port), **{RUNS_ENV: runs_key}
    )
    procs = Processes(log_dir, env)
    procs.start_worker(node=f"bench-reminders-{os.getpid()}", include=["bench.reminders"])
    procs.start_beat()
    return procs


def task_runs(runs_key: str, *, full: bool = False) -> list[tuple]:
    """(name, start, end) of each run; with `full`, also its eta and expires."""
    from live import heartbeat

    runs = [tuple(json.loads(r)) for r in heartbeat.client().lrange(runs_key, 0, -1)]
    return runs if full else [run[:3] for run in runs]


def connections_opened(runs_key: str) -> list[float]:
    """When the worker opened each of its database connections (time.time())."""
    from live import heartbeat

    return [json.loads(r) for r in heartbeat.client().lrange(runs_key + ":connections", 0, -1)]


class Watch(threading.Thread):
    """Reads, every SAMPLE_S, the worker's heartbeat (each new value is the time.time() of one
    run of `live.heartbeat`) and the SMTP server's count (each new mail stamped on arrival)."""

    def __init__(self, box) -> None:
        super().__init__(daemon=True)
        self.box = box
        self.beats: list[float] = []
        self.arrivals: list[float] = []
        self.done = threading.Event()

    def run(self) -> None:
        from live import heartbeat

        client, key = heartbeat.client(), heartbeat.key(heartbeat.WORKER)
        while not self.done.is_set():
            now = time.time()
            try:
                raw = client.get(key)
            except Exception:
                raw = None
            if raw is not None and (not self.beats or float(raw) > self.beats[-1]):
                self.beats.append(float(raw))
            n = len(self.box.received)
            self.arrivals.extend([now] * (n - len(self.arrivals)))
            time.sleep(SAMPLE_S)


def worst_gap(starts: list[float], lo: float, hi: float, end: float, *, within: bool) -> float:
    """The longest time between consecutive starts, counting the open one up to `end`: the
    gaps lying wholly in [lo, hi] (`within`), or those overlapping it."""
    points = sorted(starts) + [end]
    gaps = [
        b - a
        for a, b in zip(points, points[1:], strict=False)
        if (lo <= a and b <= hi if within else a < hi and b > lo)
    ]
    return max(gaps, default=float("nan"))


def make_reminded_tournament(n: int, baseline: float):
    """N players due for their reminder `baseline` seconds from now (the moment)."""
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import User
    from bench.tournament import make_tournament
    from tournaments.models import Registration, Tournament

    tournament = make_tournament(n, uuid.uuid4().hex[:6])
    moment = time.time() + baseline
    starts_at = datetime.fromtimestamp(moment, UTC) + timedelta(minutes=30)
    with transaction.atomic():
        Tournament.objects.filter(pk=tournament.pk).update(
            starts_at=starts_at, next_due_at=starts_at
        )
        # auto_now_add set the join to now: a join before the reminder's moment is needed (RULES 11.1).
        Registration.objects.filter(tournament=tournament).update(
            joined_at=starts_at - timedelta(hours=2)
        )
        User.objects.filter(tournament_registrations__tournament=tournament).update(
            email_verified_at=timezone.now(),
            remind_by_email=True,
            remind_minutes=30,
        )
    addresses = set(
        User.objects.filter(tournament_registrations__tournament=tournament).values_list(
            "email", flat=True
        )
    )
    return tournament, moment, addresses


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def run_once(args, run: int, box, runs_key: str) -> dict:
    from events.models import Reminder
    from events.reminders import reminder_mail_key
    from mail.models import Mail, Reason, Status
    from tournaments.models import Tournament

    names, _tick, interval = every_tick_tasks()
    delivery_target = interval + DELIVERY_SLACK_S
    box.clear()
    watch = Watch(box)
    watch.start()
    tournament, moment, addresses = make_reminded_tournament(args.players, args.baseline)
    baseline_from = time.time()
    key = reminder_mail_key("tournament", tournament)
    # The tick comes within one interval of the moment; its mails within the target after it.
    give_up = moment + interval + delivery_target + 2
    while len(box.received) < args.players and time.time() < give_up:
        time.sleep(0.1)
    time.sleep(TAIL_S)
    watch.done.set()
    watch.join()
    watch_end = time.time()
    # Out of the reminders' view, so that the next run's baseline does not carry it.
    Tournament.objects.filter(pk=tournament.pk).update(
        status=Tournament.Status.CANCELLED, next_due_at=None
    )

    reminders = Reminder.objects.filter(kind="tournament", event_id=tournament.pk)
    first_row = min(reminders.values_list("created_at", flat=True), default=None)
    runs = task_runs(runs_key)
    reminding = [
        (start, end)
        for name, start, end in runs
        if name == "events.reminders"
        and first_row is not None
        and start <= first_row.timestamp() <= end
    ]
    # No tick found (no reminder made): the burst is measured from the moment.
    tick_start, tick_end = reminding[0] if reminding else (moment, float("nan"))
    with box.lock:
        received = list(box.received)
    ours = [r for r in received if set(r.to) & addresses]
    per_address = Counter(a for r in ours for a in r.to)
    message_ids = {str(r.message["Message-ID"]) for r in ours}
    # Arrival times of the mails the watch saw come (one arriving after it stopped has none,
    # and was too late anyway).
    stamped = [at for r, at in zip(received, watch.arrivals, strict=False) if set(r.to) & addresses]
    after_tick = [at - tick_start for at in stamped]
    last = max(stamped, default=float("nan"))
    mails = Counter(
        Mail.objects.filter(reason=Reason.REMINDER, key=key).values_list("status", flat=True)
    )
    senders = [
        (start, end)
        for name, start, end in runs
        if name == "mail.send" and start < last and end > tick_start
    ]
    sender = max(senders, key=lambda s: s[1] - s[0], default=(float("nan"), float("nan")))

    burst_end = (last if stamped else tick_start) + 1.0
    gaps = {}
    for name in names:
        starts = [start for n, start, _end in runs if n == name]
        gaps[name] = (
            worst_gap(starts, baseline_from, moment, moment, within=True),
            worst_gap(starts, tick_start, burst_end, watch_end, within=False),
        )
    baseline_worst = max((b for b, _ in gaps.values() if b == b), default=float("nan"))
    burst_worst = max((w for _, w in gaps.values() if w == w), default=float("nan"))
    gap_target = 2 * baseline_worst + 1.0
    beat_baseline = worst_gap(watch.beats, baseline_from, moment, moment, within=True)
    beat_burst = worst_gap(watch.beats, tick_start, burst_end, watch_end, within=False)

    once = (
        len(ours) == args.players
        and len(per_address) == args.players
        and set(per_address.values()) == {1}
        and len(message_ids) == args.players
        and mails == Counter({Status.SENT.value: args.players})
    )
    delivered = once and len(stamped) == args.players and last - tick_start <= delivery_target
    quiet = burst_worst <= gap_target
    print(
        f"run {run}: {args.players} players; the reminders tick began "
        f"{tick_start - moment:.1f} s after their moment and ran {tick_end - tick_start:.2f} s "
        f"({reminders.count()} reminders)"
    )
    print(
        f"  mails: {len(ours)} at the SMTP server, {len(per_address)} addresses "
        f"(most to one: {max(per_address.values(), default=0)}), {len(message_ids)} Message-IDs;"
        f" Mail rows {dict(sorted(mails.items()))}; from the tick's start p50 "
        f"{pct(after_tick, 0.5):.2f} s, last {max(after_tick, default=float('nan')):.2f} s "
        f"(target: all, once, within {delivery_target:.0f} s); sender run "
        f"{sender[1] - sender[0]:.2f} s ({(sender[1] - sender[0]) * 1000 / max(len(ours), 1):.0f}"
        f" ms a mail), began {sender[0] - tick_start:.2f} s after the tick's start"
    )
    print(
        f"  every-second tasks, worst gap between starts: baseline {baseline_worst:.2f} s, burst"
        f" {burst_worst:.2f} s (target <= 2 x baseline + 1 s = {gap_target:.2f} s); per task, baseline / burst: "
        + ", ".join(f"{name} {b:.2f} / {w:.2f}" for name, (b, w) in gaps.items())
    )
    print(
        f"  worker heartbeat as /healthz reads it (sampled every {SAMPLE_S * 1000:.0f} ms), "
        f"worst gap: baseline {beat_baseline:.2f} s, burst {beat_burst:.2f} s"
    )
    return {
        "ok": delivered and quiet,
        "last": last - tick_start,
        "tick": tick_end - tick_start,
        "burst": burst_worst,
        "baseline": baseline_worst,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=1, help="runs, each a new tournament")
    parser.add_argument(
        "--baseline", type=float, default=20.0, help="idle seconds measured before the moment"
    )
    args = parser.parse_args()

    from bench.live import django_setup

    django_setup()
    from django.core.management import call_command

    from live import heartbeat
    from tests.mailbox import Mailbox

    call_command("migrate", verbosity=0)
    # aiosmtpd logs every SMTP command at INFO (its logger is "mail.log", not the site's mail
    # app): thousands of lines that would bury the figures.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    log_dir = Path(os.environ.get("BENCH_LOG_DIR", "/tmp")) / f"bench-reminders-{os.getpid()}"
    log_dir.mkdir(parents=True, exist_ok=True)
    runs_key = heartbeat.prefixed(f"bench-reminders:{os.getpid()}:runs")
    box = Mailbox()
    box.start()
    procs = start_background(log_dir, box, runs_key)
    launched = time.time()
    try:
        procs.wait_for(
            lambda: any(n == "live.heartbeat" and s > launched for n, s, _e in task_runs(runs_key)),
            60,
            "the worker's first tick",
        )
        time.sleep(2)  # the first ticks' start-up work out of the baseline
        results = [run_once(args, run, box, runs_key) for run in range(1, args.repeat + 1)]
    finally:
        procs.stop_all()
        box.stop()
        heartbeat.client().delete(runs_key)
    if args.repeat > 1:
        print(
            "over the runs: last mail "
            + ", ".join(f"{r['last']:.2f}" for r in results)
            + " s after the tick; tick "
            + ", ".join(f"{r['tick']:.2f}" for r in results)
            + " s; worst gap burst / baseline "
            + ", ".join(f"{r['burst']:.2f} / {r['baseline']:.2f}" for r in results)
            + f" s; median last mail {statistics.median(r['last'] for r in results):.2f} s"
        )
    ok = all(r["ok"] for r in results)
    print("OK" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
