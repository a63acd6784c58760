"""Opening a game and the players' moves (RULES 1, 3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q

from games import player_ratings
from games.models import EndReason, Game, GameResult, Status
from games.rules import Color, IllegalMove, Played, RulesError, variant
from games.rules import clock as clocks
from games.rules.clock import ClockError
from games.rules.typed import read_move
from games.services import memory
from games.services.acting import (
    acting,
    check_action,
    end_game,
    ended_on_commit,
    finish,
    has_moved,
    optional_ply,
    win_for,
)
from games.services.due import game_flag
from games.services.errors import (
    AmbiguousMove,
    GameError,
    GameOver,
    IllegalMoveError,
    Malformed,
    NoAbort,
    NoBoost,
    NotYourTurn,
    PlayerBusy,
    UnreadableMove,
)
from games.services.pool_entries import pool_entries_clear
from games.services.state import now_ms, push_move_on_commit
from games.services.store import (
    ENDING_MOVE_COLUMNS,
    MOVE_COLUMNS,
    read_game,
    write_move_if_unchanged,
)
from live import locks

MAX_MOVE_LENGTH = 200
# A move whose row was written by someone else between its read and its write (a presence
# change, a draw offer, the tick) is decided again from the row; after this many tries the
# player is told the game is busy.
MOVE_TRIES = 4


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


def _rated_at_start(games: list[Game]) -> None:
    """Each player's current rating in the game's variant and cadence, kept on the game as it
    opens (one query for all the games)."""
    keys = [
        tuple(
            player_ratings.key(pid, g.variant, g.base_seconds, g.increment_seconds)
            for pid in (g.white_id, g.black_id)
        )
        for g in games
    ]
    now = player_ratings.current({k for pair in keys for k in pair})
    for game, (white, black) in zip(games, keys, strict=True):
        game.white_rating, game.black_rating = now.get(white), now.get(black)


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
    _rated_at_start([game])
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
    _rated_at_start(games)
    with locks.atomic():
        users = get_user_model().objects.filter(pk__in=players)
        locks.lock_rows(users.only("pk"), locks.Rank.USER)
        busy = _busy(players)
        free = [g for g in games if g.white_id not in busy and g.black_id not in busy]
        Game.objects.bulk_create(free)
        pool_entries_clear(free)
    opened = {id(g) for g in free}
    return [g if id(g) in opened else None for g in games]


def _play(
    game: Game, color: Color, move: str, at_ms: int, board: Any = None
) -> tuple[Played, dict[str, list]]:
    """Play `move` for `color` on `game` in memory (`board`: the rules' board for its position,
    if one is held): the clock gets the increment and the opponent's starts, a pending draw
    offer by the opponent lapses (RULES 3). Returns what the rules said and the items the move
    appends to the row's lists (`store.GROWING` and the positions); an automatic end is the
    caller's to record. Raises NotYourTurn, IllegalMoveError, ClockError."""
    # In a live game the running clock is the side to move's (RULES 3), which spares reading
    # the position a second time on the hottest path.
    if game.clock_running != color.value:
        raise NotYourTurn("it is not your turn")
    try:
        played = variant(game.variant).play(game.fen, move, game.positions, board=board)
    except (IllegalMove, RulesError) as error:
        raise IllegalMoveError(f"illegal move {move!r}") from error
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
    game.takeback_offer = ""  # RULES 3: a takeback request lapses with any move
    return played, appended


@dataclass
class _Move:
    """A move decided from one committed version of the row, not yet written: `game` is the
    row after it, one version newer; `stamp`, `ply` and `positions` are the version's."""

    game: Game
    stamp: int
    ply: int
    positions: list
    played: Played
    move: str
    appended: dict[str, list]

    @property
    def ends(self) -> bool:
        return self.played.outcome is not None


def _decide(
    game: Game, board: Any, user_id: int | None, expected_ply: Any, move: str, at_ms: int
) -> _Move | None:
    """The move decided on `game`, a private copy of a version of the row (remembered or just
    read), which it becomes the row after the move: the checks every action makes
    (`acting.check_action`), then the rules (`_play`), and the end if the rules say the game is
    over. None when the running side's flag has fallen (the caller ends the game on time
    first). Raises the refusals."""
    color = check_action(game, user_id, expected_ply, at_ms)
    if color is None:
        return None
    stamp, ply, positions = game.row_stamp, game.ply, game.positions
    played, appended = _play(game, color, move, at_ms, board)
    if played.outcome is not None:
        finish(
            game,
            result=played.outcome.result.value,
            reason=played.outcome.reason.value,
            at_ms=at_ms,
        )
    game.version += 1
    return _Move(game, stamp, ply, positions, played, move, appended)


def _write(decided: _Move, at_ms: int) -> Game | None:
    """Write `decided` with one statement (`store.write_move_if_unchanged`: only where the row
    still carries the stamp it was decided from), remember it, and push it and, for an end,
    settle it, after commit. None when the row was written since (nothing was)."""
    game = decided.game
    columns = ENDING_MOVE_COLUMNS if decided.ends else MOVE_COLUMNS
    stamp = write_move_if_unchanged(
        game, columns, decided.appended, stamp=decided.stamp, ply=decided.ply
    )
    if stamp is None:
        memory.counts["changed"] += 1
        memory.forget(game.pk, decided.stamp)
        return None
    game.row_stamp = stamp
    game.positions = [*decided.positions, *decided.appended["positions"]]
    # Remembered with the board the rules reached, for the next move here; forgotten if over.
    row = memory.remember(game, board=decided.played.board, moved=True)
    notation = decided.appended["notation"][-1]
    push_move_on_commit(game, at_ms, decided.played, decided.move, notation, row)
    if decided.ends:
        ended_on_commit(game.pk)
    return game


def game_move(
    *, game_id: int, user_id: int | None, expected_ply: Any, move: Any, at_ms: int | None = None
) -> Game:
    """Play `move` (machine form) for `user_id` at `expected_ply`: it is their turn, the move
    is legal; the clock gets the increment, the opponent's starts, a pending draw offer by the
    opponent lapses, and an automatic end (mate, draw rules) is recorded (RULES 3).

    One way, whatever the process knows (docs/architecture.md, walk 1): the move is decided
    from a version of the row — the one this process remembers (`games.services.memory`), else
    one read (`store.read_game`) — and written by one UPDATE where the row still carries that
    version's stamp. A refusal is given only from a row just read (a memory may be late), and
    a row written by someone else between the read and the write is read again: every move is
    decided from the row as it is when written. A fallen flag ends the game first (`due
    .game_flag`, under the row lock) and the move is refused. The game returned holds only the
    columns a move reads; the others load when asked for."""
    if not isinstance(move, str) or not move.strip() or len(move) > MAX_MOVE_LENGTH:
        raise Malformed("move must be a non-empty string")
    move = move.strip()
    at = now_ms() if at_ms is None else at_ms
    taken = memory.take(game_id) if type(game_id) is int else None
    for _ in range(MOVE_TRIES):
        remembered = taken is not None
        game, board = taken if remembered else (read_game(game_id), None)
        taken = None  # a second try reads the row
        try:
            decided = _decide(game, board, user_id, expected_ply, move, at)
        except (GameError, ClockError):
            if remembered:
                continue  # judged again from the row itself
            raise
        if decided is None:  # RULES 3: the flag fell before the move came
            if game_flag(game_id=game.pk, at_ms=at):
                memory.forget(game.pk)
                raise GameOver("the time ran out")
            continue  # not on the row as it is: judged again from it
        written = _write(decided, at)
        if written is not None:
            memory.counts["remembered" if remembered else "read"] += 1
            return written
    raise locks.LockTimeout("the game was written by others under every try of the move")


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

    The text is read against the position of a plain read (`store.read_game`); the move it
    names is then played by `game_move`, which judges `expected_ply` again on the row it
    writes: a move played in between makes it `stale_ply`, never a move read in another
    position.
    Refused, with nothing changed: `unreadable_move`, `ambiguous_move` (with the choices),
    `illegal_move`, and every refusal of `game_move`.
    """
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_MOVE_LENGTH:
        raise Malformed("text must be a non-empty string")
    at = now_ms() if at_ms is None else at_ms
    game = read_game(game_id)  # the checks of every action, then the side to move
    color = check_action(game, user_id, expected_ply, at)
    if color is None:  # the flag fell: `game_move` ends the game and refuses the move
        return game_move(
            game_id=game_id, user_id=user_id, expected_ply=expected_ply, move=text, at_ms=at
        )
    if game.clock_running != color.value:  # the running clock is the side to move's (RULES 3)
        raise NotYourTurn("it is the opponent's turn")
    rules = variant(game.variant)
    reading = read_move(rules, game.fen, text, "en" if language == "en" else "it")
    if reading.problem == "unreadable":
        raise UnreadableMove(f"not a move: {text.strip()[:40]}")
    if reading.problem == "ambiguous":
        raise AmbiguousMove(reading.choices)
    if reading.move is None:
        raise IllegalMoveError(f"not a legal move here: {text.strip()[:40]}")
    return game_move(
        game_id=game_id, user_id=user_id, expected_ply=expected_ply, move=reading.move, at_ms=at
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


def game_abort(
    *, game_id: int, user_id: int | None, expected_ply: Any = None, at_ms: int | None = None
) -> Game:
    """RULES 3: the player aborts a game of no event before their own first move. It ends with
    no result (`EndReason.ABORTED`), is never rated, and the opponent sees it end. Refused with
    NoAbort, changing nothing, in an event's game or after the player's first move."""
    with acting(game_id, user_id, optional_ply(expected_ply), at_ms) as act:
        game = act.game
        if not game.abortable:
            raise NoAbort("a game of an event cannot be aborted")
        if has_moved(game, act.color):
            raise NoAbort("a game can only be aborted before your first move")
        end_game(game, result=GameResult.NONE, reason=EndReason.ABORTED, at_ms=act.at_ms)
    return game


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
