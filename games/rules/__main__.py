"""Command line: ``python -m games.rules perft|moves|play ...`` (a stable interface).

- ``perft VARIANT DEPTH [--fen FEN]``: number of leaf positions DEPTH plies deep.
- ``moves VARIANT FEN``: the legal moves, one per line, in the variant's notation (chess: Italian
  algebraic by default, ``--lang en`` for English SAN; ``--uci`` for the machine form).
- ``play VARIANT MOVE...``: replay moves (machine form: UCI or square paths; chess also accepts
  SAN) from the start and print the resulting FEN, or exit 1 naming the first illegal move.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import chess

from . import VARIANT_CODES, IllegalMove, RulesError, variant
from .chess_variant import Chess


def _chess_move(fen: str, text: str) -> str:
    """Chess moves on the command line may be UCI or English SAN."""
    board = chess.Board(fen)
    try:
        return board.parse_uci(text).uci()
    except ValueError:
        pass
    try:
        return board.parse_san(text).uci()
    except ValueError as error:
        raise IllegalMove(f"illegal move {text!r}") from error


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.rules", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    perft = commands.add_parser("perft", help="count leaf positions")
    perft.add_argument("variant", choices=VARIANT_CODES)
    perft.add_argument("depth", type=int)
    perft.add_argument("--fen")
    moves = commands.add_parser("moves", help="list the legal moves of a position")
    moves.add_argument("variant", choices=VARIANT_CODES)
    moves.add_argument("fen")
    moves.add_argument("--lang", choices=("it", "en"), default="it")
    moves.add_argument("--uci", action="store_true", help="machine form instead of notation")
    play = commands.add_parser("play", help="replay moves from the start, print the FEN")
    play.add_argument("variant", choices=VARIANT_CODES)
    play.add_argument("moves", nargs="*")
    args = parser.parse_args(argv)

    rules = variant(args.variant)
    try:
        if args.command == "perft":
            print(rules.perft(args.depth, args.fen))
        elif args.command == "moves":
            fen = rules.normalize_fen(args.fen)
            for move in rules.legal_moves(fen):
                print(move if args.uci else rules.notation(fen, move, args.lang))
        else:
            fen = rules.start_fen()
            for ply, text in enumerate(args.moves, start=1):
                try:
                    move = _chess_move(fen, text) if isinstance(rules, Chess) else text
                    fen = rules.apply(fen, move)
                except IllegalMove:
                    print(f"illegal move at ply {ply}: {text}", file=sys.stderr)
                    return 1
            print(fen)
    except RulesError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
