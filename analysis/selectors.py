"""Reads of the computer analysis for its pages and its PGN (STYLE 2)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from analysis.judgement import NAGS, Mark, Score
from analysis.models import GameAnalysis
from events import kinds
from games.models import Game
from games.rules import variant
from games.rules.base import MoveNode

MARK_WORDS = {
    Mark.INACCURACY.value: lambda: _("Imprecisione"),
    Mark.MISTAKE.value: lambda: _("Errore"),
    Mark.BLUNDER.value: lambda: _("Errore grave"),
}
SYMBOLS = {Mark.INACCURACY.value: "?!", Mark.MISTAKE.value: "?", Mark.BLUNDER.value: "??"}


def analysis_of(game_id: int) -> GameAnalysis | None:
    return GameAnalysis.objects.filter(game_id=game_id).first()


def analyses_of(game_ids: list[int]) -> dict[int, tuple[str, list[dict]]]:
    """Each of these games' analysis, if asked for: its state and its positions (each position's
    evaluation and the engine's best line, RULES 14.1; empty until done). One query."""
    return {
        game_id: (state, positions)
        for game_id, state, positions in GameAnalysis.objects.filter(
            game_id__in=game_ids
        ).values_list("game_id", "state", "positions")
    }


def lost_analyses(game_ids: list[int], now: datetime | None = None) -> set[int]:
    """The games among these whose analysis is queued or running for longer than
    ANALYSIS_STALE_SECONDS: its worker was lost, or its task never reached one. A request
    queues it again (RULES 14.6), so it is to ask for, not on its way. One query."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.ANALYSIS_STALE_SECONDS)
    return set(
        GameAnalysis.objects.filter(
            game_id__in=game_ids, state__in=(GameAnalysis.State.QUEUED, GameAnalysis.State.RUNNING)
        )
        .annotate(since=Coalesce("started_at", "requested_at"))
        .filter(since__lt=stale)
        .values_list("game_id", flat=True)
    )


def event_organizer_id(game: Game) -> int | None:
    """Who opened the event the game belongs to, if any (RULES 14.7)."""
    kind = kinds.kind_of_game(game)
    if kind is None:
        return None
    row = kind.model.objects.filter(pk=game.event_id).values("opened_by_id").first()
    return row["opened_by_id"] if row else None


def may_ask(user: Any, game: Game) -> bool:
    """RULES 14.7: the game's players, the organizer of its event, the staff."""
    if not user.is_authenticated:
        return False
    if user.is_staff or user.pk in (game.white_id, game.black_id):
        return True
    return event_organizer_id(game) == user.pk


def eval_text(score: Score) -> str:
    """An evaluation as PGN's `[%eval]` writes it (lichess's spelling): pawns for White with
    two decimals, or `#n` (`#-n` when Black mates)."""
    if score.mate:
        return f"#{score.mate}"
    if score.mate == 0:  # mate given
        return "#0" if (score.cp or 0) > 0 else "#-0"
    return f"{(score.cp or 0) / 100:.2f}"


def _score(entry: dict) -> Score:
    return Score(cp=entry.get("cp"), mate=entry.get("mate"))


def line_notation(code: str, fen: str, moves: list[str], lang: str) -> list[str]:
    """Moves of a line from `fen` as players write them, stopping at one that is not legal."""
    rules = variant(code)
    texts = []
    for move in moves:
        try:
            texts.append(rules.notation(fen, move, lang))
            fen = rules.apply(fen, move)
        except ValueError:
            break
    return texts


def panel(game: Game, analysis: GameAnalysis | None, lang: str) -> dict:
    """What the analysis board draws of a finished analysis: each position's evaluation
    (White's side, for the bar and the graph), each move's mark and, where the move played was
    not the engine's, its best line written out; the accuracy of each side."""
    if analysis is None or analysis.state != GameAnalysis.State.DONE:
        return {}
    fens = variant(game.variant).replay(list(game.moves), game.start_fen)
    positions = [
        {"cp": p.get("cp"), "mate": p.get("mate"), "text": eval_text(_score(p))}
        for p in analysis.positions
    ]
    moves = []
    for index, judged in enumerate(analysis.moves):
        entry: dict[str, Any] = {"mark": judged.get("mark", "")}
        best = judged.get("best") or (
            analysis.positions[index].get("best", []) if index < len(analysis.positions) else []
        )
        played = game.moves[index] if index < len(game.moves) else None
        if best and best[0] != played:
            entry["best"] = line_notation(game.variant, fens[index], best, lang)
        if judged.get("refutation"):
            entry["refutation"] = line_notation(
                game.variant, fens[index + 1], judged["refutation"], lang
            )
        if entry["mark"]:
            entry["word"] = MARK_WORDS[entry["mark"]]()
            entry["symbol"] = SYMBOLS[entry["mark"]]
        moves.append(entry)
    white_first = variant(game.variant).side_to_move(game.start_fen).value == "white"
    counts = {side: dict.fromkeys(MARK_WORDS, 0) for side in ("white", "black")}
    for index, entry in enumerate(moves):
        if entry["mark"]:
            side = "white" if (index % 2 == 0) == white_first else "black"
            counts[side][entry["mark"]] += 1
    return {
        "counts": [
            (MARK_WORDS[mark](), counts["white"][mark], counts["black"][mark])
            for mark in MARK_WORDS
        ],
        "engine": analysis.engine,
        "positions": positions,
        "moves": moves,
        "white_accuracy": analysis.white_accuracy,
        "black_accuracy": analysis.black_accuracy,
    }


def annotated_line(game: Game, analysis: GameAnalysis) -> tuple[MoveNode, ...]:
    """The game's moves as the PGN of its analysis writes them (RULES 14.8): after each move
    its evaluation (`[%eval]`), a mark as its NAG (?! ? ??) with a comment naming it, and the
    engine's best line as a variation where the move played was not it."""
    nodes = []
    positions = analysis.positions
    for index, move in enumerate(game.moves):
        judged = analysis.moves[index] if index < len(analysis.moves) else {}
        mark = judged.get("mark", "")
        words = []
        if index + 1 < len(positions):
            words.append(f"[%eval {eval_text(_score(positions[index + 1]))}]")
        if mark:
            words.append(MARK_WORDS[mark]() + ".")
        best = judged.get("best") or (
            positions[index].get("best", []) if index < len(positions) else []
        )
        variations = (tuple(best),) if mark and best and best[0] != move else ()
        nodes.append(
            MoveNode(
                move,
                variations,
                comment=" ".join(words),
                nags=(NAGS[Mark(mark)],) if mark else (),
            )
        )
    return tuple(nodes)
