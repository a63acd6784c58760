"""The tactical check of a draughts game ("controllo tattico", RULES 14.10): each move compared
with the best the search finds within its horizon, in material.

Pure Python (STYLE 1). `check_game` replays the game's moves on our generator and, for every
ply, searches the position before it with the move played searched first, so both scores come
from the same depth (`search.Searcher.analyse`). The loss is the material the move gives away
against the best line found, in men; the marks follow RULES 14.10.4. No accuracy figure is
made from it: a search of a few plies measures tactics, not play.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from games.rules import variants
from games.rules.base import RulesError
from games.rules.draughts import DraughtsVariant, Move, move_text

from .search import MAN, WIN_BOUND, Searcher

Mark = Literal["mistake", "blunder"]

# RULES 14.10.4: a move that loses about a man (a man is 1; the advancement bonus can take up to
# a fifth off) is a mistake; about two men, a blunder. A king's worth is 1.5 men on 8×8 and 3
# on 10×10, so a king given away is a mistake there and a blunder here.
MISTAKE_MEN = 0.8
BLUNDER_MEN = 1.8
# A game won or lost within the horizon counts as this many men (more than a whole side in any
# variant: International has 20 men), so such a move is a blunder whatever the material.
GAME_MEN = 30
LINE_PLIES = 10  # moves of a line given back (best line, refutation)


class NotDraughts(RulesError):
    """The check was asked for a variant that is not one of our draughts variants."""


@dataclass(frozen=True, slots=True)
class PlyCheck:
    """The check of one move of the game.

    - `ply`: the move's place in the game, 1-based.
    - `loss`: the material (in men; a king worth 1.5 on 8×8, 3 on 10×10) the move gives away
      against the best line found within the horizon; 0.0 when it is the best or as good.
    - `best`: the best line found from the position before the move, in the game's notation;
      empty when the move played was the only legal one.
    - `refutation`: the opponent's best line after the move played, when it loses material
      (`loss` > 0); else empty.
    - `mark`: None, "mistake" or "blunder" (RULES 14.10.4).
    - `depth`: the search's completed depth in plies (quiescence beyond it); `nodes` spent.
    """

    ply: int
    loss: float
    best: tuple[str, ...]
    refutation: tuple[str, ...]
    mark: Mark | None
    depth: int = 0
    nodes: int = 0


def mark_for(loss: float) -> Mark | None:
    """RULES 14.10.4."""
    if loss >= BLUNDER_MEN:
        return "blunder"
    if loss >= MISTAKE_MEN:
        return "mistake"
    return None


def _clamped(score: int) -> int:
    """A score in centi-men, a found win or loss counted as GAME_MEN men."""
    if score >= WIN_BOUND:
        return GAME_MEN * MAN
    if score <= -WIN_BOUND:
        return -GAME_MEN * MAN
    return max(-GAME_MEN * MAN, min(GAME_MEN * MAN, score))


def _texts(line: Sequence[Move]) -> tuple[str, ...]:
    return tuple(move_text(m) for m in line[:LINE_PLIES])


def draughts_rules(variant_code: str) -> DraughtsVariant:
    try:
        rules = variants.info(variant_code).rules
    except KeyError as error:
        raise NotDraughts(str(error)) from None
    if not isinstance(rules, DraughtsVariant):
        raise NotDraughts(f"{variant_code!r} is not a draughts variant")
    return rules


def check_game(
    variant_code: str,
    moves: Sequence[str],
    *,
    node_budget: int,
    start_fen: str | None = None,
) -> list[PlyCheck]:
    """The check of every move of a game of `variant_code` ("italian", "english",
    "international"), from `start_fen` (the variant's start when None).

    `moves` are the game's moves as stored (`22-18`, `22x13x6`; any spelling `find_move`
    reads). `node_budget` bounds each ply's search (at least 1; the first iteration of each
    search completes whatever it costs, a few hundred nodes). An illegal move raises
    `games.rules.base.IllegalMove` naming it, an unreadable position `InvalidPosition`, a
    variant that is not draughts `NotDraughts` (all `RulesError`); nothing is returned then.
    """
    if node_budget < 1:
        raise ValueError("node_budget must be at least 1")
    rules = draughts_rules(variant_code)
    board = rules.board
    pos = rules.position(start_fen if start_fen else rules.start_fen())
    searcher = Searcher(board)
    checks: list[PlyCheck] = []
    for ply, text in enumerate(moves, start=1):
        played = rules.find_move(pos, text)
        legal = board.legal_moves(pos)
        if len(legal) == 1:
            # The only legal move (a forced capture, often): nothing to compare it with.
            checks.append(PlyCheck(ply=ply, loss=0.0, best=(), refutation=(), mark=None))
            pos = board.apply(pos, played)
            continue
        found = searcher.analyse(pos, node_budget=node_budget, first=played)
        assert found.first_score is not None
        if found.best and found.best[0] == played:
            loss_cm = 0
        else:
            loss_cm = max(0, _clamped(found.score) - _clamped(found.first_score))
        loss = round(loss_cm / MAN, 1)
        checks.append(
            PlyCheck(
                ply=ply,
                loss=loss,
                best=_texts(found.best),
                refutation=_texts(found.first_line) if loss > 0 else (),
                mark=mark_for(loss),
                depth=found.depth,
                nodes=found.nodes,
            )
        )
        pos = board.apply(pos, played)
    return checks
