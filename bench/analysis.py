"""Computer analysis benchmark (`make bench-analysis`, docs/benchmarks.md; RULES 14.5).

Two questions, in one sitting on one machine:

1. **A 40-move game analysed in its stated time.** A finished 40-move chess game (80 plies,
   Stockfish playing itself at a few thousand nodes a move, so the same game every run) is
   asked for through the service, as a player asks; the analysis worker as deployed
   (`circolo-analysis.service`'s command: one engine, niced) runs it at `ANALYSIS_NODES`. The
   time from the request to "done" is printed, with the engine's nodes per second and depth.
   **Target**: within the time docs/rules.md 14.2 states (60 s for the default 200,000 nodes).
2. **Live play first.** bench-live's move latency (real daphne, sockets, the tick's worker and
   beat running) and the tick's queue wait (each periodic task from the moment beat sent it to
   the moment the worker began it), quiet, then with two analyses running the whole window
   (two analysis workers, as if the unit ran `--concurrency=2`), then quiet again. **Target**:
   the loaded p99s within the quiet runs' noise (printed side by side; a loaded move p99 more
   than 1.5 times the worse quiet run's plus 10 ms, or a loaded queue wait p99 over 1 s, fails).

`BENCH_ARGS="--games 200 --seconds 30"` as bench-live; `--nodes` for the analysis' budget.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import live  # noqa: E402
from harness import Processes  # noqa: E402

STATED_SECONDS = 60.0  # docs/rules.md 14.2: a 40-move game at the default budget
PLIES = 80
SELF_PLAY_NODES = 3000


def forty_moves() -> list[str]:
    """A 40-move game: Stockfish against itself at SELF_PLAY_NODES a move from the start (one
    thread: the same moves every run), cut at PLIES plies."""
    import chess
    import chess.engine
    from django.conf import settings

    board = chess.Board()
    engine = chess.engine.SimpleEngine.popen_uci(settings.STOCKFISH_PATH)
    try:
        engine.configure({"Threads": 1, "Hash": 16})
        while len(board.move_stack) < PLIES and not board.is_game_over():
            board.push(engine.play(board, chess.engine.Limit(nodes=SELF_PLAY_NODES)).move)
    finally:
        engine.quit()
    return [move.uci() for move in board.move_stack]


def finished_game(moves: list[str]):
    """The game in the database, played through the services and resigned."""
    from accounts.tests.factories import UserFactory
    from games.rules import variant
    from games.services import game_move, game_open, game_presence, game_resign

    white, black = UserFactory(), UserFactory()
    now = int(time.time() * 1000)
    game = game_open(
        white_id=white.pk,
        black_id=black.pk,
        variant_code="chess",
        base_seconds=600,
        increment_seconds=0,
        rated=False,
        start_fen=None,
        at_ms=now,
        opening_number=None,
        opening_moves=(),
    )
    for user in (white.pk, black.pk):
        game_presence(game_id=game.pk, user_id=user, key=f"b-{user}", connected=True, at_ms=now)
    rules, fen = variant("chess"), game.fen
    for ply, move in enumerate(moves):
        mover = white.pk if rules.side_to_move(fen).value == "white" else black.pk
        game_move(game_id=game.pk, user_id=mover, expected_ply=ply, move=move, at_ms=now + ply)
        fen = rules.apply(fen, move)
    game.refresh_from_db()
    if game.is_live:
        game_resign(game_id=game.pk, user_id=white.pk, at_ms=now + 1000)
        game.refresh_from_db()
    return game


def ask(game):
    from analysis.services import analysis_request

    return analysis_request(user=game.white, game_id=game.pk).analysis


def wait_done(analysis_id: int, timeout: float):
    from analysis.models import GameAnalysis

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = GameAnalysis.objects.get(pk=analysis_id)
        if row.state in (GameAnalysis.State.DONE, GameAnalysis.State.FAILED):
            return row
        time.sleep(0.2)
    raise TimeoutError(f"analysis {analysis_id} not done in {timeout:.0f} s")


def engine_speed(nodes: int) -> tuple[float, int]:
    """Nodes a second and depth of one middlegame position at `nodes`, niced as the worker."""
    import chess
    import chess.engine
    from django.conf import settings

    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9")
    engine = chess.engine.SimpleEngine.popen_uci(["nice", "-n", "19", settings.STOCKFISH_PATH])
    try:
        engine.configure({"Threads": 1, "Hash": 16})
        info = engine.analyse(board, chess.engine.Limit(nodes=nodes))
    finally:
        engine.quit()
    return float(info.get("nps", 0)), int(info.get("depth", 0))


def live_window(label: str, args, ports, servers, runs_key: str) -> dict:
    """One bench-live run, and the tick's queue waits over the same window."""
    from bench.evening import queue_waits
    from bench.reminders import task_runs

    start = time.time()
    report = live.run(args.games, args, ports, servers)
    end = time.time()
    waits = queue_waits(task_runs(runs_key, full=True), start + args.warmup, end)
    every = sorted(w for values in waits.values() for w in values)
    p99 = every[min(len(every) - 1, int(0.99 * len(every)))] if every else 0.0
    report["queue_p99"] = p99
    report["queue_n"] = len(every)
    print(
        f"  {label:<24} moves p99 {report['p99']:6.1f} ms (p50 {report['p50']:5.1f})  "
        f"tick queue wait p99 {p99 * 1000:6.1f} ms over {len(every)} tasks",
        flush=True,
    )
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument(
        "--nodes", type=int, default=None, help="ANALYSIS_NODES (default: the setting's)"
    )
    parser.add_argument("--skip-live", action="store_true", help="only the 40-move game")
    args = parser.parse_args()
    # What bench.live.run reads of its arguments.
    args.servers, args.server, args.clients, args.variant = 2, "daphne", 2, "chess"
    args.start_ply, args.spectators, args.timeline, args.profile = 0, 0, False, None

    live.django_setup()
    from django.conf import settings
    from django.core.management import call_command

    from bench.reminders import RUNS_ENV

    call_command("migrate", verbosity=0)
    nodes = args.nodes or settings.ANALYSIS_NODES
    runs_key = f"bench-analysis-runs-{uuid.uuid4().hex}"
    env = dict(live.server_environment(), ANALYSIS_NODES=str(nodes), **{RUNS_ENV: runs_key})
    logs = Path(tempfile.mkdtemp(prefix="bench-analysis-logs-"))
    failed = False
    with Processes(logs / "background", env) as background, Processes(logs, env) as site:
        background.start_worker(node=f"bench-analysis-{os.getpid()}", include=["bench.reminders"])
        background.start_beat()
        background.start_analysis_worker(name="analysis-1", node=f"bench-a1-{os.getpid()}")
        moves = forty_moves()
        nps, depth = engine_speed(nodes)
        print(
            f"bench-analysis: Stockfish at {nodes:,} nodes a position: {nps / 1000:.0f} knodes/s "
            f"niced on this machine, depth {depth} in a middlegame",
            flush=True,
        )
        game = finished_game(moves)
        began = time.monotonic()
        done = wait_done(ask(game).pk, 600)
        took = time.monotonic() - began
        marks = sum(1 for m in done.moves if m.get("mark"))
        stated = STATED_SECONDS * nodes / 200_000
        print(
            f"  {len(moves) // 2}-move game ({len(moves)} plies, {len(moves) + 1} positions): "
            f"{done.state} in {took:.1f} s (stated {stated:.0f} s); {marks} marks, accuracy "
            f"White {done.white_accuracy} / Black {done.black_accuracy}",
            flush=True,
        )
        failed |= done.state != "done" or took > stated
        if not args.skip_live:
            ports = live.start_servers(site, 2)
            servers = list(site.running.values())
            print(
                f"  live play: {args.games} games, a move each every {args.interval:g} s, "
                f"{args.seconds:g} s measured after {args.warmup:g} s",
                flush=True,
            )
            quiet = live_window("quiet", args, ports, servers, runs_key)
            background.start_analysis_worker(name="analysis-2", node=f"bench-a2-{os.getpid()}")
            # Enough analyses that both workers are busy the whole window (each ~a game's time).
            window = args.seconds + args.warmup + 10
            queued = [ask(finished_game(moves)) for _ in range(2 * max(1, int(window / took) + 1))]
            time.sleep(2)
            loaded = live_window("two analyses running", args, ports, servers, runs_key)
            from analysis.models import GameAnalysis

            still = GameAnalysis.objects.filter(
                pk__in=[a.pk for a in queued], state__in=["queued", "running"]
            ).count()
            print(f"  {'':<24} analyses still queued or running at the window's end: {still}")
            background.stop("analysis-1")
            background.stop("analysis-2")
            again = live_window("quiet again", args, ports, servers, runs_key)
            worse_quiet = max(quiet["p99"], again["p99"])
            noise = statistics.fmean([quiet["p99"], again["p99"]])
            print(
                f"  moves p99: quiet {quiet['p99']:.1f} / {again['p99']:.1f} ms, loaded "
                f"{loaded['p99']:.1f} ms ({loaded['p99'] - noise:+.1f} ms against the quiet mean)",
                flush=True,
            )
            failed |= still == 0  # the load did not last the window: not a measurement
            failed |= loaded["p99"] > 1.5 * worse_quiet + 10 or loaded["queue_p99"] > 1.0
            failed |= any(r["errors"] for r in (quiet, loaded, again))
    live.report_server_logs(logs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
