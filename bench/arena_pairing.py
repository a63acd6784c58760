"""Benchmark of the arena's pure pairing (`arena.engine.pairing.pair_waiting`).

Target: a thousand waiting players paired in under 200 ms in every shape below (the exact step
used to run on everybody: 0.6 s quiet with one player blocked against everyone). Prints the
best and the median of a few runs per shape; exits 1 if a median misses the target. A
benchmark, not a test: run it by hand on a quiet machine (`python bench/arena_pairing.py`).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.engine.pairing import Together, Waiting, pair_key, pair_waiting  # noqa: E402

TARGET = 0.200
MIN = 60_000
NOW = 10_000 * MIN
RECENT = Together(1, NOW - MIN)  # one game together a minute ago: in cooldown


def players(n: int, seed: int = 0) -> list[Waiting]:
    rng = random.Random(seed)
    return [
        Waiting(
            i,
            rank=1 + i // 7,
            rating=1000 + (i * 37) % 1400,
            waiting_since_ms=NOW - rng.randrange(600_000),
        )
        for i in range(n)
    ]


def blocks(pairs) -> dict:
    return {pair_key(a, b): RECENT for a, b in pairs if a != b}


def shapes() -> dict[str, tuple[list[Waiting], dict]]:
    rng = random.Random(1)
    n = 1000
    return {
        "no cooldown": (players(n), {}),
        "pairs of neighbours just played": (
            players(n),
            blocks((i, i + 1) for i in range(0, n - 1, 2)),
        ),
        "10 random blocks each": (
            players(n),
            blocks((i, rng.randrange(n)) for i in range(n) for _ in range(10)),
        ),
        "one blocked against everyone": (players(n), blocks((0, j) for j in range(1, n))),
        "one blocked against everyone, odd": (
            players(n + 1),
            blocks((0, j) for j in range(1, n + 1)),
        ),
        "two allowed only one same opponent": (
            players(n),
            blocks((a, j) for a in (0, 1) for j in range(n) if j not in (a, 2)),
        ),
        "60 who all met": (players(n), blocks((a, b) for a in range(60) for b in range(60))),
        # Extreme shapes (each needs some 130,000 pairs in cooldown, hundreds of games per
        # player within minutes): most of their time is reading that history.
        "520 who all met": (players(n), blocks((a, b) for a in range(520) for b in range(520))),
        "odd, 501 who all met": (
            players(n + 1),
            blocks((a, b) for a in range(501) for b in range(501)),
        ),
        "odd, 31 who all met": (
            players(n + 1),
            blocks((a, b) for a in range(31) for b in range(31)),
        ),
    }


def main() -> int:
    runs = 5
    missed = False
    print(f"{'shape':40} {'best':>9} {'median':>9}  pairs waiting")
    for name, (waiting, history) in shapes().items():
        times = []
        for seed in range(runs):
            began = time.perf_counter()
            result = pair_waiting(waiting, history, NOW, seed)
            times.append(time.perf_counter() - began)
        median = statistics.median(times)
        missed |= median >= TARGET
        print(
            f"{name:40} {min(times) * 1000:7.1f}ms {median * 1000:7.1f}ms"
            f"  {len(result.pairs):5} {len(result.waiting):5}"
            + ("  MISSED" if median >= TARGET else "")
        )
    print(f"target: median under {TARGET * 1000:.0f} ms in every shape")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
