"""The engine's figures of the report, pure (RULES 15.2, 15.3): which moves count (not the
opening, not a decided position), engine agreement and average centipawn loss from each
position's stored evaluation and best move, "no figure" rather than 0, and the field's
comparison over the analysed moves alone."""

from __future__ import annotations

import random

from analysis.judgement import Score
from fairplay.figures import (
    DECIDED_CP,
    MIN_FIELD,
    MIN_MOVES,
    OPENING_PLIES,
    AnalysedGame,
    EngineMove,
    Figure,
    engine_moves,
    field_report,
    player_figures,
)

WHITE, BLACK = 1, 2


def game(cps: list[int | Score], best: list[str | None], moves: list[str], **kw) -> AnalysedGame:
    scores = [cp if isinstance(cp, Score) else Score(cp=cp) for cp in cps]
    return AnalysedGame(WHITE, BLACK, moves, scores, best, **kw)


def opening(plies: int = OPENING_PLIES) -> tuple[list[int], list[str], list[str]]:
    """`plies` moves, all the engine's, the evaluation level at +20."""
    return [20] * plies, [f"m{i}" for i in range(plies)], [f"m{i}" for i in range(plies)]


def test_the_opening_is_not_counted():
    cps, best, moves = opening()
    counted = engine_moves(game([*cps, 20], best, moves))
    assert counted == {WHITE: [], BLACK: []}


def test_agreement_and_loss_from_each_side():
    # Positions 0-15 are the opening's; position 16 is before the first counted move.
    cps, best, moves = opening()
    # After the opening: White (ply 16) plays the engine's move, keeping +20; Black (17) plays
    # another, +20 to +80 (60 lost); White (18) another, +80 to +50 (30 lost); Black (19) the
    # engine's, and the evaluation moves in Black's favour (+50 to +70 is a loss of 20: a
    # best move may lose a little at this depth, and a gain counts as none).
    cps += [20, 20, 80, 50, 70]
    best += ["a", "b", "c", "d"]
    moves += ["a", "x", "y", "d"]
    counted = engine_moves(game(cps, best, moves))
    assert counted[WHITE] == [EngineMove(True, 0), EngineMove(False, 30)]
    assert counted[BLACK] == [EngineMove(False, 60), EngineMove(True, 20)]


def test_a_decided_position_is_not_counted_and_the_ceiling_bounds_a_loss():
    cps, best, moves = opening()
    # White blunders into a lost position: +100 to -400 (500 lost, counted: the position
    # before was not decided). Black's move at -400 is not counted, nor White's at a mate.
    cps += [100, -400, -400, Score(mate=-3), Score(mate=-2)]
    best += ["a", "b", "c", "d"]
    moves += ["z", "b", "c", "d"]
    counted = engine_moves(game(cps, best, moves))
    assert counted == {WHITE: [EngineMove(False, 500)], BLACK: []}
    # A mate counts as the ceiling: from +200, a move allowing mate loses 1200, not more.
    cps, best, moves = opening()
    counted = engine_moves(game([*cps, 200, Score(mate=-1)], [*best, "a"], [*moves, "z"]))
    assert counted[WHITE] == [EngineMove(False, 1200)]
    assert abs(200) < DECIDED_CP


def test_black_moving_first_and_an_analysis_shorter_than_the_game():
    cps, best, moves = opening()
    # Black moved first: ply 16 is Black's. The analysis stops one position short of the
    # game's end: the last move has nothing to be read against.
    counted = engine_moves(
        game([*cps, 0, 30], [*best, "a", "b"], [*moves, "a", "q"], white_first=False)
    )
    assert counted == {WHITE: [], BLACK: [EngineMove(True, 30)]}
    # A position where the engine gave no best move: the move is not the engine's.
    counted = engine_moves(game([*cps, 0, 0], [*best, None], [*moves, "a"]))
    assert counted[WHITE] == [EngineMove(False, 0)]


def test_no_analysed_move_is_no_figure_not_zero():
    figures = player_figures(WHITE, [[3000] * 25], turns=26, focus_lost=0)
    assert Figure.AGREEMENT not in figures.values and Figure.LOSS not in figures.values
    assert figures.engine_moves == 0
    figures = player_figures(
        WHITE, [], turns=0, focus_lost=0, engine=[EngineMove(True, 0), EngineMove(False, 40)]
    )
    assert figures.values == {Figure.AGREEMENT: 0.5, Figure.LOSS: 20.0}
    assert figures.engine_moves == 2 and figures.moves == 0


def field(rng: random.Random, engine_player: int | None, players: int = 8, moves: int = 150):
    """Players who all think alike (human times), each with `moves` analysed moves (six games
    of an event, past their openings): people agree with the engine 30-50 % of the time and
    lose 25-60 cp a move; `engine_player` agrees 90 % of the time and loses 8."""
    out = []
    for p in range(players):
        times = [[int(rng.lognormvariate(8.3, 0.8)) for _ in range(30)] for _ in range(3)]
        if p == engine_player:
            agree, mean_loss = 0.9, 8
        else:
            agree, mean_loss = rng.uniform(0.3, 0.5), rng.uniform(25, 60)
        engine = [
            EngineMove(rng.random() < agree, int(rng.expovariate(1 / mean_loss)))
            for _ in range(moves)
        ]
        out.append(player_figures(p, times, turns=93, focus_lost=0, engine=engine))
    return out


def test_the_engine_player_is_flagged_by_agreement_and_loss_and_nobody_else():
    reports = field_report(field(random.Random(7), engine_player=3))
    assert [r.figures.player for r in reports if r.flagged] == [3]
    engine = reports[3]
    assert engine.scored[Figure.AGREEMENT].outlier and engine.scored[Figure.AGREEMENT].z > 3.5
    # The least loss of the field, below its median; people lose little too, and a loss cannot
    # go below 0, so a low loss is seldom an outlier alone.
    assert engine.scored[Figure.LOSS].z < 0
    assert engine.scored[Figure.LOSS].value == min(r.scored[Figure.LOSS].value for r in reports)


def test_fabricated_fields_flag_no_human_by_the_engine():
    rng = random.Random(2026)
    for _ in range(50):
        reports = field_report(field(rng, engine_player=None))
        assert not any(r.flagged for r in reports)


def test_the_engine_field_counts_analysed_moves_only():
    rng = random.Random(1)
    players = field(rng, engine_player=None, players=MIN_FIELD, moves=MIN_MOVES)
    # Five players with enough analysed moves: a field for the engine's figures.
    assert all(r.scored[Figure.AGREEMENT].z is not None for r in field_report(players))
    # One of them with one analysed move fewer: no field for the engine's figures (four), and
    # still one for the think times, read from the clocks.
    short = player_figures(
        99, [[3000, 4000] * 15], turns=31, focus_lost=0, engine=[EngineMove(True, 0)] * 19
    )
    reports = field_report([*players[:-1], short])
    assert all(r.scored[Figure.AGREEMENT].z is None for r in reports)
    assert all(r.scored[Figure.MEAN].z is not None for r in reports)
    assert all(r.compared for r in reports)
