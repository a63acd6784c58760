"""The analysis board's rules: a game's positions as the board steps through them
(`game_line`), a move tried from any position (`step`), and the tree of variations a browser
sends back for its PGN / PDN (`read_line`). Pure, like the rest of the rules (STYLE 1); the page
never decides what is legal itself, it asks `step` through `games.views.analysis_move`.

What a browser sends is not trusted: every text is checked for its type and length, a tree
for its size and its nesting, before any of it reaches the rules, and each error is a
`BadAnalysis` whose message says what was wrong (the view answers it with a 400).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import variant
from .base import COMMENT_LIMIT, Color, MoveNode, Outcome, Played, RulesError, comment_text

# What one request may carry: a game of a few hundred plies with its variations fits well
# inside (the longest games of the site run to some 300 plies).
MAX_TEXT = 120  # a FEN of International draughts with every piece a king runs to ~110
MAX_POSITIONS = 1200  # earlier positions sent for the repetition rules
# Of those, the ones the rules can look back at: only positions since the last irreversible
# move can repeat or count, and every variant ends a run of reversible moves before 200 plies
# (chess's 75-move rule at 150, FIDE 9.6.2; the draughts king-move rules at 80 or fewer, RULES 3).
HISTORY_WINDOW = 200
MAX_NODES = 3000  # moves in a tree, variations included, unless the caller sets a lower cap
MAX_DEPTH = 32  # variations inside variations


class BadAnalysis(RulesError):
    """What the browser sent cannot be read or played; the message says why (in English, for
    the log and for the tests; the page shows its own translated words)."""


class TreeTooLarge(BadAnalysis):
    """A tree with more moves than its cap (`limit`): refused as it is read, before any of its
    moves is played, since every move of a tree is a position the export replays."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the tree holds more than {limit} moves")
        self.limit = limit


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadAnalysis(f"{what} must be a non-empty string")
    if len(value) > MAX_TEXT:
        raise BadAnalysis(f"{what} is longer than {MAX_TEXT} characters")
    return value.strip()


def _rules(code: Any):
    if not isinstance(code, str):
        raise BadAnalysis("variant must be a string")
    try:
        return variant(code)
    except KeyError:
        raise BadAnalysis(f"unknown variant {code[:40]!r}") from None


def step(code: Any, fen: Any, move: Any = None, positions: Any = ()) -> dict:
    """The position `fen` of variant `code` as the board needs it, after `move` when one is
    given: its canonical FEN, who is to move, its legal moves, the automatic end if any
    (the repetition and move-count rules read `positions`, the earlier positions of the line,
    oldest first), and for a move its notation in both languages (RULES §2).

    Raises BadAnalysis for anything that cannot be read or played."""
    rules = _rules(code)
    try:
        current = rules.normalize_fen(_text(fen, "fen"))
    except RulesError as error:
        raise BadAnalysis(f"not a {rules.code} position: {error}") from None
    if not isinstance(positions, list | tuple) or len(positions) > MAX_POSITIONS:
        raise BadAnalysis(f"positions must be a list of at most {MAX_POSITIONS} positions")
    history = [_text(p, "a position") for p in positions][-HISTORY_WINDOW:]
    try:
        history = [rules.normalize_fen(p) for p in history]
    except RulesError as error:
        raise BadAnalysis(f"positions holds what is not a {rules.code} position: {error}") from None
    if move is None:
        outcome = rules.outcome(current, history)
        legal = [] if outcome is not None else rules.legal_moves(current)
        return {
            "variant": rules.code,
            **_node(current, rules.side_to_move(current), legal, outcome),
        }
    # A position the rules end (a repetition, a move count: RULES 3) takes no more moves,
    # whatever moves its pieces still have.
    if rules.outcome(current, history) is not None:
        raise BadAnalysis("illegal move: the game is over in this position")
    try:
        played = rules.play(current, _text(move, "move"), history)
    except RulesError as error:
        raise BadAnalysis(f"illegal move: {error}") from None
    return {"variant": rules.code, **_played_node(move.strip(), played)}


def game_line(code: str, start_fen: str, moves: Sequence[str]) -> list[dict]:
    """A game's positions as the analysis board steps through them, the start first, each as
    `step` describes one (its FEN, side to move, legal moves, automatic end; the move that made
    it, written both ways). The final position keeps its legal moves when no rule ended the
    game there: a game lost on time or by resignation can be played on."""
    rules = variant(code)
    fen = start_fen
    start_end = rules.outcome(fen)
    start_legal = [] if start_end is not None else rules.legal_moves(fen)
    line = [_node(fen, rules.side_to_move(fen), start_legal, start_end)]
    history: list[str] = []
    for move in moves:
        played = rules.play(fen, move, history)
        history.append(fen)
        fen = played.fen
        line.append(_played_node(move, played))
    return line


def _node(fen: str, to_move: Color, legal: list[str], end: Outcome | None) -> dict[str, Any]:
    outcome = None if end is None else {"result": end.result.value, "reason": end.reason.value}
    return {"fen": fen, "to_move": to_move.value, "legal_moves": legal, "outcome": outcome}


def _played_node(move: str, played: Played) -> dict[str, Any]:
    node = _node(played.fen, played.to_move, played.legal_moves, played.outcome)
    node.update(move=move, notation={"it": played.notation[0], "en": played.notation[1]})
    return node


def positions_read(positions: Any) -> int:
    """How many of the earlier positions sent to `step` it reads (only the last
    HISTORY_WINDOW): what a move tried costs beyond its own two positions."""
    return min(len(positions), HISTORY_WINDOW) if isinstance(positions, list | tuple) else 0


def read_line(
    data: Any,
    *,
    limit: int = MAX_NODES,
    counted: list[int] | None = None,
    depth: int = 0,
) -> tuple:
    """A line as the browser sends it — a list whose items are move texts or
    `{"move": text, "variations": [line, ...], "comment": text, "nags": [n, ...]}` — as the
    rules' `MoveNode`s. Checks only its
    shape and size; legality is the export's (`Variant.export` raises IllegalMove). `counted`,
    if given, holds the tree's moves once read (each a position the export replays); past
    `limit` of them (at most MAX_NODES) TreeTooLarge is raised as soon as it is counted."""
    counted = [0] if counted is None else counted
    limit = min(limit, MAX_NODES)
    if depth > MAX_DEPTH:
        raise BadAnalysis(f"variations are nested more than {MAX_DEPTH} deep")
    if not isinstance(data, list):
        raise BadAnalysis("a line must be a list of moves")
    line: list[str | MoveNode] = []
    for item in data:
        counted[0] += 1
        if counted[0] > limit:
            raise TreeTooLarge(limit)
        if isinstance(item, str):
            line.append(_text(item, "a move"))
            continue
        if not isinstance(item, dict):
            raise BadAnalysis("a move must be a string or an object with a move")
        variations = item.get("variations", [])
        if not isinstance(variations, list):
            raise BadAnalysis("variations must be a list of lines")
        read = tuple(
            read_line(v, limit=limit, counted=counted, depth=depth + 1) for v in variations
        )
        line.append(
            MoveNode(
                _text(item.get("move"), "a move"),
                tuple(v for v in read if v),
                comment=_comment(item.get("comment", "")),
                nags=_nags(item.get("nags", [])),
            )
        )
    return tuple(line)


# The symbols a player may put on a move (PGN 10's NAGs): ! ? !! ?? !? ?!.
SYMBOL_NAGS = frozenset((1, 2, 3, 4, 5, 6))


def _comment(value: Any) -> str:
    if not isinstance(value, str):
        raise BadAnalysis("a comment must be a string")
    if len(value) > COMMENT_LIMIT:
        raise BadAnalysis(f"a comment is longer than {COMMENT_LIMIT} characters")
    return comment_text(value)


def _nags(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) > 2:
        raise BadAnalysis("nags must be a list of at most two symbols")
    if any(type(nag) is not int or nag not in SYMBOL_NAGS for nag in value):
        raise BadAnalysis("a symbol must be one of ! ? !! ?? !? ?! ($1 to $6)")
    return tuple(dict.fromkeys(value))


def main_line(line: Sequence[str | MoveNode]) -> list[str]:
    """The moves of a line, without their variations."""
    return [item.move if isinstance(item, MoveNode) else item for item in line]
