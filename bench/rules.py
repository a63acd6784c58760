"""Rules benchmark (``make bench-rules``): random playouts, plies per second.

For each draughts variant: our generator (games.rules.draughts, object API: legal moves + apply)
beside pydraughts (``Board.legal_moves`` + ``push``) on the same kind of random playouts, and the
ratio (target: ours at least 30 times faster). Chess via python-chess is shown for reference.
Usage: ``python bench/rules.py [--seconds S]`` (time budget per measurement, default 3).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import chess  # noqa: E402
from draughts import Board as PyDraughtsBoard  # noqa: E402

from games.rules.draughts import DraughtsVariant  # noqa: E402
from games.rules.variants import VARIANTS  # noqa: E402

MAX_PLIES = 300  # a playout stops at the end of the game or after this many plies
TARGET_RATIO = 30


def ours(rules: DraughtsVariant, seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    board = rules.board
    start = rules.position(rules.start_fen())
    plies = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        pos = start
        for _ in range(MAX_PLIES):
            moves = board.legal_moves(pos)
            if not moves:
                break
            pos = board.apply(pos, rng.choice(moves))
            plies += 1
    return plies / (time.perf_counter() - began)


def pydraughts(code: str, seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    plies = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        board = PyDraughtsBoard(code)
        for _ in range(MAX_PLIES):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))
            plies += 1
            if time.perf_counter() - began > seconds:
                break
    return plies / (time.perf_counter() - began)


def python_chess(seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    plies = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        board = chess.Board()
        for _ in range(MAX_PLIES):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            plies += 1
    return plies / (time.perf_counter() - began)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    print(f"random playouts, legal moves + apply, {args.seconds:g} s per measurement")
    print(f"{'variant':<14} {'ours ply/s':>12} {'pydraughts ply/s':>17} {'ratio':>8}")
    ok = True
    # Every draughts variant of the one list (a new one is measured without a word here).
    for rules in [v.rules for v in VARIANTS if v.board_kind == "draughts"]:
        fast = ours(rules, args.seconds, args.seed)
        slow = pydraughts(rules.code, args.seconds, args.seed)
        ratio = fast / slow
        ok &= ratio >= TARGET_RATIO
        print(f"{rules.code:<14} {fast:>12,.0f} {slow:>17,.0f} {ratio:>7.1f}x")
    print(f"{'chess':<14} {python_chess(args.seconds, args.seed):>12,.0f} {'(python-chess)':>17}")
    print(f"target: ours >= {TARGET_RATIO}x pydraughts on every draughts variant: ", end="")
    print("met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
