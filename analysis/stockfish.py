"""Stockfish, driven through python-chess's public `chess.engine` API only (RULES 14.1). Pure of
Django: a path, a line of moves and a node budget in, evaluations out; the worker's service
(`analysis.services.analysis_run`) stores them.

Every failure is one of two errors, so the caller can tell the player something true:
`EngineUnavailable` (no engine at that path: the site says analysis is unavailable) and
`EngineFailed` (it started and then died, hung or talked nonsense: the analysis failed and may
be asked again).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import chess
import chess.engine

from analysis.judgement import CP_CEILING, Score

PV_LENGTH = 8  # moves of a best line kept per position
HASH_MB = 16  # the engine's hash table: small, one engine per worker process
START_SECONDS = 10.0  # the engine has this long to answer `uci`


class EngineUnavailable(Exception):
    """No engine can be started at the configured path."""


class EngineFailed(Exception):
    """The engine started but did not finish the work."""


@dataclass(frozen=True, slots=True)
class PositionEval:
    score: Score  # from White's side
    best: tuple[str, ...]  # the engine's best line, UCI; empty where the game is over
    nodes: int


def engine_found(path: str) -> bool:
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def _start(path: str) -> chess.engine.SimpleEngine:
    if not engine_found(path):
        raise EngineUnavailable(f"no engine at {path!r}")
    try:
        engine = chess.engine.SimpleEngine.popen_uci(path, timeout=START_SECONDS)
    except (OSError, chess.engine.EngineError, TimeoutError) as error:
        raise EngineUnavailable(f"the engine at {path!r} did not start: {error}") from error
    try:
        # One thread (the worker's concurrency is the number of engines at once) and a small
        # hash; an engine without these options keeps its own.
        wanted = {"Threads": 1, "Hash": HASH_MB}
        engine.configure({name: value for name, value in wanted.items() if name in engine.options})
    except (chess.engine.EngineError, TimeoutError) as error:
        engine.close()
        raise EngineFailed(f"the engine refused its options: {error}") from error
    return engine


def _over(board: chess.Board) -> Score | None:
    """The exact score of a position the rules end: mated (the side to move lost) or drawn."""
    if board.is_checkmate():  # mate given: `cp` carries whose it is
        return Score(mate=0, cp=CP_CEILING if board.turn == chess.BLACK else -CP_CEILING)
    if board.is_stalemate() or board.is_insufficient_material():
        return Score(cp=0)
    return None


def _eval(
    engine: chess.engine.SimpleEngine, board: chess.Board, nodes: int, key: object
) -> PositionEval:
    over = _over(board)
    if over is not None:
        return PositionEval(over, (), 0)
    info = engine.analyse(board, chess.engine.Limit(nodes=nodes), game=key)
    pov = info.get("score")
    if pov is None:
        raise EngineFailed("the engine gave no score")
    white = pov.white()
    if white.is_mate():
        score = Score(mate=white.mate())
    else:
        score = Score(cp=white.score())
    best = tuple(move.uci() for move in info.get("pv", ())[:PV_LENGTH])
    return PositionEval(score, best, int(info.get("nodes", 0)))


def evaluate_line(
    path: str,
    start_fen: str,
    moves: Sequence[str],
    nodes: int,
    *,
    progress: Callable[[int], None] | None = None,
) -> list[PositionEval]:
    """Every position of a chess line (the start, then after each move, in UCI), evaluated by
    the engine at `path` with `nodes` nodes each. `progress(done)` is called after each
    position. Raises EngineUnavailable, EngineFailed, or ValueError for an illegal move."""
    board = chess.Board(start_fen)
    boards = [board.copy()]
    for move in moves:
        played = _uci(move)
        if not board.is_legal(played):
            raise ValueError(f"illegal move {move!r}")
        board.push(played)
        boards.append(board.copy())
    engine = _start(path)
    key = object()  # one game for the engine: its hash carries from one position to the next
    try:
        evals = []
        for index, position in enumerate(boards):
            evals.append(_eval(engine, position, nodes, key))
            if progress is not None:
                progress(index + 1)
        return evals
    except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as error:
        raise EngineFailed(f"the engine stopped: {error}") from error
    finally:
        _close(engine)


def evaluate_position(path: str, fen: str, nodes: int) -> PositionEval:
    """One position (the free analysis board's question). Raises EngineUnavailable,
    EngineFailed, or ValueError for a position python-chess cannot set up."""
    board = chess.Board(fen)
    if not board.is_valid():
        raise ValueError("not a legal chess position")
    engine = _start(path)
    try:
        return _eval(engine, board, nodes, object())
    except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as error:
        raise EngineFailed(f"the engine stopped: {error}") from error
    finally:
        _close(engine)


def _uci(move: str) -> chess.Move:
    try:
        return chess.Move.from_uci(move)
    except ValueError:  # not UCI at all: no position has it as a legal move
        return chess.Move.null()


def _close(engine: chess.engine.SimpleEngine) -> None:
    try:
        engine.quit()
    except Exception:  # already dead: nothing left to ask it
        engine.close()
