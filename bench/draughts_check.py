"""The draughts tactical check's strength, measured (``make bench-draughts-check``, RULES 14.10).

For each draughts variant of the one list:

1. **Nodes per second** of the search, checking random games ply by ply
   (`analysis.draughts.check.check_game`, `--check-nodes` a ply).
2. **Matches at fixed nodes** (`--nodes` a move, every search its iterative deepening):
   the full search against itself held to depth 2 (`--shallow`), and against a greedy player
   (the move that leaves it the most material after the opponent's forced captures, else at
   random). Each opening (`--plies` random plies from the start) is played twice, colours
   swapped. A game ends by the rules (no legal move; the variant's draw rules), or at
   `--max-plies`, adjudicated on material: a man or more ahead wins, else a draw.

Prints W/D/L and the score of the full search per opponent. No target: the figures say how
strong the check is (docs/benchmarks.md), so that nobody has to take it on trust.
Usage: ``python bench/draughts_check.py [--games N] [--nodes N] [--variant CODE ...]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.draughts.check import check_game  # noqa: E402
from analysis.draughts.search import MAN, Searcher  # noqa: E402
from games.rules.draughts import DraughtsVariant, Move, Position, format_fen  # noqa: E402
from games.rules.variants import VARIANTS  # noqa: E402

Player = Callable[[Position], Move]


def nodes_per_second(rules: DraughtsVariant, games: int, plies: int, budget: int, seed: int):
    rng = random.Random(seed)
    nodes, seconds, checked = 0, 0.0, 0
    for _ in range(games):
        fen, moves = rules.start_fen(), []
        for _ in range(plies):
            legal = rules.legal_moves(fen)
            if not legal:
                break
            moves.append(rng.choice(legal))
            fen = rules.apply(fen, moves[-1])
        began = time.perf_counter()
        checks = check_game(rules.code, moves, node_budget=budget)
        seconds += time.perf_counter() - began
        nodes += sum(c.nodes for c in checks)
        checked += len(checks)
    return nodes / seconds, seconds / max(checked, 1), checked


def searcher_player(rules: DraughtsVariant, nodes: int, max_depth: int) -> Player:
    searcher = Searcher(rules.board)

    def play(pos: Position) -> Move:
        move = searcher.best_move(pos, node_budget=nodes, max_depth=max_depth)
        assert move is not None
        return move

    return play


def greedy_player(rules: DraughtsVariant, rng: random.Random) -> Player:
    """One ply and the forced captures after it: the most material for itself, else random."""
    board = rules.board
    material = Searcher(rules.board).material

    def settled(pos: Position) -> int:
        # The opponent's forced captures played out greedily (no choice is searched).
        replies = board.legal_moves(pos)
        if replies and replies[0][1]:
            return max(-settled(board.apply(pos, m)) for m in replies)
        return material(pos)

    def play(pos: Position) -> Move:
        moves = board.legal_moves(pos)
        scored = [(-settled(board.apply(pos, m)), rng.random(), m) for m in moves]
        return max(scored, key=lambda t: (t[0], t[1]))[2]

    return play


def play_game(rules: DraughtsVariant, start: Position, white: Player, black: Player, limit: int):
    """+1 White wins, 0 draw, -1 Black wins."""
    board = rules.board
    pos, history = start, []
    for _ in range(limit):
        fen = format_fen(pos)
        outcome = rules.outcome(fen, history)  # no legal move, or the variant's draw rules
        if outcome is not None:
            return {"1-0": 1, "0-1": -1}.get(str(outcome.result), 0)
        move = (white if pos.white_to_move else black)(pos)
        history.append(fen)
        pos = board.apply(pos, move)
    kings = pos.kings
    king = Searcher(board).king_value
    balance = MAN * ((pos.white & ~kings).bit_count() - (pos.black & ~kings).bit_count()) + king * (
        (pos.white & kings).bit_count() - (pos.black & kings).bit_count()
    )
    return 1 if balance >= MAN else -1 if balance <= -MAN else 0


def match(rules, make_full, make_other, games, plies, limit, seed):
    """W/D/L of the full search against `make_other`, each opening twice, colours swapped."""
    rng = random.Random(seed)
    wins = draws = losses = 0
    for _ in range((games + 1) // 2):
        pos = rules.position(rules.start_fen())
        for _ in range(plies):
            pos = rules.board.apply(pos, rng.choice(rules.board.legal_moves(pos)))
        for full_is_white in (True, False):
            full, other = make_full(), make_other()
            white, black = (full, other) if full_is_white else (other, full)
            result = play_game(rules, pos, white, black, limit)
            mine = result if full_is_white else -result
            wins += mine > 0
            draws += mine == 0
            losses += mine < 0
    return wins, draws, losses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=8, help="games per match (even)")
    parser.add_argument("--nodes", type=int, default=2000, help="nodes a move in the matches")
    parser.add_argument("--shallow", type=int, default=2, help="the weaker search's depth")
    parser.add_argument("--plies", type=int, default=4, help="random plies of each opening")
    parser.add_argument("--max-plies", type=int, default=160)
    parser.add_argument("--check-nodes", type=int, default=5000, help="nodes a ply, checked")
    parser.add_argument("--check-games", type=int, default=3)
    parser.add_argument("--variant", action="append", help="a variant code (default: all)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rules_list = [
        v.rules
        for v in VARIANTS
        if v.board_kind == "draughts" and (not args.variant or v.code in args.variant)
    ]
    print(f"check: random games of 40 plies, {args.check_nodes} nodes a ply at most")
    print(f"{'variant':<14} {'nodes/s':>9} {'s/ply':>7} {'plies':>6}")
    for rules in rules_list:
        nps, per_ply, plies = nodes_per_second(
            rules, args.check_games, 40, args.check_nodes, args.seed
        )
        print(f"{rules.code:<14} {nps:>9,.0f} {per_ply:>7.3f} {plies:>6}")
    print(
        f"\nmatches: {args.games} games each, {args.nodes} nodes a move, openings of "
        f"{args.plies} random plies, adjudicated at {args.max_plies} plies"
    )
    print(f"{'variant':<14} {'opponent':<22} {'W':>3} {'D':>3} {'L':>3} {'score':>7}")
    for rules in rules_list:
        began = time.perf_counter()
        opponents = {
            f"itself at depth {args.shallow}": lambda r=rules: searcher_player(
                r, args.nodes, args.shallow
            ),
            "greedy": lambda r=rules: greedy_player(r, random.Random(args.seed)),
        }
        for name, make_other in opponents.items():
            w, d, lost = match(
                rules,
                lambda r=rules: searcher_player(r, args.nodes, 64),
                make_other,
                args.games,
                args.plies,
                args.max_plies,
                args.seed,
            )
            score = (w + d / 2) / max(w + d + lost, 1)
            print(f"{rules.code:<14} {name:<22} {w:>3} {d:>3} {lost:>3} {score:>7.0%}")
        print(f"{'':<14} ({time.perf_counter() - began:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
