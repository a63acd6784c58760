"""A small draughts search on our own move generator (RULES 14.10): alpha-beta (negamax) with
capture quiescence, iterative deepening and a transposition table keyed by Zobrist hashes,
bounded by a count of nodes.

Pure Python over `games.rules.draughts` (STYLE 1): the board's `legal_moves` and `apply` are
the only rules it knows, so every line it gives is legal by construction and the three
variants (Italian, English, International) share one search.

What it is and is not (RULES 14.10): a tactical check. Its evaluation is material (a man 100,
a king `king_value`: 150 on 8×8, 300 on 10×10) plus a small bonus for men advanced; it knows
no strategy, no endgame databases, and no draw rule (repetitions and the king-move counts are
not seen inside its horizon). What it finds is material won or lost within a few moves.

Quiescence: captures are compulsory in every variant, so a position where the side to move
must capture is never a leaf: at the horizon the search goes on while captures are forced, and
stops at the first quiet position (no stand-pat is possible when the capture must be made).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from games.rules.draughts import Board, Move, Position

MAN = 100  # centi-men: every score is in hundredths of a man
WIN = 100_000  # the side to move has no legal move: it has lost (every variant)
WIN_BOUND = WIN - 1000  # scores beyond this are wins or losses found within the horizon
INFINITY = 10 * WIN
MAX_PLY = 128  # plies below the root, quiescence included (killers, mate distance)

# The king's worth in men (RULES 14.10.3): a convention of draughts programs, not a federation
# figure. On 8×8 a short-range king is worth about one and a half men; on 10×10 the flying king
# sweeps whole diagonals and is commonly counted as three.
KING_VALUE_8 = 150
KING_VALUE_10 = 300
# A man one row nearer its crowning row: 1 centi-man. Small on purpose, so that the score of a
# line is its material, with advancement only breaking ties between equal material.
ADVANCE = 1

_EXACT, _LOWER, _UPPER = 0, 1, 2


class OutOfNodes(Exception):
    """The node budget is spent: the iteration under way is abandoned."""


@dataclass
class Stats:
    nodes: int = 0
    depth: int = 0  # the deepest iteration completed


@dataclass
class Searcher:
    """One search context for one variant's board: the tables and the transposition table,
    kept between searches of the same game (positions recur from ply to ply)."""

    board: Board
    tt_size: int = 1 << 18  # entries kept, oldest dropped first when full
    king_value: int = 0
    stats: Stats = field(default_factory=Stats)

    def __post_init__(self) -> None:
        board = self.board
        if not self.king_value:
            self.king_value = KING_VALUE_10 if board.size >= 10 else KING_VALUE_8
        rng = random.Random(0x5EED)  # fixed: the same hashes every run, reproducible results
        n = board.squares
        # Zobrist keys: white man, black man, white king, black king on each square; the side.
        self._keys = [[rng.getrandbits(64) for _ in range(n)] for _ in range(4)]
        self._side_key = rng.getrandbits(64)
        # Rows as masks, for the advancement bonus by popcount.
        rows: dict[int, int] = {}
        for s, (row, _) in enumerate(board.coords):
            rows[row] = rows.get(row, 0) | (1 << s)
        last = board.size - 1
        # (mask, white's rows advanced, black's rows advanced)
        self._rows = [(mask, last - row, row) for row, mask in sorted(rows.items())]
        self._tt: dict[int, tuple[int, int, int, Move | None]] = {}
        self._killers: list[list[Move | None]] = [[None, None] for _ in range(MAX_PLY + 1)]
        self._budget = 0

    # ------------------------------------------------------------------ hashing

    def key(self, pos: Position) -> int:
        h = self._side_key if pos.white_to_move else 0
        wm, bm, wk, bk = self._keys
        for bits, table in (
            (pos.white & ~pos.kings, wm),
            (pos.black & ~pos.kings, bm),
            (pos.white & pos.kings, wk),
            (pos.black & pos.kings, bk),
        ):
            while bits:
                low = bits & -bits
                bits ^= low
                h ^= table[low.bit_length() - 1]
        return h

    def _rekey(self, h: int, before: Position, after: Position) -> int:
        """The key of `after` from `before`'s: only the squares the move changed."""
        changed = (
            (before.white ^ after.white)
            | (before.black ^ after.black)
            | (before.kings ^ after.kings)
        )
        keys = self._keys
        while changed:
            low = changed & -changed
            changed ^= low
            s = low.bit_length() - 1
            for pos in (before, after):
                if pos.white & low:
                    h ^= keys[2 if pos.kings & low else 0][s]
                elif pos.black & low:
                    h ^= keys[3 if pos.kings & low else 1][s]
        return h ^ self._side_key

    # ------------------------------------------------------------------ evaluation

    def evaluate(self, pos: Position) -> int:
        """Material and advancement, from the side to move's point of view (centi-men)."""
        kings = pos.kings
        white_men, black_men = pos.white & ~kings, pos.black & ~kings
        score = MAN * (white_men.bit_count() - black_men.bit_count()) + self.king_value * (
            (pos.white & kings).bit_count() - (pos.black & kings).bit_count()
        )
        advance = 0
        for mask, white_rows, black_rows in self._rows:
            advance += white_rows * (white_men & mask).bit_count()
            advance -= black_rows * (black_men & mask).bit_count()
        score += ADVANCE * advance
        return score if pos.white_to_move else -score

    def material(self, pos: Position) -> int:
        """Material alone (centi-men), from the side to move's point of view."""
        kings = pos.kings
        score = MAN * ((pos.white & ~kings).bit_count() - (pos.black & ~kings).bit_count())
        score += self.king_value * (
            (pos.white & kings).bit_count() - (pos.black & kings).bit_count()
        )
        return score if pos.white_to_move else -score

    # ------------------------------------------------------------------ search

    def _order(self, moves: list[Move], tt_move: Move | None, ply: int) -> list[Move]:
        if len(moves) < 2:
            return moves
        killers = self._killers[ply] if ply <= MAX_PLY else (None, None)

        def rank(move: Move) -> int:
            if move == tt_move:
                return -1000
            if move in killers:
                return -500
            return -len(move[1]) * 10  # bigger captures first (in English, free choice)

        return sorted(moves, key=rank)

    def _tick(self) -> None:
        self.stats.nodes += 1
        if self.stats.nodes > self._budget:
            raise OutOfNodes

    def _negamax(self, pos: Position, h: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        self._tick()
        moves = self.board.legal_moves(pos)
        if not moves:
            return -WIN + ply  # no legal move: lost (sooner is worse)
        forced_capture = bool(moves[0][1])
        if depth <= 0 and not forced_capture:
            return self.evaluate(pos)
        if ply >= MAX_PLY:
            return self.evaluate(pos)
        # Quiescence: at or below the horizon, forced captures are played out and do not
        # spend depth, so a leaf is never a position in the middle of an exchange.
        child_depth = depth - 1 if depth > 0 else 0
        if forced_capture and len(moves) == 1 and depth > 0:
            child_depth = depth  # a single forced capture is no choice: it costs no depth
        original_alpha = alpha
        entry = self._tt.get(h)
        tt_move = None
        if entry is not None:
            e_depth, e_score, e_flag, tt_move = entry
            if e_depth >= depth:
                if e_flag == _EXACT:
                    return e_score
                if e_flag == _LOWER and e_score >= beta:
                    return e_score
                if e_flag == _UPPER and e_score <= alpha:
                    return e_score
        best = -INFINITY
        best_move: Move | None = None
        apply = self.board.apply
        for move in self._order(moves, tt_move, ply):
            child = apply(pos, move)
            score = -self._negamax(
                child, self._rekey(h, pos, child), child_depth, -beta, -alpha, ply + 1
            )
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not move[1] and ply <= MAX_PLY:
                            killers = self._killers[ply]
                            if killers[0] != move:
                                killers[1], killers[0] = killers[0], move
                        break
        flag = _UPPER if best <= original_alpha else _LOWER if best >= beta else _EXACT
        self._store(h, depth, best, flag, best_move)
        return best

    def _store(self, h: int, depth: int, score: int, flag: int, move: Move | None) -> None:
        tt = self._tt
        if h not in tt and len(tt) >= self.tt_size:
            del tt[next(iter(tt))]  # dicts keep insertion order: the oldest entry goes
        tt[h] = (depth, score, flag, move)

    def principal_variation(self, pos: Position, limit: int = 16) -> list[Move]:
        """The line the transposition table holds from `pos` (each stored best move, checked
        legal), at most `limit` moves."""
        line: list[Move] = []
        seen: set[int] = set()
        h = self.key(pos)
        while len(line) < limit and h not in seen:
            seen.add(h)
            entry = self._tt.get(h)
            if entry is None or entry[3] is None:
                break
            move = entry[3]
            if move not in self.board.legal_moves(pos):
                break  # a hash collision: stop rather than print an illegal line
            line.append(move)
            after = self.board.apply(pos, move)
            h = self._rekey(h, pos, after)
            pos = after
        return line

    # ------------------------------------------------------------------ the root

    def analyse(
        self,
        pos: Position,
        *,
        node_budget: int,
        max_depth: int = 64,
        first: Move | None = None,
    ) -> RootResult:
        """Iterative deepening from `pos` within `node_budget` nodes, up to `max_depth`.

        `first` (a legal move of `pos`, the move a player chose) is searched first at every
        depth with a full window, so its score is exact at the same depth as the best move's,
        and the two can be compared (the check's "loss"). The result is the last iteration
        completed; the first iteration always completes (its budget is not counted).
        """
        moves = self.board.legal_moves(pos)
        if not moves:
            return RootResult(
                score=-WIN, best=(), first_score=None, first_line=(), depth=0, nodes=0
            )
        if first is not None and first not in moves:
            raise ValueError("the move to compare is not legal in this position")
        self.stats = Stats()
        self._killers = [[None, None] for _ in range(MAX_PLY + 1)]
        h = self.key(pos)
        completed: RootResult | None = None
        best_move: Move | None = first
        for depth in range(1, max_depth + 1):
            self._budget = node_budget if completed is not None else 1 << 62
            try:
                result = self._root(pos, h, moves, depth, first, best_move)
            except OutOfNodes:
                break
            completed = result
            best_move = result.best[0] if result.best else None
            self.stats.depth = depth
            if abs(result.score) >= WIN_BOUND:
                break  # a forced win or loss is found: deeper cannot change it
            if self.stats.nodes >= node_budget:
                break
        assert completed is not None
        return RootResult(
            score=completed.score,
            best=completed.best,
            first_score=completed.first_score,
            first_line=completed.first_line,
            depth=self.stats.depth,
            nodes=self.stats.nodes,
        )

    def _root(
        self,
        pos: Position,
        h: int,
        moves: list[Move],
        depth: int,
        first: Move | None,
        previous_best: Move | None,
    ) -> RootResult:
        self.stats.nodes += 1
        ordered = self._order(moves, previous_best, 0)
        if first is not None:
            ordered = [first] + [m for m in ordered if m != first]
        apply = self.board.apply
        child_depth = depth - 1
        alpha, best, best_move = -INFINITY, -INFINITY, ordered[0]
        first_score: int | None = None
        for move in ordered:
            child = apply(pos, move)
            child_key = self._rekey(h, pos, child)
            if move == first:
                score = -self._negamax(child, child_key, child_depth, -INFINITY, INFINITY, 1)
                first_score = score
            else:
                score = -self._negamax(child, child_key, child_depth, -INFINITY, -alpha, 1)
            if score > best:
                best, best_move = score, move
                alpha = max(alpha, score)
        self._store(h, depth, best, _EXACT, best_move)
        after_best = apply(pos, best_move)
        best_line = (best_move, *self.principal_variation(after_best, depth + 8))
        first_line: tuple[Move, ...] = ()
        if first is not None:
            first_line = tuple(self.principal_variation(apply(pos, first), depth + 8))
        return RootResult(
            score=best,
            best=best_line,
            first_score=first_score,
            first_line=first_line,
            depth=depth,
            nodes=self.stats.nodes,
        )

    def best_move(self, pos: Position, *, node_budget: int, max_depth: int = 64) -> Move | None:
        """The move the search prefers (None when there is none)."""
        result = self.analyse(pos, node_budget=node_budget, max_depth=max_depth)
        return result.best[0] if result.best else None


@dataclass(frozen=True)
class RootResult:
    """What one analysis of a position found. Scores in centi-men, the side to move's view.

    `best`: the best move and the line after it; `first_score`: the exact score of the move
    searched first, at the same depth; `first_line`: the best line after that move (its
    refutation when it is worse)."""

    score: int
    best: tuple[Move, ...]
    first_score: int | None
    first_line: tuple[Move, ...]
    depth: int
    nodes: int
