"""The state of a game as clients receive it, and its pushes (STYLE 4: after commit, with a
version that grows with every change pushed)."""

from __future__ import annotations

import functools
import json
import logging
import time
from typing import Any

from celery import current_app
from django.db import transaction

from games.models import Game
from games.rules import Color, Played, chess_openings, variant
from games.rules import clock as clocks
from games.selectors import chess_opening_json
from live import messages, pushes

logger = logging.getLogger(__name__)


LOBBY_GROUP = "lobby"


def lobby_changed_on_commit() -> None:
    """Tell lobby pages to re-fetch their list (STYLE 7: a short "changed" push)."""
    pushes.group_send_on_commit(LOBBY_GROUP, messages.lobby_changed())


# Games open and end all the time on a busy site, and every lobby page re-fetches what it
# shows on each "changed": those pushes go at most once a second (the last one never lost).
LOBBY_GAMES_EVERY_MS = 1000


def lobby_games_changed_on_commit() -> None:
    """A game opened or ended: the lobbies' counts of games being played (each cell of the
    quick-pairing grid, the list of games) changed. Throttled (`LOBBY_GAMES_EVERY_MS`)."""
    pushes.group_send_throttled_on_commit(
        LOBBY_GROUP, messages.lobby_changed(), every_ms=LOBBY_GAMES_EVERY_MS
    )


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def group_name(game_id: int) -> str:
    return f"game-{game_id}"


def topic(game_id: int) -> str:
    """The presence topic of a game's page (`live.presence`)."""
    return f"game:{game_id}"


def clock_figures(clock: clocks.Clock, at_ms: int) -> dict[str, Any]:
    """Both clocks as the server computes them at `at_ms` (what clients display)."""
    return {
        "white_ms": clocks.remaining_ms(clock, Color.WHITE, at_ms),
        "black_ms": clocks.remaining_ms(clock, Color.BLACK, at_ms),
        "running": clock.running.value if clock.running else None,
        "at_ms": at_ms,
    }


def game_state(
    game: Game, *, at_ms: int | None = None, played: Played | None = None
) -> dict[str, Any]:
    """The full state of a game as clients receive it (docs/protocol.md, "state").

    Clocks are the server's figures at `at_ms`: each side's time left then, and which one runs.
    `played` is what the rules said of the move that made this position, when there was one
    (its side to move and legal moves are not worked out a second time).
    """
    at = now_ms() if at_ms is None else at_ms
    clock = game.clock
    rules = variant(game.variant)
    if played is not None and played.fen == game.fen:
        turn, legal = played.to_move, played.legal_moves if game.is_live else []
    elif game.is_live:
        turn, known = _to_move(game.variant, game.fen)
        legal = list(known)
    else:
        turn, legal = rules.side_to_move(game.fen), []
    return {
        "type": "state",
        "game": game.pk,
        "version": game.version,
        "ply": game.ply,
        "variant": game.variant,
        "fen": game.fen,
        "start_fen": game.start_fen,
        "moves": list(game.moves),
        "notation": list(game.notation),
        "last_move": game.moves[-1] if game.moves else None,
        "turn": turn.value,
        "legal_moves": legal,
        "clock": clock_figures(clock, at),
        "status": game.status,
        "result": game.result,
        "reason": game.reason,
        "draw_offer": game.draw_offer or None,
        # RULES 3: the side asking to take its last move back; whether this game allows
        # takebacks and "+15 s" (casual, no event), and aborting (no event).
        "takeback": game.takeback_offer or None,
        "takebacks": game.takebacks_allowed,
        "abortable": game.abortable,
        # The chess opening's ECO code and name ({"eco", "name"}; None until a position is
        # named); absent for draughts.
        **({"chess_opening": chess_opening_json(game)} if game.variant_info.eco_openings else {}),
        "white": {
            "id": game.white_id,
            "name": game.white.username,
            "connected": game.white_connections > 0,
            "away_since_ms": game.white_away_since_ms,
        },
        "black": {
            "id": game.black_id,
            "name": game.black.username,
            "connected": game.black_connections > 0,
            "away_since_ms": game.black_away_since_ms,
        },
        # FIDE 9.2-9.3: whether the side to move may claim a draw now (the page offers the
        # claim only then).
        "draw_claimable": _draw_claimable(game),
        # RULES 6: the opening the event imposed, from the standard start to `start_fen`.
        "opening": {"number": game.opening_number, "moves": list(game.opening_moves)},
        "rated": game.rated,
        "time_control": str(game.time_control),
        # RULES 8: whether boost is offered in this game, and who took it.
        "boost": {
            "offered": game.boostable,
            "white": game.white_boosted,
            "black": game.black_boosted,
        },
    }


@functools.lru_cache(maxsize=512)
def _to_move(variant_code: str, fen: str) -> tuple[Color, tuple[str, ...]]:
    """The side to move and the legal moves of a position (the rules are pure: a FEN says
    them). Kept for the positions read again and again: a round start reads every game at its
    start, for its page, its socket and each presence, all at once (bench/round_start.py)."""
    rules = variant(variant_code)
    return rules.side_to_move(fen), tuple(rules.legal_moves(fen))


def _draw_claimable(game: Game) -> bool:
    """FIDE 9.2-9.3, for the side to move. Threefold repetition and the fifty-move rule both
    need eight quiet plies or more (the FEN's halfmove clock), which settles most moves
    without building a board."""
    if not game.is_live or not game.variant_info.draw_claims:
        return False
    fields = game.fen.split()
    if len(fields) > 4 and fields[4].isdigit() and int(fields[4]) < 8:
        return False
    return variant(game.variant).claimable_draw(game.fen, game.positions) is not None


def move_delta(game: Game, *, at_ms: int, played: Played, move: str, notation: list) -> dict:
    """What one move changed (docs/protocol.md, "played"): applied on top of the state of the
    version before; the move list is not sent again."""
    delta = {
        "type": "played",
        "game": game.pk,
        "version": game.version,
        "ply": game.ply,
        "move": move,
        "notation": notation,
        "fen": game.fen,
        "turn": played.to_move.value,
        "legal_moves": played.legal_moves if game.is_live else [],
        "clock": clock_figures(game.clock, at_ms),
        "status": game.status,
        "result": game.result,
        "reason": game.reason,
        "draw_offer": game.draw_offer or None,
        "takeback": game.takeback_offer or None,
        "draw_claimable": _draw_claimable(game),
    }
    if game.variant_info.eco_openings:
        # The opening's name changes only when the move reaches a named position: only then
        # is it sent (a client keeps the one it has). One dictionary lookup, none past the
        # table's depth.
        named = chess_openings.named_at_ply(game.fen, game.ply)
        if named is not None:
            delta["chess_opening"] = {
                "eco": named.eco,
                "name": named.name,
                "name_it": named.name_it,
            }
    return delta


def push_move_on_commit(
    game: Game,
    at_ms: int,
    played: Played,
    move: str,
    notation: list,
    row: dict[str, Any] | None = None,
) -> None:
    """The move's delta for the clients, with `row`, the image of the write for the other
    processes that remember the game (`memory.remember`, `memory.heard`; not sent to any
    client)."""
    text = json.dumps(move_delta(game, at_ms=at_ms, played=played, move=move, notation=notation))
    message = messages.game_state(text, game.version)
    if row is not None:
        if played.position is not None:  # the rules' own form of the new position (`heard`)
            row["position"] = played.position
        message["row"] = row
    pushes.group_send_on_commit(group_name(game.pk), message)


def push_state_on_commit(
    game: Game, at_ms: int, played: Played | None = None, row: dict[str, Any] | None = None
) -> None:
    """The whole state, with `row` as in `push_move_on_commit`."""
    # Encoded once here, not once per socket: every player and spectator gets the same text.
    text = json.dumps(game_state(game, at_ms=at_ms, played=played))
    message = messages.game_state(text, game.version)
    if row is not None:
        message["row"] = row
    pushes.group_send_on_commit(group_name(game.pk), message)


def push_declined_on_commit(game: Game, kind: str, offer: str) -> None:
    """A player declined the opponent's pending offer or request (`draw_declined`,
    `takeback_declined`, docs/protocol.md): everyone at the game is told, after the state
    without it, with that state's version. Registered after the state's own push; sent once
    the transaction has committed (at once if it already has)."""
    text = json.dumps(
        {"type": kind, "game": game.pk, "version": game.version, "ply": game.ply, "offer": offer}
    )
    pushes.group_send_on_commit(group_name(game.pk), messages.game_declined(kind, text))


def settle_on_commit(game_id: int) -> None:
    """After commit, have a worker send `game_finished` for this game (games.tasks.settle).

    The events' and ratings' work runs there, off the request or socket that ended the game.
    If the task cannot be sent (the broker is away) or its worker dies, the tick settles the
    game later (`due.games_settle_due`): `Game.settled` stays False until every receiver ran.
    """

    def send() -> None:
        try:
            # By name, from Celery's registry (games.receivers imports games.tasks in every
            # process): the task module is above the services, which it calls.
            current_app.tasks["games.settle"].apply_async(args=[game_id], retry=False)
        except Exception:
            logger.warning("game %s: settle task not sent; the tick will settle it", game_id)

    transaction.on_commit(send)


def push_settled_on_commit(game_id: int) -> None:
    """The game's receivers (events, ratings) have all run: its pages re-read what they
    decided, such as the rating change (docs/protocol.md, `settled`). Sent from the worker
    that settled it, after its commit."""
    pushes.group_send_on_commit(group_name(game_id), messages.game_settled(game_id))
