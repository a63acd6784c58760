"""Moves decided from a socket process's memory of its games (`games.services.memory`): the same
rows and the same pushes as moves decided from a read of the row, and never a move written over
a row that changed since the version it was decided from."""

from __future__ import annotations

import json
import random

import msgpack
import pytest
from django.db import connection
from django.test import override_settings

from games.models import Game, Status
from games.rules import variant
from games.services import (
    GameOver,
    StalePly,
    game_draw_offer,
    game_move,
    game_presence,
    memory,
)
from games.tests.factories import T0, open_game
from live import locks, pushes
from tests.concurrency import Raised, run_at_once

# Real commits: a move's pushes go out on commit, and the memory's single statement is its own
# transaction.
pytestmark = pytest.mark.django_db(transaction=True)

# What differs between two games that played the same moves: who, when opened, which write.
NOT_COMPARED = {"id", "white_id", "black_id", "created_at", "row_stamp"}


@pytest.fixture(autouse=True)
def _counted():
    memory.clear()
    before = dict(memory.counts)
    yield
    memory.clear()
    memory.counts.update(before)


def written() -> int:
    return memory.counts["remembered"]


def row(game_id: int) -> dict:
    values = Game.objects.filter(pk=game_id).values().get()
    return {k: v for k, v in values.items() if k not in NOT_COMPARED}


def move(game_id: int, ply: int, move_text: str, at_ms: int, *, remembered: bool = True):
    """Play one move; returns the game and what it pushed to clients, without the game id."""
    game = Game.objects.get(pk=game_id)
    mover = game.white_id if game.clock_running == "white" else game.black_id
    with pushes.collected() as outbox, override_settings(GAMES_IN_MEMORY=remembered):
        result = game_move(
            game_id=game_id, user_id=mover, expected_ply=ply, move=move_text, at_ms=at_ms
        )
    texts = []
    for _group, message in outbox:
        if message["type"] != "game.state":
            continue  # the settled push of a finished game
        state = json.loads(message["text"])
        state.pop("game")
        texts.append(state)
    return result, texts


@pytest.mark.parametrize("variant_code", ["chess", "italian", "international"])
def test_a_remembered_game_writes_and_pushes_what_a_read_one_does(variant_code):
    """The same random game played twice, from memory and always from a read of the row: after
    every move both rows and both pushes are equal. Fails if the memory's path forgets a column (the
    clock's increment, a lapsed draw offer, a position for the repetitions)."""
    rng = random.Random(17)
    rules = variant(variant_code)
    remembered = open_game(variant_code=variant_code, base_seconds=300, increment_seconds=3)
    locked = open_game(variant_code=variant_code, base_seconds=300, increment_seconds=3)
    at, ply = T0, 0
    before, read = written(), memory.counts["read"]
    while ply < 60:
        game = Game.objects.get(pk=remembered.pk)
        if game.status != Status.LIVE:
            break
        at += rng.randint(1, 4000)
        if ply in (7, 20):  # an offer by the side not to move lapses when the other plays on
            for gid in (remembered.pk, locked.pk):
                g = Game.objects.get(pk=gid)
                waiting = g.black_id if g.clock_running == "white" else g.white_id
                game_draw_offer(game_id=gid, user_id=waiting, expected_ply=ply, at_ms=at)
            at += 1
        choice = rng.choice(rules.legal_moves(game.fen))
        a, pushed_a = move(remembered.pk, ply, choice, at)
        b, pushed_b = move(locked.pk, ply, choice, at, remembered=False)
        assert row(remembered.pk) == row(locked.pk), f"ply {ply}"
        assert pushed_a == pushed_b, f"ply {ply}"
        assert (a.ply, a.fen, a.version, a.clock) == (b.ply, b.fen, b.version, b.clock)
        ply += 1
    # All but the first move of each stretch (after the opening, after each draw offer) came
    # from memory; every move of the other game from a read.
    assert written() - before >= ply - 3
    assert memory.counts["read"] - read >= ply


def test_a_write_the_memory_did_not_see_has_the_move_decided_again_from_the_row():
    """Staff give White a minute in the admin (a write that bumps no version): the next move
    finds the row changed, writes nothing, and is decided again from the row as it is. Fails without the stamp check
    (the remembered clock would be written back)."""
    game = open_game(base_seconds=60, increment_seconds=0)
    move(game.pk, 0, "e2e4", T0 + 1_000)
    move(game.pk, 1, "e7e5", T0 + 2_000)
    assert memory.recall(game.pk).ply == 2
    Game.objects.filter(pk=game.pk).update(white_ms=120_000)
    changed = memory.counts["changed"]
    after, _ = move(game.pk, 2, "g1f3", T0 + 3_000)
    assert memory.counts["changed"] == changed + 1
    assert Game.objects.get(pk=game.pk).white_ms == 120_000 - 1_000
    assert after.white_ms == 119_000


def test_a_write_in_the_same_transaction_is_seen_too():
    """Inside one transaction every write still gets its own stamp (a per-transaction id such
    as PostgreSQL's xmin would not change), so a move after it is not decided from memory."""
    game = open_game(base_seconds=60, increment_seconds=0)
    move(game.pk, 0, "e2e4", T0 + 1_000)
    with locks.atomic():
        move(game.pk, 1, "e7e5", T0 + 2_000)
        Game.objects.filter(pk=game.pk).update(white_ms=5_000)
        after, _ = move(game.pk, 2, "g1f3", T0 + 3_000)
    assert after.white_ms == 4_000 == Game.objects.get(pk=game.pk).white_ms


def test_every_write_of_a_game_gets_a_new_stamp():
    game = open_game()
    stamps = [Game.objects.get(pk=game.pk).row_stamp]
    g = Game.objects.get(pk=game.pk)
    g.save()
    stamps.append(Game.objects.get(pk=game.pk).row_stamp)
    Game.objects.filter(pk=game.pk).update(settled=False)
    stamps.append(Game.objects.get(pk=game.pk).row_stamp)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Game._meta.db_table} SET row_stamp = %s WHERE id = %s", [stamps[0], game.pk]
        )
    stamps.append(Game.objects.get(pk=game.pk).row_stamp)
    stamps.append(open_game().row_stamp or Game.objects.latest("id").row_stamp)
    assert all(stamps) and len(set(stamps)) == len(stamps), stamps


def test_a_move_memory_would_refuse_is_judged_again_from_the_row_with_the_same_answer():
    game = open_game(base_seconds=10, increment_seconds=0)
    move(game.pk, 0, "e2e4", T0 + 1_000)
    before = written()
    # A stale ply, an illegal move, the wrong player: refused from the row read afresh.
    with pytest.raises(StalePly):
        move(game.pk, 0, "e7e5", T0 + 2_000)
    with pytest.raises(Exception) as illegal:
        move(game.pk, 1, "e7e4", T0 + 2_000)
    assert illegal.value.code == "illegal_move"
    with pytest.raises(Exception) as wrong:
        game_move(
            game_id=game.pk, user_id=game.white_id, expected_ply=1, move="e7e5", at_ms=T0 + 2_000
        )
    assert wrong.value.code == "not_your_turn"
    # Black's flag fell at T0 + 1 s + 10 s: the game ends on time, the move is refused.
    with pytest.raises(GameOver):
        move(game.pk, 1, "e7e5", T0 + 11_001)
    game.refresh_from_db()
    assert (game.status, game.ply) == ("finished", 1)  # (0-0: neither player sat, RULES 3)
    assert written() == before
    assert memory.recall(game.pk) is None  # over: forgotten


def test_a_move_that_ends_the_game_is_one_statement_too_and_the_game_is_forgotten():
    game = open_game(base_seconds=600)
    for ply, text in enumerate(["f2f3", "e7e5", "g2g4"]):
        move(game.pk, ply, text, T0 + 1_000 * (ply + 1))
    assert memory.recall(game.pk) is not None
    before = written()
    _after, pushed = move(game.pk, 3, "d8h4", T0 + 5_000)  # mate
    game.refresh_from_db()
    assert (game.status, game.result, game.reason, game.ply) == ("finished", "0-1", "checkmate", 4)
    assert game.finished_at is not None and game.moves[-1] == "d8h4" and len(game.positions) == 4
    assert [p["status"] for p in pushed] == ["finished"] and pushed[0]["legal_moves"] == []
    assert written() == before + 1 and memory.recall(game.pk) is None


def test_two_submissions_of_one_remembered_ply_exactly_one_wins():
    """Both threads start from the same memory; the second statement finds the stamp changed
    and the move, judged again from the row, is refused as stale. Fails if the stamp condition is dropped."""
    game = open_game(at_ms=T0)
    move(game.pk, 0, "e2e4", T0 + 1_000)
    assert memory.recall(game.pk).ply == 1

    def submit(text: str):
        def job() -> str:
            game_move(
                game_id=game.pk, user_id=game.black_id, expected_ply=1, move=text, at_ms=T0 + 2_000
            )
            return text

        return job

    outcomes = run_at_once(submit("e7e5"), submit("c7c5"), errors=True)
    stale = [o for o in outcomes if isinstance(o, Raised) and isinstance(o.error, StalePly)]
    assert len(stale) == 1 and len([o for o in outcomes if isinstance(o, str)]) == 1, outcomes
    winner = next(o for o in outcomes if isinstance(o, str))
    game.refresh_from_db()
    assert (game.ply, game.moves, len(game.positions)) == (2, ["e2e4", winner], 2)


def heard_from(game_id: int, ply: int, text: str, at_ms: int) -> dict:
    """The push of a move written by another process (here: one that remembers nothing), as
    this process's socket would receive it."""
    with pushes.collected() as outbox, override_settings(GAMES_IN_MEMORY=False):
        game = Game.objects.get(pk=game_id)
        mover = game.white_id if game.clock_running == "white" else game.black_id
        game_move(game_id=game_id, user_id=mover, expected_ply=ply, move=text, at_ms=at_ms)
    [(_group, message)] = outbox
    return message


def test_the_push_of_a_move_made_elsewhere_moves_the_memory_on():
    """White's socket is in this process, Black's in another: Black's move, heard here, is
    remembered exactly as the row now is, and White's next move is written from memory."""
    game = open_game()
    move(game.pk, 0, "e2e4", T0 + 1_000)
    message = heard_from(game.pk, 1, "e7e5", T0 + 2_000)
    assert "row" in message and "row" not in json.loads(message["text"])  # not for clients
    message = msgpack.unpackb(msgpack.packb(message))  # as the channel layer hands it over
    # The board Black's move left is held where Black moved, not here (another process).
    memory._boards.clear()
    memory.heard(game.pk, message["version"], message["row"])
    known = memory.recall(game.pk)
    fresh = Game.objects.get(pk=game.pk)
    assert {n: getattr(known, n) for n in memory.READ} == {
        n: getattr(fresh, n) for n in memory.READ
    }
    # The push's bitboards gave this process the board, for White's next move (`board_of`).
    assert memory.boards_held() == [fresh.fen]
    before = written()
    move(game.pk, 2, "g1f3", T0 + 3_000)
    assert written() == before + 1
    assert fresh.fen not in memory.boards_held()  # taken by that move


def test_news_the_memory_cannot_follow_makes_it_forget():
    game = open_game()
    move(game.pk, 0, "e2e4", T0 + 1_000)
    known = memory.recall(game.pk)
    message = heard_from(game.pk, 1, "e7e5", T0 + 2_000)
    # Old news changes nothing.
    memory.heard(game.pk, known.version, None)
    memory.heard(game.pk, known.version - 1, message["row"])
    assert memory.recall(game.pk) is known
    # A move from another position than the one remembered: forgotten.
    memory.heard(game.pk, message["version"], {**message["row"], "before": "8/8/8/8/8/8/8/8 w"})
    assert memory.recall(game.pk) is None
    # A gap (a version missed), or a change that is not a move (presence): forgotten.
    for version, news in ((message["version"] + 1, message["row"]), (message["version"], None)):
        memory.remember(known)
        memory.heard(game.pk, version, news)
        assert memory.recall(game.pk) is None
    # The end (here a resignation) is news no process follows: the game is forgotten.
    from games.services import game_resign

    move(game.pk, 2, "g1f3", T0 + 3_000)
    known = memory.recall(game.pk)
    with pushes.collected() as outbox, override_settings(GAMES_IN_MEMORY=False):
        game_resign(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 4_000)
    [news] = [m for _g, m in outbox if m["type"] == "game.state"]
    assert "row" not in news
    memory.heard(game.pk, news["version"], news.get("row"))
    assert memory.recall(game.pk) is None and known is not None


def test_a_change_at_the_same_ply_made_elsewhere_moves_the_memory_on():
    """Presence and draw offers written by another process: their pushes carry the columns a
    move reads, and the memory follows them with the positions unchanged."""
    game = open_game()
    move(game.pk, 0, "e2e4", T0 + 1_000)
    for change in (
        lambda: game_presence(
            game_id=game.pk, user_id=game.black_id, connected=True, key="k", at_ms=T0 + 1_500
        ),
        lambda: game_draw_offer(game_id=game.pk, user_id=game.white_id, at_ms=T0 + 1_600),
    ):
        known = memory.recall(game.pk)
        with pushes.collected() as outbox, override_settings(GAMES_IN_MEMORY=False):
            change()
        [news] = [m for _g, m in outbox if m["type"] == "game.state"]
        assert "before" not in news["row"]
        memory.heard(game.pk, news["version"], news["row"])
        after, fresh = memory.recall(game.pk), Game.objects.get(pk=game.pk)
        assert after is not known
        assert {n: getattr(after, n) for n in memory.READ} == {
            n: getattr(fresh, n) for n in memory.READ
        }
    before = written()
    move(game.pk, 1, "e7e5", T0 + 2_000)  # and the offer lapses, written from memory
    assert written() == before + 1 and Game.objects.get(pk=game.pk).draw_offer == ""


def test_a_write_through_any_service_is_remembered_by_its_process():
    game = open_game()
    move(game.pk, 0, "e2e4", T0 + 1_000)
    game_presence(game_id=game.pk, user_id=game.black_id, connected=True, key="k", at_ms=T0 + 2)
    known, fresh = memory.recall(game.pk), Game.objects.get(pk=game.pk)
    assert (known.version, known.row_stamp) == (fresh.version, fresh.row_stamp)
    before = written()
    move(game.pk, 1, "e7e5", T0 + 2_000)
    assert written() == before + 1


def test_nothing_is_remembered_when_turned_off():
    with override_settings(GAMES_IN_MEMORY=False):
        game = open_game()
        game_move(game_id=game.pk, user_id=game.white_id, expected_ply=0, move="e2e4", at_ms=T0 + 1)
        assert memory.recall(game.pk) is None


def test_a_remembered_game_is_the_model_object_from_db_would_make():
    """A remembered game is built by `Game.from_db` of the columns a move reads, and a copy to
    play a move on (`take`) loads the others from the database when asked, as a deferred
    column does."""
    from django.db.models.signals import post_init, pre_init

    game = open_game()
    move(game.pk, 0, "e2e4", T0 + 1_000)
    known = memory.recall(game.pk)
    row = Game.objects.get(pk=game.pk)
    made = Game.from_db("default", memory.READ, [getattr(row, n) for n in memory.READ])
    assert {n: getattr(known, n) for n in memory.READ} == {n: getattr(made, n) for n in memory.READ}
    assert (known._state.adding, known._state.db) == (made._state.adding, made._state.db)
    assert set(known.__dict__) - {"_state"} == set(memory.READ)
    assert not pre_init.has_listeners(Game) and not post_init.has_listeners(Game)
    # A column not remembered loads from the database, as a deferred one does.
    copy, _board = memory.take(game.pk)
    assert copy.moves == ["e2e4"] and copy.white.pk == game.white_id


def remembered_at_ply_2():
    game = open_game(base_seconds=600)
    move(game.pk, 0, "e2e4", T0 + 1_000)
    move(game.pk, 1, "e7e5", T0 + 2_000)
    assert memory.recall(game.pk).ply == 2
    return game


def test_a_row_held_by_another_transaction_too_long_is_busy_and_changes_nothing():
    """The move's statement waits for a row another transaction holds, at most lock_timeout:
    then `busy` (LockTimeout), nothing written, and the game still plays from memory after."""
    from live.locks import LockTimeout
    from tests.concurrency import RowHeld

    game = remembered_at_ply_2()
    held = RowHeld(Game.objects.filter(pk=game.pk)).start()
    with connection.cursor() as cursor:
        cursor.execute("SET lock_timeout = '200ms'")
    try:
        with pytest.raises(LockTimeout):
            move(game.pk, 2, "g1f3", T0 + 3_000)
    finally:
        held.release()
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    assert Game.objects.get(pk=game.pk).ply == 2
    before = written()
    move(game.pk, 2, "g1f3", T0 + 4_000)
    assert written() == before + 1


def test_statements_deallocated_behind_its_back_are_prepared_again():
    game = remembered_at_ply_2()
    move(game.pk, 2, "g1f3", T0 + 3_000)  # prepared on this connection
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    before = written()
    move(game.pk, 3, "b8c6", T0 + 4_000)
    assert written() == before + 1 and Game.objects.get(pk=game.pk).ply == 4


def test_a_connection_killed_under_the_move_is_an_outage_and_nothing_is_half_written():
    """PostgreSQL ends the connection (a restart, a network cut): the move fails as Django's
    OperationalError (the socket answers "unavailable", live.outages), nothing is written, and
    the next try on a new connection plays it from memory."""
    from django.db import OperationalError, close_old_connections

    from live.outages import is_outage

    game = remembered_at_ply_2()
    move(game.pk, 2, "g1f3", T0 + 3_000)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    other = connection.copy()
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        other.close()
    with pytest.raises(OperationalError) as lost:  # the move's own statement finds it gone
        game_move(
            game_id=game.pk, user_id=game.black_id, expected_ply=3, move="b8c6", at_ms=T0 + 4_000
        )
    assert is_outage(lost.value) and connection.errors_occurred
    close_old_connections()  # what each socket thread does after an error
    assert Game.objects.get(pk=game.pk).ply == 3
    before = written()
    move(game.pk, 3, "b8c6", T0 + 5_000)
    assert written() == before + 1 and Game.objects.get(pk=game.pk).moves[-1] == "b8c6"


def test_a_move_from_memory_is_one_statement_prepared_on_its_connection():
    """The move's UPDATE goes through Django's cursor on a server-binding connection, which
    psycopg prepares once it has run `prepare_threshold` times (DATABASE_URL, config/env.py):
    after that PostgreSQL holds it prepared, and the next moves from memory use it."""
    game = remembered_at_ply_2()
    before = written()
    plies = ["g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3"]
    for ply, uci in enumerate(plies, start=2):
        move(game.pk, ply, uci, T0 + 1_000 * (ply + 1))
    assert written() == before + len(plies)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [text for (text,) in cursor.fetchall()]
    assert any(text.startswith("UPDATE") and "row_stamp" in text for text in prepared), prepared


def test_a_move_is_one_statement_from_memory_and_two_from_a_read_none_locking_first():
    """One way a move is played: from memory the UPDATE alone; with nothing remembered the
    read of the row (no `FOR UPDATE`) and the same UPDATE. Fails if a move takes a locked
    read again."""
    from django.test.utils import CaptureQueriesContext

    game = remembered_at_ply_2()
    with CaptureQueriesContext(connection) as remembered:
        move_statements(game, 2, "g1f3", T0 + 3_000)
    memory.clear()
    with CaptureQueriesContext(connection) as read:
        move_statements(game, 3, "b8c6", T0 + 4_000)
    kinds = [[q["sql"].split()[0] for q in c.captured_queries] for c in (remembered, read)]
    assert kinds == [["UPDATE"], ["SELECT", "UPDATE"]], kinds
    assert not any("FOR UPDATE" in q["sql"] for q in read.captured_queries)


def move_statements(game, ply: int, text: str, at_ms: int) -> None:
    """One move, by whoever is to move, with nothing else read around it."""
    mover = game.white_id if ply % 2 == 0 else game.black_id
    with pushes.collected():
        game_move(game_id=game.pk, user_id=mover, expected_ply=ply, move=text, at_ms=at_ms)
