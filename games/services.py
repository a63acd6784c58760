"""Writing games (RULES 1, 3). The only module that changes `Game` rows.

Locking contract
----------------
One writer per game (STYLE 3): every service that changes a live game runs in one transaction
and first locks the game row with `SELECT … FOR UPDATE`; everything it decides is decided from
that locked row. Services that act on behalf of a client take the ply the client saw
(`expected_ply`) and refuse with `StalePly` when the game has moved on, so a double-submitted
or stale message fails cleanly and changes nothing. `game_open` locks both players' user rows in
ascending id order before checking that neither is in a live game (RULES 1, one board at a
time), so two games for the same player cannot open concurrently.

Broadcast after commit (STYLE 4): each service registers, with `transaction.on_commit`, a send
of the new state (carrying its ply as the version) to the game's channel group; a game that
ends also sends `game_finished` once, after commit.

Time: every service takes `now_ms` (epoch milliseconds) so tests drive a controlled clock; the
default is the wall clock.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from psycopg import Cursor

from config import pushes
from games.models import (
    Challenge,
    ChallengeStatus,
    ColorChoice,
    EndReason,
    Game,
    GameConnection,
    GameResult,
    Status,
)
from games.rules import VARIANT_CODES, Color, IllegalMove, Outcome, Played, RulesError, variant
from games.rules import clock as clocks
from games.rules.clock import ClockError
from games.signals import game_finished

logger = logging.getLogger(__name__)

# RULES 3: after one's first move, 30 s away loses the game by abandonment.
ABANDON_AFTER_MS = int(getattr(settings, "GAME_ABANDON_SECONDS", 30) * 1000)
# Presence: each process refreshes its sockets' rows every PRESENCE_HEARTBEAT_SECONDS; rows
# older than PRESENCE_STALE_SECONDS belong to a dead process (three missed heartbeats).
PRESENCE_HEARTBEAT_SECONDS = float(getattr(settings, "GAME_PRESENCE_HEARTBEAT_SECONDS", 10))
PRESENCE_STALE_MS = int(getattr(settings, "GAME_PRESENCE_STALE_SECONDS", 30) * 1000)
MAX_MOVE_LENGTH = 200


class GameError(Exception):
    """A refused action. `code` is stable and goes to clients (docs/protocol.md)."""

    code = "error"

    def __init__(self, message: str = "") -> None:
        super().__init__(message or self.code)
        self.message = message or self.code


class GameNotFound(GameError):
    code = "not_found"


class GameOver(GameError):
    code = "game_over"


class NotAPlayer(GameError):
    code = "not_a_player"


class NotYourTurn(GameError):
    code = "not_your_turn"


class StalePly(GameError):
    code = "stale_ply"


class IllegalMoveError(GameError):
    code = "illegal_move"


class Malformed(GameError):
    code = "malformed"


class NoDrawOffer(GameError):
    code = "no_draw_offer"


class NoDrawToClaim(GameError):
    code = "no_draw_to_claim"


class PlayerBusy(GameError):
    code = "player_busy"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def group_name(game_id: int) -> str:
    return f"game-{game_id}"


def clock_figures(clock: clocks.Clock, at_ms: int) -> dict[str, Any]:
    """Both clocks as the server computes them at `at_ms` (what clients display)."""
    return {
        "white_ms": clocks.remaining_ms(clock, Color.WHITE, at_ms),
        "black_ms": clocks.remaining_ms(clock, Color.BLACK, at_ms),
        "running": clock.running.value if clock.running else None,
        "at_ms": at_ms,
    }


# --- state sent to clients -------------------------------------------------------------------


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
    else:
        turn = rules.side_to_move(game.fen)
        legal = rules.legal_moves(game.fen) if game.is_live else []
    return {
        "type": "state",
        "game": game.pk,
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
        "rated": game.rated,
        "time_control": str(game.time_control),
    }


def _broadcast_on_commit(game: Game, at_ms: int, played: Played | None = None) -> None:
    # Encoded once here, not once per socket: every player and spectator gets the same text.
    text = json.dumps(game_state(game, at_ms=at_ms, played=played))
    pushes.group_send_on_commit(group_name(game.pk), {"type": "game.state", "text": text})


def _finish_on_commit(game: Game) -> None:
    game_id = game.pk

    def send() -> None:
        finished = Game.objects.select_related("white", "black").get(pk=game_id)
        for _receiver, response in game_finished.send_robust(sender=Game, game=finished):
            if isinstance(response, Exception):
                logger.error(
                    "game_finished receiver failed for game %s", game_id, exc_info=response
                )

    transaction.on_commit(send)


# --- helpers ---------------------------------------------------------------------------------


# --- the locked read and the write, SQL built once -------------------------------------------
#
# Every message of a live game locks and rewrites one row. Through the ORM, building those two
# queries (the row with both players, ~60 columns; the update of 17) cost more CPU than the
# rest of a move together (bench/live.py), so the SQL is built once per process from the model's
# own metadata and values go through each field's own conversions, as the ORM would do them.
# Only the game row is locked (`FOR UPDATE OF`): the players' rows are read for their names.


class _GameSQL:
    def __init__(self, connection) -> None:
        qn = connection.ops.quote_name
        meta, user = Game._meta, get_user_model()._meta
        self.fields = list(meta.concrete_fields)
        self.attnames = [f.attname for f in self.fields]
        columns = ", ".join(f"g.{qn(f.column)}" for f in self.fields)
        username = qn(user.get_field(get_user_model().USERNAME_FIELD).column)
        lock = ""
        if connection.features.has_select_for_update:  # SQLite locks the whole database instead
            lock = (
                " FOR UPDATE OF g"
                if connection.features.has_select_for_update_of
                else " FOR UPDATE"
            )
        self.select = (
            f"SELECT {columns}, w.{username}, b.{username} FROM {qn(meta.db_table)} g"
            f" JOIN {qn(user.db_table)} w ON w.{qn(user.pk.column)} = g.{qn(meta.get_field('white').column)}"
            f" JOIN {qn(user.db_table)} b ON b.{qn(user.pk.column)} = g.{qn(meta.get_field('black').column)}"
            f" WHERE g.{qn(meta.pk.column)} = %s{lock}"
        )
        self.converters = [
            (connection.ops.get_db_converters(col) + f.get_db_converters(connection), col)
            for f in self.fields
            for col in [f.get_col(meta.db_table)]
        ]
        self.updates: dict[tuple[str, ...], tuple[str, list]] = {}
        self.qn, self.table, self.pk_column = qn, qn(meta.db_table), qn(meta.pk.column)

    def update(self, names: tuple[str, ...]) -> tuple[str, list]:
        if names not in self.updates:
            fields = [Game._meta.get_field(name) for name in names]
            sets = ", ".join(f"{self.qn(f.column)} = %s" for f in fields)
            self.updates[names] = (
                f"UPDATE {self.table} SET {sets} WHERE {self.pk_column} = %s",
                fields,
            )
        return self.updates[names]


def _execute(connection, sql: str, params: list, *, fetch: bool = False) -> Any:
    """Run one of the two statements above; with PostgreSQL, as a prepared statement.

    Django's cursors bind parameters on the client and never prepare (for the sake of
    transaction-mode poolers), so PostgreSQL parsed and planned both statements afresh on
    every move: half its CPU time under load (bench/live.py). These two fixed statements go
    through a server-side binding psycopg cursor that prepares them once per connection
    (behind PgBouncer, use 1.21+ with `max_prepared_statements`). Errors are still Django's;
    only the debug query log does not see them."""
    if connection.vendor == "postgresql":
        connection.ensure_connection()
        raw = connection.connection
        if raw.prepare_threshold is None:  # Django's "never": only our cursors can prepare
            raw.prepare_threshold = 5
        with connection.wrap_database_errors, Cursor(raw) as cursor:
            cursor.execute(sql, params, prepare=True)
            return cursor.fetchone() if fetch else None
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone() if fetch else None


_sql_by_vendor: dict[str, _GameSQL] = {}
# Every concrete column but the primary key: what a full save writes.
ALL_FIELDS = tuple(f.name for f in Game._meta.concrete_fields if not f.primary_key)


def _sql(connection) -> _GameSQL:
    sql = _sql_by_vendor.get(connection.vendor)
    if sql is None:
        sql = _sql_by_vendor[connection.vendor] = _GameSQL(connection)
    return sql


def _locked(game_id: int) -> Game:
    """The game row, locked until the end of the transaction, with its players' names."""
    try:
        game_id = int(game_id)
    except (TypeError, ValueError):
        raise GameNotFound(f"no game {game_id!r}") from None
    connection = transaction.get_connection()
    sql = _sql(connection)
    row = _execute(connection, sql.select, [game_id], fetch=True)
    if row is None:
        raise GameNotFound(f"no game {game_id!r}")
    values = list(row[: len(sql.fields)])
    for i, (converters, col) in enumerate(sql.converters):
        for converter in converters:
            values[i] = converter(values[i], col, connection)
    game = Game.from_db(connection.alias, sql.attnames, values)
    user_model = get_user_model()
    for field, user_id, name in (
        (Game.white.field, game.white_id, row[-2]),
        (Game.black.field, game.black_id, row[-1]),
    ):
        player = user_model.from_db(
            connection.alias, ["id", user_model.USERNAME_FIELD], [user_id, name]
        )
        field.set_cached_value(game, player)
    return game


def _check_ply(game: Game, expected_ply: Any) -> None:
    if isinstance(expected_ply, bool) or not isinstance(expected_ply, int):
        raise Malformed("ply must be an integer")
    if expected_ply != game.ply:
        raise StalePly(f"the game is at ply {game.ply}, not {expected_ply}")


def _player_color(game: Game, user_id: int | None) -> Color:
    color = game.player_color(user_id)
    if color is None:
        raise NotAPlayer("only the two players may act on this game")
    return color


def _end(game: Game, *, result: str, reason: str, at_ms: int) -> None:
    """Stop the clocks and record the result (the caller saves and broadcasts)."""
    try:
        game.set_clock(clocks.stop(game.clock, at_ms))
    except ClockError:
        pass
    game.status = Status.FINISHED
    game.result = result
    game.reason = reason
    game.draw_offer = ""
    game.finished_at = timezone.now()
    _finish_on_commit(game)


def _outcome_result(outcome: Outcome) -> str:
    return outcome.result.value


def _flag_if_due(game: Game, at_ms: int) -> bool:
    """End the game on time if the running side's flag has fallen by `at_ms` (locked row).

    RULES 3: the flagged player loses, or draws when the opponent cannot possibly win; when
    neither player ever sat, the game ends 0–0.
    """
    flagged = clocks.flagged(game.clock, at_ms)
    if flagged is None or not game.is_live:
        return False
    fall = game.flag_at_ms if game.flag_at_ms is not None else at_ms
    if not game.white_sat and not game.black_sat:
        _end(game, result=GameResult.NOBODY_SCORES, reason=EndReason.BOTH_ABSENT, at_ms=fall)
    else:
        outcome = variant(game.variant).timeout_outcome(game.fen, flagged)
        _end(game, result=_outcome_result(outcome), reason=outcome.reason.value, at_ms=fall)
    return True


# What a move, a flag or any end can change: a move writes only these columns (a smaller
# UPDATE to build and send on the hottest path).
PLAY_FIELDS = [
    "white_ms",
    "black_ms",
    "white_increment_ms",
    "black_increment_ms",
    "clock_running",
    "clock_since_ms",
    "flag_at_ms",
    "fen",
    "moves",
    "positions",
    "notation",
    "ply",
    "draw_offer",
    "status",
    "result",
    "reason",
    "finished_at",
]


def _write(game: Game, fields: list[str] | tuple[str, ...] | None = None) -> None:
    """`game.save(update_fields=fields)` of a locked, existing row, with SQL built once."""
    connection = transaction.get_connection()
    sql, field_objects = _sql(connection).update(tuple(fields or ALL_FIELDS))
    params = [f.get_db_prep_save(getattr(game, f.attname), connection) for f in field_objects]
    _execute(connection, sql, [*params, game.pk])


def _save_and_broadcast(
    game: Game, at_ms: int, fields: list[str] | None = None, played: Played | None = None
) -> Game:
    _write(game, fields)
    _broadcast_on_commit(game, at_ms, played)
    return game


def _has_moved(game: Game, color: Color) -> bool:
    """Whether `color` has made at least one move in this game."""
    first = variant(game.variant).side_to_move(game.start_fen)
    if color is first:
        return game.ply >= 1
    return game.ply >= 2


# --- opening ---------------------------------------------------------------------------------


def live_game_of(user_id: int) -> Game | None:
    return (
        Game.objects.filter(Q(white_id=user_id) | Q(black_id=user_id), status=Status.LIVE)
        .order_by("-id")
        .first()
    )


def game_open(
    *,
    white_id: int,
    black_id: int,
    variant_code: str,
    base_seconds: int,
    increment_seconds: int,
    rated: bool,
    start_fen: str | None = None,
    event: Any = None,
    at_ms: int | None = None,
) -> Game:
    """Open a game: the clock of the side to move starts at once (RULES 3).

    Raises PlayerBusy if either player is already in a live game (RULES 1). Locks both user
    rows, in ascending id order, for the duration of the check and the insert.
    """
    at = now_ms() if at_ms is None else at_ms
    if white_id == black_id:
        raise Malformed("a game needs two different players")
    rules = variant(variant_code)
    fen = rules.normalize_fen(start_fen) if start_fen else rules.start_fen()
    with transaction.atomic():
        user_model = get_user_model()
        list(
            user_model.objects.select_for_update()
            .filter(pk__in=[white_id, black_id])
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        if Game.objects.filter(
            Q(white_id__in=[white_id, black_id]) | Q(black_id__in=[white_id, black_id]),
            status=Status.LIVE,
        ).exists():
            raise PlayerBusy("a player is already in a live game")
        clock = clocks.start(
            base_ms=base_seconds * 1000,
            increment_ms=increment_seconds * 1000,
            to_move=rules.side_to_move(fen),
            now_ms=at,
        )
        game = Game(
            white_id=white_id,
            black_id=black_id,
            variant=variant_code,
            base_seconds=base_seconds,
            increment_seconds=increment_seconds,
            rated=rated,
            start_fen=fen,
            fen=fen,
            event=event,
        )
        game.set_clock(clock)
        game.save()
    return Game.objects.select_related("white", "black").get(pk=game.pk)


# --- players' actions ------------------------------------------------------------------------


def game_move(
    *, game_id: int, user_id: int | None, expected_ply: Any, move: Any, at_ms: int | None = None
) -> Game:
    """Play `move` (machine form) for `user_id` at `expected_ply`.

    Checks, in order, under the row lock: the game exists and is live (a fallen flag ends it
    first and the move is refused), the user is a player, the ply is the one the client saw, it
    is their turn, the move is legal. Then the clock gets the increment, the opponent's starts,
    a pending draw offer by the opponent lapses, and an automatic end (mate, draw rules) is
    recorded.
    """
    at = now_ms() if at_ms is None else at_ms
    if not isinstance(move, str) or not move or len(move) > MAX_MOVE_LENGTH:
        raise Malformed("move must be a non-empty string")
    with transaction.atomic():
        game = _locked(game_id)
        if _flag_if_due(game, at):
            _save_and_broadcast(game, at)
            return game
        if not game.is_live:
            raise GameOver("the game is over")
        color = _player_color(game, user_id)
        _check_ply(game, expected_ply)
        rules = variant(game.variant)
        # In a live game the running clock is the side to move's (RULES 3), which spares
        # reading the position a second time on the hottest path.
        if game.clock_running != color.value:
            raise NotYourTurn("it is not your turn")
        try:
            played = rules.play(game.fen, move.strip(), game.positions)
        except (IllegalMove, RulesError) as error:
            raise IllegalMoveError(f"illegal move {move!r}") from error
        game.set_clock(clocks.after_move(game.clock, at))
        game.notation = [*game.notation, list(played.notation)]
        game.positions = [*game.positions, game.fen]
        game.moves = [*game.moves, move.strip()]
        game.fen = played.fen
        game.ply += 1
        if game.draw_offer and game.draw_offer != color.value:
            game.draw_offer = ""  # declined by playing on
        if played.outcome is not None:
            _end(
                game,
                result=_outcome_result(played.outcome),
                reason=played.outcome.reason.value,
                at_ms=at,
            )
        return _save_and_broadcast(game, at, PLAY_FIELDS, played)


def game_resign(
    *, game_id: int, user_id: int | None, expected_ply: Any = None, at_ms: int | None = None
) -> Game:
    """The user resigns; the opponent wins. `expected_ply` is checked when given."""
    at = now_ms() if at_ms is None else at_ms
    with transaction.atomic():
        game = _locked(game_id)
        if _flag_if_due(game, at):
            return _save_and_broadcast(game, at)
        if not game.is_live:
            raise GameOver("the game is over")
        color = _player_color(game, user_id)
        if expected_ply is not None:
            _check_ply(game, expected_ply)
        _end(
            game,
            result="1-0" if color.opponent is Color.WHITE else "0-1",
            reason=EndReason.RESIGNATION,
            at_ms=at,
        )
        return _save_and_broadcast(game, at)


def game_draw_offer(
    *, game_id: int, user_id: int | None, expected_ply: Any = None, at_ms: int | None = None
) -> Game:
    """Offer a draw; if the opponent had already offered one, the draw is agreed."""
    at = now_ms() if at_ms is None else at_ms
    with transaction.atomic():
        game = _locked(game_id)
        if _flag_if_due(game, at):
            return _save_and_broadcast(game, at)
        if not game.is_live:
            raise GameOver("the game is over")
        color = _player_color(game, user_id)
        if expected_ply is not None:
            _check_ply(game, expected_ply)
        if game.draw_offer == color.opponent.value:
            _end(game, result=GameResult.DRAW, reason=EndReason.AGREED_DRAW, at_ms=at)
        else:
            game.draw_offer = color.value
        return _save_and_broadcast(game, at)


def game_draw_accept(
    *, game_id: int, user_id: int | None, expected_ply: Any = None, at_ms: int | None = None
) -> Game:
    """Accept the opponent's pending draw offer."""
    at = now_ms() if at_ms is None else at_ms
    with transaction.atomic():
        game = _locked(game_id)
        if _flag_if_due(game, at):
            return _save_and_broadcast(game, at)
        if not game.is_live:
            raise GameOver("the game is over")
        color = _player_color(game, user_id)
        if expected_ply is not None:
            _check_ply(game, expected_ply)
        if game.draw_offer != color.opponent.value:
            raise NoDrawOffer("your opponent has not offered a draw")
        _end(game, result=GameResult.DRAW, reason=EndReason.AGREED_DRAW, at_ms=at)
        return _save_and_broadcast(game, at)


def game_draw_decline(
    *, game_id: int, user_id: int | None, expected_ply: Any = None, at_ms: int | None = None
) -> Game:
    """Decline the opponent's pending draw offer."""
    at = now_ms() if at_ms is None else at_ms
    with transaction.atomic():
        game = _locked(game_id)
        if _flag_if_due(game, at):
            return _save_and_broadcast(game, at)
        if not game.is_live:
            raise GameOver("the game is over")
        color = _player_color(game, user_id)
        if expected_ply is not None:
            _check_ply(game, expected_ply)
        if game.draw_offer != color.opponent.value:
            raise NoDrawOffer("your opponent has not offered a draw")
        game.draw_offer = ""
        return _save_and_broadcast(game, at)


def game_draw_claim(
    *, game_id: int, user_id: int | None, expected_ply: Any, at_ms: int | None = None
) -> Game:
    """Claim a draw the rules allow now (chess: threefold repetition, fifty moves).

    FIDE 9.2/9.3: only the player to move may claim, in the current position.
    """
    at = now_ms() if at_ms is None else at_ms
    with transaction.atomic():
        game = _locked(game_id)
        if _flag_if_due(game, at):
            return _save_and_broadcast(game, at)
        if not game.is_live:
            raise GameOver("the game is over")
        color = _player_color(game, user_id)
        _check_ply(game, expected_ply)
        rules = variant(game.variant)
        if rules.side_to_move(game.fen) is not color:
            raise NotYourTurn("only the player to move may claim a draw")
        claim = rules.claimable_draw(game.fen, game.positions)
        if claim is None:
            raise NoDrawToClaim("no draw can be claimed in this position")
        _end(game, result=claim.result.value, reason=claim.reason.value, at_ms=at)
        return _save_and_broadcast(game, at)


# --- presence --------------------------------------------------------------------------------


def game_presence(
    *,
    game_id: int,
    user_id: int | None,
    connected: bool,
    key: str | None = None,
    at_ms: int | None = None,
) -> Game | None:
    """Record one connection of a player opening or closing (RULES 3 "sitting down").

    Each open socket is a `GameConnection` row named by `key` (the consumer's channel name; a
    fresh one when not given). A connection while the game is live makes the player *sat*. When
    the last connection of a player closes, `away_since` is set (abandonment counts from it); a
    new one clears it. Spectators are not recorded (returns None). Locks the game row.
    """
    at = now_ms() if at_ms is None else at_ms
    with transaction.atomic():
        game = _locked(game_id)
        color = game.player_color(user_id)
        if color is None:
            return None
        prefix = color.value
        if connected:
            GameConnection.objects.update_or_create(
                key=key or f"anonymous-{uuid.uuid4().hex}",
                defaults={"game": game, "color": prefix, "seen_ms": at},
            )
            setattr(game, f"{prefix}_away_since_ms", None)
            if game.is_live:
                setattr(game, f"{prefix}_sat", True)
        else:
            rows = GameConnection.objects.filter(game=game, color=prefix)
            if key is not None:
                rows = rows.filter(key=key)
            first = rows.order_by("seen_ms", "pk").values_list("pk", flat=True).first()
            if first is not None:
                GameConnection.objects.filter(pk=first).delete()
        count = GameConnection.objects.filter(game=game, color=prefix).count()
        setattr(game, f"{prefix}_connections", count)
        if not connected and count == 0 and getattr(game, f"{prefix}_away_since_ms") is None:
            setattr(game, f"{prefix}_away_since_ms", at)
        if game.is_live:
            _flag_if_due(game, at)
        return _save_and_broadcast(game, at)


def presence_heartbeat(*, keys: list[str], at_ms: int | None = None) -> int:
    """Mark the connections `keys` (all the sockets of one process) as alive at `at_ms`.

    One query for a whole process; changes no game, so it takes no game lock."""
    if not keys:
        return 0
    at = now_ms() if at_ms is None else at_ms
    return GameConnection.objects.filter(key__in=keys).update(seen_ms=at)


def presence_sweep(*, at_ms: int | None = None) -> list[int]:
    """Drop connections whose process stopped refreshing them (it died: no disconnect came).

    A player left with no connection is away from the last instant the dead process vouched
    for them, so abandonment (RULES 3) counts from then. Each game is swept under its lock;
    safe to run twice. Returns the ids of the games whose presence changed."""
    at = now_ms() if at_ms is None else at_ms
    stale_before = at - PRESENCE_STALE_MS
    game_ids = set(
        GameConnection.objects.filter(seen_ms__lt=stale_before).values_list("game_id", flat=True)
    )
    changed: list[int] = []
    for game_id in sorted(game_ids):
        with transaction.atomic():
            game = _locked(game_id)
            stale = GameConnection.objects.filter(game=game, seen_ms__lt=stale_before)
            last_seen: dict[str, int] = {}
            for color, seen in stale.values_list("color", "seen_ms"):
                last_seen[color] = max(seen, last_seen.get(color, seen))
            if not last_seen:
                continue
            stale.delete()
            for color, seen in last_seen.items():
                count = GameConnection.objects.filter(game=game, color=color).count()
                setattr(game, f"{color}_connections", count)
                if count == 0 and getattr(game, f"{color}_away_since_ms") is None:
                    setattr(game, f"{color}_away_since_ms", seen)
            _save_and_broadcast(game, at)
            changed.append(game_id)
    return changed


# --- due checks (the periodic tick) ----------------------------------------------------------


def game_flag(*, game_id: int, at_ms: int | None = None) -> bool:
    """End the game on time if a flag has fallen. Safe to run twice: the second run finds the
    game finished and does nothing. Returns whether this call ended the game."""
    at = now_ms() if at_ms is None else at_ms
    with transaction.atomic():
        game = _locked(game_id)
        if not game.is_live or not _flag_if_due(game, at):
            return False
        _save_and_broadcast(game, at)
        return True


def game_abandon(*, game_id: int, at_ms: int | None = None) -> bool:
    """End the game by abandonment if a player who has moved is away for 30 s (RULES 3).

    A fallen flag is judged first (it came earlier or at the same time). Safe to run twice.
    """
    at = now_ms() if at_ms is None else at_ms
    with transaction.atomic():
        game = _locked(game_id)
        if not game.is_live:
            return False
        if _flag_if_due(game, at):
            _save_and_broadcast(game, at)
            return True
        for color in (Color.WHITE, Color.BLACK):
            away = getattr(game, f"{color.value}_away_since_ms")
            if away is None or getattr(game, f"{color.value}_connections") > 0:
                continue
            if not _has_moved(game, color) or at - away < ABANDON_AFTER_MS:
                continue
            winner = color.opponent
            _end(
                game,
                result="1-0" if winner is Color.WHITE else "0-1",
                reason=EndReason.ABANDONMENT,
                at_ms=away + ABANDON_AFTER_MS,
            )
            _save_and_broadcast(game, at)
            return True
        return False


def games_due_process(*, at_ms: int | None = None) -> list[int]:
    """Run every due check (flags, abandonment; never-sat is a flag with nobody sat) from the
    database state. Called by the periodic tick; each game is checked in its own transaction,
    so one failure does not stop the others. Returns the ids of the games it ended."""
    at = now_ms() if at_ms is None else at_ms
    ended: list[int] = []
    try:
        presence_sweep(at_ms=at)  # first: a dead process's players become away
    except Exception:
        logger.exception("presence sweep failed")
    flag_ids = Game.objects.filter(status=Status.LIVE, flag_at_ms__lte=at).values_list(
        "pk", flat=True
    )
    for game_id in list(flag_ids):
        try:
            if game_flag(game_id=game_id, at_ms=at):
                ended.append(game_id)
        except Exception:
            logger.exception("flag check failed for game %s", game_id)
    threshold = at - ABANDON_AFTER_MS
    away_ids = Game.objects.filter(
        Q(white_away_since_ms__lte=threshold, white_connections=0)
        | Q(black_away_since_ms__lte=threshold, black_connections=0),
        status=Status.LIVE,
    ).values_list("pk", flat=True)
    for game_id in list(away_ids):
        try:
            if game_abandon(game_id=game_id, at_ms=at):
                ended.append(game_id)
        except Exception:
            logger.exception("abandonment check failed for game %s", game_id)
    return ended


# --- challenges (RULES 3 "sfide") ------------------------------------------------------------

MAX_BASE_SECONDS = 180 * 60
MAX_INCREMENT_SECONDS = 60


def challenge_create(
    *,
    challenger_id: int,
    variant_code: str,
    base_seconds: int,
    increment_seconds: int,
    color: str,
    rated: bool,
    opponent_id: int | None = None,
) -> Challenge:
    """Post a challenge, open or addressed to one player."""
    if variant_code not in VARIANT_CODES:
        raise Malformed("unknown variant")
    if not 0 <= base_seconds <= MAX_BASE_SECONDS or not (
        0 <= increment_seconds <= MAX_INCREMENT_SECONDS
    ):
        raise Malformed("time control out of range")
    if base_seconds == 0 and increment_seconds == 0:
        raise Malformed("a time control needs a base time or an increment")
    if color not in ColorChoice.values:
        raise Malformed("unknown colour")
    if opponent_id == challenger_id:
        raise Malformed("you cannot challenge yourself")
    with transaction.atomic():
        challenge = Challenge.objects.create(
            challenger_id=challenger_id,
            opponent_id=opponent_id,
            variant=variant_code,
            base_seconds=base_seconds,
            increment_seconds=increment_seconds,
            color=color,
            rated=rated,
        )
        _lobby_changed_on_commit()
        _users_changed_on_commit([opponent_id], "challenges")
    return challenge


def _locked_open_challenge(challenge_id: int) -> Challenge:
    try:
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
    except Challenge.DoesNotExist:
        raise ChallengeGone("no such challenge") from None
    if challenge.status != ChallengeStatus.OPEN:
        raise ChallengeGone("the challenge is no longer open")
    return challenge


class ChallengeGone(GameError):
    code = "challenge_gone"


def challenge_accept(*, challenge_id: int, user_id: int, choose_white: Any = None) -> Game:
    """Accept a challenge: the game opens at once (RULES 3). Locks the challenge row, then the
    players' rows (game_open). Raises PlayerBusy when either player is in a live game (RULES 1)
    and ChallengeGone when someone else got there first."""
    import secrets

    with transaction.atomic():
        challenge = _locked_open_challenge(challenge_id)
        if user_id == challenge.challenger_id:
            raise NotAPlayer("you cannot accept your own challenge")
        if challenge.opponent_id is not None and challenge.opponent_id != user_id:
            raise NotAPlayer("this challenge is addressed to another player")
        if challenge.color == ColorChoice.WHITE:
            challenger_white = True
        elif challenge.color == ColorChoice.BLACK:
            challenger_white = False
        else:
            challenger_white = (
                bool(secrets.randbelow(2)) if choose_white is None else bool(choose_white)
            )
        white, black = (
            (challenge.challenger_id, user_id)
            if challenger_white
            else (user_id, challenge.challenger_id)
        )
        game = game_open(
            white_id=white,
            black_id=black,
            variant_code=challenge.variant,
            base_seconds=challenge.base_seconds,
            increment_seconds=challenge.increment_seconds,
            rated=challenge.rated,
        )
        challenge.status = ChallengeStatus.ACCEPTED
        challenge.game = game
        challenge.opponent_id = user_id
        challenge.save(update_fields=["status", "game", "opponent"])
        # Other open challenges of the two players can no longer start (one board at a time),
        # but they stay posted: they can be accepted after this game.
        _lobby_changed_on_commit()
        _users_changed_on_commit([challenge.challenger_id, user_id], "challenges")
    return game


def challenge_cancel(*, challenge_id: int, user_id: int) -> Challenge:
    """The challenger withdraws the challenge, or its addressee declines it."""
    with transaction.atomic():
        challenge = _locked_open_challenge(challenge_id)
        if user_id == challenge.challenger_id:
            challenge.status = ChallengeStatus.CANCELLED
        elif user_id == challenge.opponent_id:
            challenge.status = ChallengeStatus.DECLINED
        else:
            raise NotAPlayer("not your challenge")
        challenge.save(update_fields=["status"])
        _lobby_changed_on_commit()
        _users_changed_on_commit([challenge.challenger_id, challenge.opponent_id], "challenges")
    return challenge


LOBBY_GROUP = "lobby"


def user_group(user_id: int) -> str:
    """The group of one user's site-wide sockets (`/ws/me/`, docs/protocol.md)."""
    return f"user.{user_id}"


def _users_changed_on_commit(user_ids: list[int | None], what: str) -> None:
    """Tell these users' pages that `what` changed for them (they re-fetch their fragment)."""
    for pk in sorted({pk for pk in user_ids if pk is not None}):
        pushes.group_send_on_commit(user_group(pk), {"type": "user.changed", "what": what})


def _lobby_changed_on_commit() -> None:
    """Tell lobby pages to re-fetch their list (STYLE 7: a short "changed" push)."""
    pushes.group_send_on_commit(LOBBY_GROUP, {"type": "lobby.changed"})


# --- events (tournaments, arenas) ------------------------------------------------------------


def game_end_by_event(*, game_id: int, at_ms: int | None = None) -> bool:
    """End a live game because its event closed (RULES 4.9: scored a draw after the grace).

    A flag already fallen is judged first. Locks the game row like every other writer; safe to
    run twice (the second run finds the game finished). Returns whether this call ended it.
    """
    at = now_ms() if at_ms is None else at_ms
    with transaction.atomic():
        game = _locked(game_id)
        if not game.is_live:
            return False
        if not _flag_if_due(game, at):
            _end(game, result=GameResult.DRAW, reason=EndReason.EVENT_END, at_ms=at)
        _save_and_broadcast(game, at)
        return True
