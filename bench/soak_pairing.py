"""Long soak of the Lim pairing: thousands of random tournaments (`make soak-pairing`).

Random field sizes (4-200, small ones more often), the planned number of rounds (RULES 4.4,
sometimes the extra round) or, for fields up to 40, more rounds than the field can bear (so
Lim 11 is exercised), draws, absences, forfeits (Lim 1: no bye for a forfeit winner) and
double games. Every round is checked by `checks` (independent of the pairing code): zero
hard-rule violations, and every "no legal pairing" must be confirmed. Prints a summary; exits 1 on any failure with
the parameters to reproduce it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from events.pairing.rounds import plan_tournament  # noqa: E402
from events.pairing.simulate import format_report, simulate  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--max-players", type=int, default=200)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    started = time.perf_counter()
    rounds_paired = stopped = failures = 0
    worst = (0.0, "")
    for index in range(1, args.tournaments + 1):
        # Small fields are where pairings get tight; weight them.
        if rng.random() < 0.6:
            players = rng.randint(4, min(24, args.max_players))
        else:
            players = rng.randint(4, args.max_players)
        plan = plan_tournament(max(4, min(players, 200)), threshold=7, extra=rng.random() < 0.3)
        rounds = plan.rounds
        if players <= 40 and rng.random() < 0.3:
            # Past what the field can bear: Lim 11 must end it exactly when nothing is legal.
            # (Large fields take minutes to exhaust, a hundred rounds; the soak keeps to small.)
            rounds = players + 2
        params = {
            "players": players,
            "rounds": rounds,
            "seed": rng.randrange(2**31),
            "draw_percent": rng.choice([0, 10, 20, 40, 70]),
            "absence_percent": rng.choice([0, 0, 0, 2, 8]),
            "double_games": rng.random() < 0.15,
            "forfeit_percent": rng.choice([0, 0, 0, 3, 10]),
        }
        report = simulate(**params)
        rounds_paired += len(report.rounds)
        stopped += report.stopped is not None
        for r in report.rounds:
            if r.seconds > worst[0]:
                worst = (r.seconds, f"{params} round {r.round}")
        if report.violations:
            failures += 1
            print(f"FAILURE in tournament {index}: simulate(**{params})")
            print(format_report(report))
        if index % 100 == 0:
            elapsed = time.perf_counter() - started
            print(
                f"{index} tournaments, {rounds_paired} rounds, {stopped} ended by Lim 11, "
                f"{failures} failures, {elapsed:.0f} s",
                flush=True,
            )
    print(
        f"done: {args.tournaments} tournaments, {rounds_paired} rounds paired and checked, "
        f"{stopped} ended by Lim 11 (each confirmed independently), {failures} failures; "
        f"slowest round {worst[0] * 1000:.0f} ms ({worst[1]})"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
