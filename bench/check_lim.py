"""The Lim checker on random tournaments (`make check-lim`): each a random Swiss of 10-200
players paired by us (`python -m events.pairing random`: draws, absences, forfeits),
written as TRF-16, read back and checked round by round (`python -m events.pairing check`):
every round must agree. Prints a summary; exits 1 with the parameters to reproduce the first
disagreement."""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from events.pairing.checker import check_tournament, format_findings  # noqa: E402
from events.pairing.simulate import simulate  # noqa: E402
from events.pairing.trf import read_trf, write_trf  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261205)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started, rounds = time.perf_counter(), 0
    for index in range(args.tournaments):
        players, planned = rng.randint(10, 200), rng.randint(3, 11)
        absences, forfeits = rng.choice([0, 0, 5]), rng.choice([0, 0, 5])
        seed = rng.randrange(2**31)
        report = simulate(
            players, planned, seed, absence_percent=absences, forfeit_percent=forfeits
        )
        findings = check_tournament(read_trf(write_trf(report.tournament)))
        rounds += len(findings)
        if not all(f.agrees for f in findings):
            print(format_findings(findings))
            print(
                f"DISAGREES: tournament {index}: random --players {players} --rounds {planned}"
                f" --seed {seed} --absences {absences} --forfeits {forfeits}"
            )
            return 1
    seconds = time.perf_counter() - started
    print(
        f"check-lim: {args.tournaments} random tournaments (10-200 players), {rounds} rounds,"
        f" every round agrees; {seconds:.0f} s ({1000 * seconds / rounds:.1f} ms a round)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
