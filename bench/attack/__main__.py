"""python -m bench.attack [--only SCENARIO]... [--quick]: see __init__ (SCENARIOS below)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

from bench.attack import __doc__ as DOC
from bench.attack import fixtures
from bench.attack.figures import Figures, grouped, total
from bench.attack.servers import Site, describe, site_environment

SCENARIOS = (
    "forms",
    "sockets",
    "presence",
    "faults",
    "flood",
    "deletion",
    "mail",
    "export",
    "archive",
)
# Seconds a presence row lives unrefreshed (live.presence.STALE_MS), plus the tick's sweep.
STALE_WAIT_SECONDS = 36.0


def print_result(result: Figures, details: int) -> None:
    print(result.line(), flush=True)
    for line in result.info:
        print(f"        · {line}")
    if result.details:
        for line in grouped(result.details, details):
            print(f"    {line}")
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=DOC.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", choices=SCENARIOS, action="append", help="run only these")
    parser.add_argument("--quick", action="store_true", help="smaller counts, shorter phases")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--logs", help="directory for the servers' logs (default: /tmp/…)")
    parser.add_argument("--forms", type=int, help="form submissions (3000; quick 600)")
    parser.add_argument("--frames", type=int, help="hostile socket frames (4500; quick 900)")
    parser.add_argument("--games", type=int, help="presence: live games (100; quick 50)")
    parser.add_argument("--tables", type=int, help="faults: pairs of players (8; quick 4)")
    parser.add_argument("--flood-games", type=int, help="flood: games played (100; quick 40)")
    parser.add_argument(
        "--flood-seconds", type=float, help="flood: seconds of flooding (20; quick 10)"
    )
    parser.add_argument("--deletions", type=int, help="deletion: trials per action (16; quick 8)")
    parser.add_argument("--archive-players", type=int, help="archive: players asking (4; quick 3)")
    parser.add_argument("--archive-games", type=int, help="archive: games each (6000; quick 1500)")
    parser.add_argument("--details", type=int, default=8, help="detail kinds shown per figure")
    args = parser.parse_args()
    chosen = args.only or list(SCENARIOS)
    quick = args.quick
    forms_n = args.forms or (600 if quick else 3000)
    frames_n = args.frames or (900 if quick else 4500)
    games_n = args.games or (50 if quick else 100)
    tables_n = args.tables or (4 if quick else 8)
    flood_games = args.flood_games or (40 if quick else 100)
    flood_seconds = args.flood_seconds or (10.0 if quick else 20.0)

    if not os.environ.get("DATABASE_URL", "").startswith(("postgres", "pgsql")):
        print("bench.attack needs PostgreSQL and Redis: run it through scripts/with-services.sh")
        return 2
    run_dir = Path(args.logs or f"/tmp/circolo-attack-{os.getpid()}").resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    env = site_environment(run_dir)
    fixtures.django_setup(env)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    site = Site(run_dir, env)
    began = time.monotonic()
    results: list[Figures] = []
    try:
        site.start_all()
        ports = [site.ports["daphne-a"], site.ports["daphne-b"]]
        print(
            f"attack ({'quick' if quick else 'full'}, seed {args.seed}): daphne on "
            f"{ports[0]} and {ports[1]}, a Celery worker and beat; logs in {site.log_dir}",
            flush=True,
        )
        for scenario in chosen:
            site.mark(f"scenario {scenario}")
            sizes = site.log_sizes()
            if scenario == "forms":
                from bench.attack import forms

                result = Figures("forms", forms.SHOWN)
                c = fixtures.db(forms.cast, ports, attempts=2)
                forms.probes(c, result)
                statuses = forms.fuzz(c, result, forms_n, args.seed)
                forms.stored(c, result)
                result.info.insert(
                    0,
                    "status codes: "
                    + ", ".join(f"{k or 'none'} {v}" for k, v in sorted(statuses.items())),
                )
                found = [result]
            elif scenario == "sockets":
                from bench.attack import frames

                result = Figures("sockets", frames.SHOWN)
                # What every hostile frame is answered with, not how many may come: the budgets
                # (the flood scenario's) out of the way, then back.
                site.restart_daphnes(**frames.ROOMY_BUDGETS)
                try:
                    # After the faults scenario (`--only faults --only sockets`), PostgreSQL was
                    # restarted under this process's connection: a dead one is dropped and the
                    # cast made again, as for every scenario's cast.
                    cast = fixtures.db(frames.cast, ports, attempts=2)
                    asyncio.run(frames.run(cast, result, frames_n, args.seed))
                finally:
                    site.restart_daphnes()
                found = [result]
            elif scenario == "flood":
                from bench.attack import flood

                result = Figures("flood", flood.SHOWN)
                pids = {name: site.procs.pid(name) for name in ("daphne-a", "daphne-b")}
                asyncio.run(
                    flood.run(
                        fixtures.db(flood.cast, flood_games, attempts=2),
                        ports,
                        pids,
                        result,
                        quiet=5.0 if quick else 10.0,
                        seconds=flood_seconds,
                        after=30.0,
                    )
                )
                found = [result]
            elif scenario == "deletion":
                from bench.attack import deletion

                result = Figures("deletion", deletion.SHOWN)
                trials = args.deletions or (8 if quick else 16)
                cast = fixtures.db(deletion.cast, trials, attempts=2)
                asyncio.run(deletion.run(cast, ports[0], result))
                found = [result]
            elif scenario == "mail":
                from bench.attack import mailbomb

                result = Figures("mail", mailbomb.SHOWN)
                mailbomb.run(fixtures.db(mailbomb.cast, ports, attempts=2), result, quick)
                found = [result]
            elif scenario == "export":
                from bench.attack import export

                result = Figures("export", export.SHOWN)
                cast = fixtures.db(export.cast, ports[0], attempts=2)
                export.run(cast, result, quiet=5.0 if quick else 10.0, seconds=flood_seconds)
                found = [result]
            elif scenario == "archive":
                from bench.attack import archive

                result = Figures("archive", archive.SHOWN)
                cast = fixtures.db(
                    archive.cast,
                    args.archive_players or (3 if quick else 4),
                    args.archive_games or (1500 if quick else 6000),
                    attempts=2,
                )
                archive.run(cast, ports, result, quiet=5.0 if quick else 10.0)
                found = [result]
            elif scenario == "presence":
                from bench.attack import presence

                result = Figures("presence", presence.SHOWN)
                games = fixtures.db(presence.cast, games_n, attempts=2)
                asyncio.run(presence.run(games, ports, result, STALE_WAIT_SECONDS))
                found = [result]
            else:
                from bench.attack import faults

                tables, cookie, login_user = fixtures.db(faults.cast, tables_n, ports, attempts=2)
                found = asyncio.run(faults.run(site, tables, cookie, login_user, quick, args.seed))
            if scenario != "faults":
                time.sleep(2)  # the last lines reach the logs
                for tb in site.tracebacks_between(sizes):
                    detail, example = describe(tb)
                    result.add("tracebacks", detail=detail, example=example)
            for result in found:
                print_result(result, args.details)
                results.append(result)
    finally:
        site.stop_all()
        site.keep_service_logs()
    whole = total(results)
    print(whole.line())
    print(f"{time.monotonic() - began:.0f} s; the servers' logs: {site.log_dir}")
    return 1 if whole.failures else 0


if __name__ == "__main__":
    sys.exit(main())
