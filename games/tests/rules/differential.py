"""Differential check of our draughts generator against pydraughts on random playouts.

For every position reached: the full multiset of legal moves (square path + captured pieces)
must be equal, and so must the position after every legal move. Playout ``g`` of a variant is
seeded with ``(variant, g)``, so a run is reproducible and can be split across processes.

Full run (at least 100,000 positions per variant, docs/benchmarks.md), e.g. as
``make test-differential``::

    .venv/bin/python -m games.tests.rules.differential --positions 100000 --workers 2
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from games.rules import variant
from games.rules.draughts import DraughtsVariant, Position, format_fen, move_text
from games.tests.rules.oracle import oracle_key, our_moves, pydraughts_board

MAX_PLIES = 200  # a playout stops at the game's end or after this many plies
DRAUGHTS_CODES = ("italian", "english", "international")


@dataclass
class Report:
    positions: int = 0
    playouts: int = 0
    mismatches: list[str] = field(default_factory=list)


def check_position(rules: DraughtsVariant, pos: Position) -> list[str]:
    """Differences between us and pydraughts in one position (empty when they agree)."""
    board = pydraughts_board(rules, pos)
    fen = format_fen(pos)
    py_moves = board.legal_moves()
    theirs = [oracle_key(move) for move in py_moves]
    ours = our_moves(rules, pos)
    if Counter(theirs) != Counter(ours):
        return [
            f"{rules.code} {fen}: moves differ, pydraughts {sorted(theirs)} ours {sorted(ours)}"
        ]
    problems = []
    by_text = {move_text(m): m for m in rules.board.legal_moves(pos)}
    for py_move, (text, _) in zip(py_moves, theirs, strict=True):
        board.push(py_move)
        after = rules.normalize_fen(board.fen)
        board.pop()
        mine = format_fen(rules.board.apply(pos, by_text[text]))
        if after != mine:
            problems.append(f"{rules.code} {fen} {text}: pydraughts -> {after}, ours -> {mine}")
    return problems


def _run_share(code: str, positions: int, worker: int, workers: int) -> Report:
    rules = variant(code)
    assert isinstance(rules, DraughtsVariant)
    report = Report()
    start = rules.position(rules.start_fen())
    game = worker
    while report.positions < positions:
        rng = random.Random(f"{code}-{game}")
        pos = start
        for _ in range(MAX_PLIES):
            report.mismatches += check_position(rules, pos)
            report.positions += 1
            moves = rules.board.legal_moves(pos)
            if not moves or report.positions >= positions:
                break
            pos = rules.board.apply(pos, rng.choice(moves))
        report.playouts += 1
        game += workers
    return report


def run(code: str, positions: int, workers: int = 1) -> Report:
    """Check ``positions`` positions of ``code`` split over ``workers`` processes."""
    shares = [positions // workers + (1 if i < positions % workers else 0) for i in range(workers)]
    if workers == 1:
        return _run_share(code, positions, 0, 1)
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        parts = pool.starmap(_run_share, [(code, shares[i], i, workers) for i in range(workers)])
    total = Report()
    for part in parts:
        total.positions += part.positions
        total.playouts += part.playouts
        total.mismatches += part.mismatches
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=100_000, help="per variant")
    parser.add_argument("--workers", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("variants", nargs="*", default=list(DRAUGHTS_CODES))
    args = parser.parse_args()
    failed = False
    for code in args.variants:
        began = time.perf_counter()
        report = run(code, args.positions, args.workers)
        seconds = time.perf_counter() - began
        print(
            f"{code}: {report.positions} positions in {report.playouts} playouts, "
            f"{len(report.mismatches)} mismatches, {seconds:.0f} s",
            flush=True,
        )
        for line in report.mismatches[:20]:
            print("  " + line)
        failed |= bool(report.mismatches)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
