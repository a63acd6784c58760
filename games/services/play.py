"""Opening a game and the players' moves (RULES 1, 3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q

from games.models import EndReason, Game, Status
from games.rules import Color, IllegalMove, Played, RulesError, variant
from games.rules import clock as clocks
from games.rules.clock import ClockError
from games.rules.typed import read_move
from games.services import memory
from games.services.acting import acting, end_game, has_moved, optional_ply, win_for
from games.services.errors import (
    AmbiguousMove,
    GameError,
    GameNotFound,
    GameOver,
    IllegalMoveError,
    Malformed,
    NoBoost,
    NotAPlayer,
    NotYourTurn,
    PlayerBusy,
    StalePly,
    UnreadableMove,
)
from games.services.pool_entries import pool_entries_clear
from games.services.state import now_ms, push_move_on_commit
from games.services.store import MOVE_COLUMNS, PLAY_FIELDS, write_move_if_unchanged
from live import locks

MAX_MOVE_LENGTH = 200
# What a move writes besides the lists it grows (`store.write_game(appended=...)`).
MOVE_FIELDS = tuple(f for f in PLAY_FIELDS if f not in ("moves", "positions", "notation", "clocks"))


def _new_game(
    *,
    white_id: int,
    black_id: int,
    variant_code: str,
    base_seconds: int,
    increment_seconds: int,
    rated: bool,
    rated_with_event: bool,
    boostable: bool,
    start_fen: str | None,
    event: Any,
    at_ms: int,
    opening_number: int | None = None,
    opening_moves: Sequence[str] = (),
) -> Game:
    if white_id == black_id:
        raise Malformed("a game needs two different players")
    rules = variant(variant_code)
    fen = rules.normalize_fen(start_fen) if start_fen else rules.start_fen()
    clock = clocks.start(
        base_ms=base_seconds * 1000,
        increment_ms=increment_seconds * 1000,
        to_move=rules.side_to_move(fen),
        now_ms=at_ms,
    )
    game = Game(
        white_id=white_id,
        black_id=black_id,
        variant=variant_code,
        base_seconds=base_seconds,
        increment_seconds=increment_seconds,
        rated=rated,
        rated_with_event=rated and rated_with_event,
        boostable=boostable and base_seconds > 0,
        start_fen=fen,
        fen=fen,
        opening_number=opening_number,
        opening_moves=list(opening_moves),
        event=event,
    )
    game.set_clock(clock)
    return game


def _busy(player_ids) -> set[int]:
    """Players in a live game (RULES 1), one query."""
    busy: set[int] = set()
    for white_id, black_id in Game.objects.filter(
        Q(white_id__in=player_ids) | Q(black_id__in=player_ids), status=Status.LIVE
    ).values_list("white_id", "black_id"):
        busy.update((white_id, black_id))
    return busy


def game_open(
    *,
    white_id: int,
    black_id: int,
    variant_code: str,
    base_seconds: int,
    increment_seconds: int,
    rated: bool,
    rated_with_event: bool = False,
    boostable: bool = False,
    start_fen: str | None = None,
    event: Any = None,
    at_ms: int | None = None,
    opening_number: int | None = None,
    opening_moves: Sequence[str] = (),
) -> Game:
    """Open a game: the clock of the side to move starts at once (RULES 3).

    The rating decision is fixed here, once: `rated` (casual games and unrated events never
    count) and `rated_with_event` (True when the event rates all its games as one period, a
    round tournament, RULES 7.1; otherwise the game is rated alone when it ends). `boostable`:
    the players may take boost (an arena, RULES 8; never without base time). An event's
    imposed opening (RULES 6) is `opening_moves` from the standard start (with its F.I.D.
    `opening_number`), leading to `start_fen`.

    Raises PlayerBusy if either player is already in a live game (RULES 1). Locks both user
    rows (USER rank, ascending id) for the duration of the check and the insert; under the
    same locks both players leave any quick-pairing pool (`pool_entries.pool_entries_clear`), and a
    player who was waiting there is told where their game is.
    """
    game = _new_game(
        white_id=white_id,
        black_id=black_id,
        variant_code=variant_code,
        base_seconds=base_seconds,
        increment_seconds=increment_seconds,
        rated=rated,
        rated_with_event=rated_with_event,
        boostable=boostable,
        start_fen=start_fen,
        event=event,
        at_ms=now_ms() if at_ms is None else at_ms,
        opening_number=opening_number,
        opening_moves=opening_moves,
    )
    with locks.atomic():
        users = get_user_model().objects.filter(pk__in=[white_id, black_id])
        locks.lock_rows(users.only("pk"), locks.Rank.USER)
        if _busy([white_id, black_id]):
            raise PlayerBusy("a player is already in a live game")
        game.save()
        pool_entries_clear([game])
    return Game.objects.select_related("white", "black").get(pk=game.pk)


def games_open(
    *,
    pairs: list[tuple[int, int, str | None]],
    variant_code: str,
    openings: list[tuple[int | None, Sequence[str]]] | None = None,
    base_seconds: int,
    increment_seconds: int,
    rated: bool,
    boostable: bool = False,
    event: Any = None,
    at_ms: int | None = None,
) -> list[Game | None]:
    """Open several games at once (an arena's pairing pass): (white, black, start FEN) each,
    with `openings[i]` the (F.I.D. number, moves) that led to pair i's start, if imposed.

    One lock of every player's user row (USER rank, ascending id), one check of who is already
    in a live game, one insert: a pair with a busy player gets None instead (RULES 1), the
    others open with their clocks started at `at_ms`, rated alone (RULES 7.1). Their players
    leave any quick-pairing pool under the same locks."""
    at = now_ms() if at_ms is None else at_ms
    players = sorted({p for white, black, _fen in pairs for p in (white, black)})
    games = [
        _new_game(
            white_id=white,
            black_id=black,
            variant_code=variant_code,
            base_seconds=base_seconds,
            increment_seconds=increment_seconds,
            rated=rated,
            rated_with_event=False,
            boostable=boostable,
            start_fen=fen,
            event=event,
            at_ms=at,
            opening_number=opening[0],
            opening_moves=opening[1],
        )
        for (white, black, fen), opening in zip(
            pairs, openings or [(None, ())] * len(pairs), strict=True
        )
    ]
    if len(players) != 2 * len(pairs):
        raise Malformed("a player is in two of the games")
    with locks.atomic():
        users = get_user_model().objects.filter(pk__in=players)
        locks.lock_rows(users.only("pk"), locks.Rank.USER)
        busy = _busy(players)
        free = [g for g in games if g.white_id not in busy and g.black_id not in busy]
        Game.objects.bulk_create(free)
        pool_entries_clear(free)
    opened = {id(g) for g in free}
    return [g if id(g) in opened else None for g in games]


def _play(game: Game, color: Color, move: str, at_ms: int) -> tuple[Played, dict[str, list]]:
    """Play `move` for `color` on `game` in memory: the clock gets the increment and the
    opponent's starts, a pending draw offer by the opponent lapses (RULES 3). Returns what the
    rules said and the items the move appends to the row's lists (`store.GROWING` and the
    positions); an automatic end is the caller's to record. Raises NotYourTurn,
    IllegalMoveError, ClockError."""
    # In a live game the running clock is the side to move's (RULES 3), which spares reading
    # the position a second time on the hottest path.
    if game.clock_running != color.value:
        raise NotYourTurn("it is not your turn")
    try:
        played = variant(game.variant).play(
            game.fen, move, game.positions, board=memory.board_taken(game.fen)
        )
    except (IllegalMove, RulesError) as error:
        raise IllegalMoveError(f"illegal move {move!r}") from error
    memory.board_kept(played.fen, played.board)  # for the next move, here (memory.py)
    game.set_clock(clocks.after_move(game.clock, at_ms))
    left = game.white_ms if color is Color.WHITE else game.black_ms  # the PGN's [%clk]
    appended = {
        "moves": [move],
        "notation": [list(played.notation)],
        "clocks": [left],
        "positions": [game.fen],
    }
    game.fen = played.fen
    game.ply += 1
    if game.draw_offer and game.draw_offer != color.value:
        game.draw_offer = ""  # declined by playing on
    return played, appended


@dataclass
class _MemoryMove:
    """A move played on a remembered game, not yet written."""

    known: Game  # the game as remembered
    game: Game  # after the move, one version newer
    played: Played
    move: str
    appended: dict[str, list]
    at_ms: int

    def write(self) -> tuple[tuple, dict[str, Any]]:
        """The arguments of its one statement (`store.write_move_if_unchanged`,
        `store.memory_move_statement`): never an end, which takes the locked path."""
        known = self.known
        return (self.game, MOVE_COLUMNS, self.appended), {
            "stamp": known.row_stamp,
            "ply": known.ply,
        }


def _memory_move(
    game_id: Any, user_id: int | None, expected_ply: Any, move: str, at_ms: int
) -> _MemoryMove | None:
    """The move played on this process's memory of the game (`games.services.memory`: why that
    is exact), or None when it must take the locked path: nothing remembered, not PostgreSQL,
    or anything but a plain move by the player to move at the ply remembered (a stale ply, a
    fallen flag, an illegal move, a move that ends the game: the locked path gives the answer
    from the row itself). Reads nothing from the database."""
    if not memory.enabled() or type(game_id) is not int or type(expected_ply) is not int:
        return None
    known = memory.recall(game_id)
    if known is None or expected_ply != known.ply:
        return None
    color = known.player_color(user_id)
    if color is None or clocks.flagged(known.clock, at_ms) is not None:
        return None
    game = memory.fresh(known)
    try:
        played, appended = _play(game, color, move, at_ms)
    except (GameError, ClockError):
        return None
    if played.outcome is not None:
        return None
    game.version += 1
    return _MemoryMove(known, game, played, move, appended, at_ms)


def _memory_move_written(played: _MemoryMove, stamp: int | None) -> Game | None:
    """After the move's statement: remembered, or (`stamp` None: the row was written since,
    nothing was) forgotten, for the locked path to take over."""
    if stamp is None:
        memory.counts["changed"] += 1
        memory.forget(played.known.pk, played.known)
        return None
    memory.counts["written"] += 1
    game = played.game
    game.row_stamp = stamp
    game.positions = [*played.known.positions, *played.appended["positions"]]
    memory.remember(game)
    return game


def _move_from_memory(
    game_id: Any, user_id: int | None, expected_ply: Any, move: str, at_ms: int
) -> Game | None:
    """`_memory_move` written with one statement (`store.write_move_if_unchanged`) and pushed;
    None when the locked path must take the move (nothing written)."""
    played = _memory_move(game_id, user_id, expected_ply, move, at_ms)
    if played is None:
        return None
    args, kwargs = played.write()
    stamp = write_move_if_unchanged(*args, **kwargs)
    game = _memory_move_written(played, stamp)
    if game is not None:
        push_move_on_commit(game, at_ms, played.played, move, played.appended["notation"][-1])
    return game


def game_move(
    *, game_id: int, user_id: int | None, expected_ply: Any, move: Any, at_ms: int | None = None
) -> Game:
    """Play `move` (machine form) for `user_id` at `expected_ply`.

    Under the row lock (`acting`), then: it is their turn, the move is legal. The clock gets
    the increment, the opponent's starts, a pending draw offer by the opponent lapses, and an
    automatic end (mate, draw rules) is recorded.

    A plain move of a game this process remembers is written from memory with one statement
    where the row is unchanged (`_move_from_memory`): the same decisions from the same row.
    The game returned holds only the columns a move reads; the others load when asked for.
    """
    if not isinstance(move, str) or not move.strip() or len(move) > MAX_MOVE_LENGTH:
        raise Malformed("move must be a non-empty string")
    move = move.strip()
    at = now_ms() if at_ms is None else at_ms
    game = _move_from_memory(game_id, user_id, expected_ply, move, at)
    if game is not None:
        return game
    # A light read: the move list and notation are appended to, never read (`store.GROWING`).
    try:
        with acting(game_id, user_id, expected_ply, at, light=True) as act:
            game = act.game
            played, act.appended = _play(game, act.color, move, act.at_ms)
            if played.outcome is not None:
                end_game(
                    game,
                    result=played.outcome.result.value,
                    reason=played.outcome.reason.value,
                    at_ms=act.at_ms,
                )
            act.fields, act.played = MOVE_FIELDS, played
    except GameOver:
        memory.forget(game_id)  # over, possibly just now by the flag
        raise
    return game


def game_move_typed(
    *,
    game_id: int,
    user_id: int | None,
    expected_ply: Any,
    text: Any,
    language: Any = "it",
    at_ms: int | None = None,
) -> Game:
    """Play the move `text` as a player typed it (the text mode: SAN with Italian or English
    letters, coordinates, draughts squares; `games.rules.typed`) at `expected_ply`.

    The text is read against the position of a plain read, outside the lock; the move it
    names is then played by `game_move`, which takes the lock and checks `expected_ply` again:
    a move played in between makes it `stale_ply`, never a move read in another position.
    Refused, with nothing changed: `unreadable_move`, `ambiguous_move` (with the choices),
    `illegal_move`, and every refusal of `game_move`.
    """
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_MOVE_LENGTH:
        raise Malformed("text must be a non-empty string")
    game = (
        Game.objects.only("variant", "fen", "ply", "status", "white_id", "black_id")
        .filter(pk=game_id)
        .first()
    )
    if game is None:
        raise GameNotFound("no such game")
    if game.status != Status.LIVE:
        raise GameOver("the game is over")
    if user_id is None or user_id not in (game.white_id, game.black_id):
        raise NotAPlayer("only the players may move")
    if type(expected_ply) is not int or expected_ply != game.ply:
        raise StalePly(f"the game is at ply {game.ply}, not {expected_ply}")
    rules = variant(game.variant)
    color = Color.WHITE if user_id == game.white_id else Color.BLACK
    if rules.side_to_move(game.fen) is not color:
        raise NotYourTurn("it is the opponent's turn")
    reading = read_move(rules, game.fen, text, "en" if language == "en" else "it")
    if reading.problem == "unreadable":
        raise UnreadableMove(f"not a move: {text.strip()[:40]}")
    if reading.problem == "ambiguous":
        raise AmbiguousMove(reading.choices)
    if reading.move is None:
        raise IllegalMoveError(f"not a legal move here: {text.strip()[:40]}")
    return game_move(
        game_id=game_id, user_id=user_id, expected_ply=expected_ply, move=reading.move, at_ms=at_ms
    )


def game_resign(
    *, game_id: int, user_id: int | None, expected_ply: Any = None, at_ms: int | None = None
) -> Game:
    """The user resigns; the opponent wins. `expected_ply` is checked when given."""
    with acting(game_id, user_id, optional_ply(expected_ply), at_ms) as act:
        end_game(
            act.game,
            result=win_for(act.color.opponent),
            reason=EndReason.RESIGNATION,
            at_ms=act.at_ms,
        )
    return act.game


def game_boost(
    *, game_id: int, user_id: int | None, expected_ply: Any, at_ms: int | None = None
) -> Game:
    """RULES 8: the player takes boost, before their own first move, in a game that offers it.

    Their increment is gone for the rest of the game and, with a base of at least 60 s, their
    time left becomes at most half the base (`games.rules.clock.boost`). Under the row lock
    with the ply check (`acting`); refused with NoBoost, changing nothing, when the game does
    not offer it, when they already took it, or after their first move."""
    with acting(game_id, user_id, expected_ply, at_ms) as act:
        game, color = act.game, act.color
        if not game.boostable:
            raise NoBoost("boost is not offered in this game")
        if getattr(game, f"{color.value}_boosted"):
            raise NoBoost("you already took boost")
        if has_moved(game, color):
            raise NoBoost("boost is only before your first move")
        try:
            game.set_clock(clocks.boost(game.clock, color, act.at_ms))
        except ClockError as error:
            raise NoBoost(str(error)) from error
        setattr(game, f"{color.value}_boosted", True)
    return game
