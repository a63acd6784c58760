"""The fair-play report's figures (RULES 15.2, 15.3): pure Python over small frozen dataclasses
(STYLE 1), no Django.

From each game's stored clocks (the mover's time left after each move, in ms) the think time of
every move; per player, over their games of one event: the mean, the variation (coefficient of
variation), the share of moves in runs of near-equal times, the share of very fast moves, and
the share of their own turns in which their page lost the focus; and from the computer
analyses of their chess games (RULES 14), the engine agreement and the average loss over the
moves that tell something (`engine_moves`). Each figure is then set
against the event's own field by a modified z-score (Iglewicz and Hoaglin, "How to Detect and
Handle Outliers", 1993: M = 0.6745 (x − median) / MAD, an outlier when |M| > 3.5), robust to the
very outlier it looks for, unlike a mean and standard deviation that one machine-flat player
drags towards itself.

The figures are signals for a person to look at, never a verdict (RULES 15.1): nothing here
acts on a player.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from analysis.judgement import Score

# RULES 15.2
FAST_MS = 1_000  # a very fast move: under one second of thought
NEAR_MS = 300  # two think times are near-equal within 0.3 s …
NEAR_SHARE = 0.10  # … or within a tenth of the longer one
RUN_MOVES = 5  # a run: at least this many consecutive moves of one game, each near the last
MIN_MOVES = 20  # a player with fewer counted moves is shown, not compared
MIN_FIELD = 5  # fewer comparable players: no field to compare with, no z-scores
# RULES 15.2, the engine's figures: the moves that tell something. After K. W. Regan's practice
# in his move-matching tests (moves 1-8 skipped, positions beyond 3 pawns left out).
OPENING_PLIES = 16  # each side's first 8 moves: the opening, known by heart
DECIDED_CP = 300  # a position beyond 3 pawns (or a mate) for either side is decided
# RULES 15.3
OUTLIER_Z = 3.5  # Iglewicz and Hoaglin's cut-off for the modified z-score
MAD_SCALE = 0.6745  # the normal distribution's MAD is 0.6745 σ


class Figure(StrEnum):
    MEAN = "mean"  # seconds
    VARIATION = "variation"  # standard deviation / mean
    NEAR_EQUAL = "near_equal"  # share of moves in runs of near-equal times
    FAST = "fast"  # share of moves under FAST_MS
    FOCUS = "focus"  # share of own turns with the focus lost (weak evidence)
    AGREEMENT = "agreement"  # share of counted moves that were the engine's best
    LOSS = "loss"  # mean centipawns lost per counted move


# The direction in which each figure points at a machine (+1: high, -1: low); None: shown and
# compared, never flagged (a quick player is not a suspect for being quick).
SUSPICIOUS: dict[Figure, int | None] = {
    Figure.MEAN: None,
    Figure.VARIATION: -1,
    Figure.NEAR_EQUAL: +1,
    Figure.FAST: +1,
    Figure.FOCUS: +1,
    Figure.AGREEMENT: +1,
    Figure.LOSS: -1,
}
# The figures read from the computer analyses: counted over the analysed moves, not the timed.
ENGINE = frozenset({Figure.AGREEMENT, Figure.LOSS})
# Weak evidence (RULES 15.3): outliers shown, never flagging a player by themselves. Focus lost
# is reported by the player's own page; many very fast moves are also how a strong player
# plays a quick game, or a lost one to its end.
WEAK = frozenset({Figure.FAST, Figure.FOCUS})
# The least spread a figure's field is given, so that a field of nearly equal figures (a MAD
# near 0) does not make every small difference an outlier: in the figure's own units.
MIN_SPREAD: dict[Figure, float] = {
    Figure.MEAN: 0.5,
    Figure.VARIATION: 0.1,
    Figure.NEAR_EQUAL: 0.03,
    Figure.FAST: 0.03,
    Figure.FOCUS: 0.03,
    Figure.AGREEMENT: 0.05,
    Figure.LOSS: 5.0,
}


@dataclass(frozen=True, slots=True)
class GameClocks:
    """One game as the report reads it: the player ids, each move's clock after it (ms, the
    mover's time left), the increment of each side and who moved first."""

    white: int
    black: int
    clocks: Sequence[int]
    base_ms: int
    white_increment_ms: int
    black_increment_ms: int
    white_first: bool = True


def think_times(game: GameClocks) -> dict[int, list[int]]:
    """Each player's think times (ms) in this game, in order.

    The think time of a move is the mover's clock after their previous move (or the base),
    plus the increment, minus their clock after this move. Each side's first move is left out:
    its clock started when the game opened, so it holds the arrival at the board (RULES 3).
    A negative difference (a boost halving the time, +15 s given) counts as 0.
    """
    times: dict[int, list[int]] = {game.white: [], game.black: []}
    left = {True: game.base_ms, False: game.base_ms}
    increment = {True: game.white_increment_ms, False: game.black_increment_ms}
    moved = {True: False, False: False}
    white_moves = game.white_first
    for after in game.clocks:
        if moved[white_moves]:
            spent = left[white_moves] + increment[white_moves] - after
            times[game.white if white_moves else game.black].append(max(0, spent))
        moved[white_moves] = True
        left[white_moves] = after
        white_moves = not white_moves
    return times


def near(a: int, b: int) -> bool:
    return abs(a - b) <= max(NEAR_MS, NEAR_SHARE * max(a, b))


def moves_in_runs(times: Sequence[int]) -> int:
    """How many of one game's think times sit in runs of at least RUN_MOVES consecutive moves,
    each near-equal to the one before."""
    counted, run = 0, 1
    for previous, current in zip(times, times[1:], strict=False):
        if near(previous, current):
            run += 1
        else:
            counted += run if run >= RUN_MOVES else 0
            run = 1
    if times:
        counted += run if run >= RUN_MOVES else 0
    return counted


@dataclass(frozen=True, slots=True)
class AnalysedGame:
    """One chess game and its computer analysis as the report reads it: the moves played (UCI),
    and for each position from the start (one more than the moves) the engine's evaluation and
    its best move (None where it gave none)."""

    white: int
    black: int
    moves: Sequence[str]
    scores: Sequence[Score]
    best: Sequence[str | None]
    white_first: bool = True


@dataclass(frozen=True, slots=True)
class EngineMove:
    """A counted move: whether it was the engine's best, and the centipawns it lost."""

    agreed: bool
    loss: int


def decided(score: Score) -> bool:
    """A position already decided: beyond DECIDED_CP for either side, or a mate found."""
    return score.mate is not None or abs(score.white_cp()) > DECIDED_CP


def engine_moves(game: AnalysedGame) -> dict[int, list[EngineMove]]:
    """Each player's counted moves of an analysed game (RULES 15.2): every move after the
    first OPENING_PLIES plies of the game, played in a position not already decided.

    The loss of a move is the mover's evaluation before it (the engine's best play there) less
    the mover's evaluation after it, each within the ceiling (a mate counts as the ceiling,
    `Score.white_cp`), never below 0: lichess's average centipawn loss (lila's `AccuracyCP`).
    A move is the engine's when it is the best move the engine gave in the position before it.
    """
    counted: dict[int, list[EngineMove]] = {game.white: [], game.black: []}
    for ply in range(OPENING_PLIES, len(game.moves)):
        if ply + 1 >= len(game.scores):
            break  # an analysis shorter than the game: nothing to read past its end
        before, after = game.scores[ply], game.scores[ply + 1]
        if decided(before):
            continue
        white_moved = (ply % 2 == 0) == game.white_first
        change = after.white_cp() - before.white_cp()
        loss = max(0, -change if white_moved else change)
        best = game.best[ply] if ply < len(game.best) else None
        mover = game.white if white_moved else game.black
        counted[mover].append(EngineMove(best is not None and best == game.moves[ply], loss))
    return counted


@dataclass(frozen=True, slots=True)
class PlayerFigures:
    player: int
    moves: int  # think times counted
    turns: int  # own turns (moves made), for the focus share
    focus_lost: int  # own turns with the focus lost
    values: dict[Figure, float]
    engine_moves: int = 0  # analysed moves counted (RULES 15.2)

    def sample(self, figure: Figure) -> int:
        """How many moves the figure is read from."""
        return self.engine_moves if figure in ENGINE else self.moves


def player_figures(
    player: int,
    games: Iterable[Sequence[int]],
    *,
    turns: int,
    focus_lost: int,
    engine: Sequence[EngineMove] = (),
) -> PlayerFigures:
    """A player's figures from their think times, one list per game, and their counted moves
    of analysed games (`engine`). A figure with nothing to read from is absent, never 0."""
    per_game = [list(times) for times in games]
    every = [t for times in per_game for t in times]
    values: dict[Figure, float] = {}
    if every:
        mean = statistics.fmean(every)
        values[Figure.MEAN] = mean / 1000
        values[Figure.VARIATION] = statistics.pstdev(every) / mean if mean else 0.0
        values[Figure.NEAR_EQUAL] = sum(moves_in_runs(t) for t in per_game) / len(every)
        values[Figure.FAST] = sum(t < FAST_MS for t in every) / len(every)
    if turns:
        values[Figure.FOCUS] = min(1.0, focus_lost / turns)
    if engine:
        values[Figure.AGREEMENT] = sum(m.agreed for m in engine) / len(engine)
        values[Figure.LOSS] = statistics.fmean(m.loss for m in engine)
    return PlayerFigures(player, len(every), turns, focus_lost, values, len(engine))


@dataclass(frozen=True, slots=True)
class Scored:
    """A figure against the field: its modified z-score (None: no field), and whether it is an
    outlier in the direction that points at a machine."""

    value: float
    z: float | None
    outlier: bool


@dataclass(frozen=True, slots=True)
class PlayerReport:
    figures: PlayerFigures
    scored: dict[Figure, Scored]
    compared: bool  # a figure of theirs set against the field (enough moves, and a field)

    @property
    def flagged(self) -> bool:
        """RULES 15.3: a strong figure (variation, near-equal runs, engine agreement, average
        loss) is an outlier."""
        return any(s.outlier for f, s in self.scored.items() if f not in WEAK)

    @property
    def weak_signal(self) -> bool:
        return any(s.outlier for f, s in self.scored.items() if f in WEAK)


def modified_z(value: float, median: float, mad: float, floor: float) -> float:
    """Iglewicz and Hoaglin's M, with the MAD given at least `floor` (MIN_SPREAD)."""
    return MAD_SCALE * (value - median) / max(mad, floor)


def field_report(players: Sequence[PlayerFigures]) -> list[PlayerReport]:
    """Every player's figures set against the field, figure by figure: the players with at
    least MIN_MOVES moves counted for it (think times, or analysed moves for the engine's
    figures), if there are at least MIN_FIELD of them (RULES 15.3). In the order given."""
    centres: dict[Figure, tuple[float, float]] = {}
    for figure in Figure:
        values = [
            p.values[figure]
            for p in players
            if p.sample(figure) >= MIN_MOVES and figure in p.values
        ]
        if len(values) < MIN_FIELD:
            continue
        median = statistics.median(values)
        mad = statistics.median(abs(v - median) for v in values)
        centres[figure] = (median, mad)
    reports = []
    for p in players:
        scored: dict[Figure, Scored] = {}
        for figure, value in p.values.items():
            z = None
            if p.sample(figure) >= MIN_MOVES and figure in centres:
                median, mad = centres[figure]
                z = modified_z(value, median, mad, MIN_SPREAD[figure])
            direction = SUSPICIOUS[figure]
            outlier = z is not None and direction is not None and direction * z > OUTLIER_Z
            scored[figure] = Scored(value, z, outlier)
        compared = any(s.z is not None for s in scored.values())
        reports.append(PlayerReport(p, scored, compared))
    return reports
