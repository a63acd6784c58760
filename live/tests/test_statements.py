"""The event loop's statement connections (`live.statements`) on a real PostgreSQL: a statement
that finds every connection busy waits a little for one, then gives up (its caller takes the
thread pool); a waiter given up or cancelled loses no connection."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from games.services.store import statement_connection
from live import statements

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

SLEEP = (b"t_sleep", b"SELECT pg_sleep($1::float8)")
ONE = (b"t_one", b"SELECT 1")


@contextlib.asynccontextmanager
async def one_busy_connection(seconds: float, wait: float = 0.05):
    """A pool of one connection, busy with a statement of `seconds` (the task `slow`)."""
    pool = statements.Statements(statement_connection, size=1)
    slow = asyncio.ensure_future(pool.run(*SLEEP, [str(seconds).encode()]))
    await asyncio.sleep(wait)
    try:
        yield pool, slow
    finally:
        pool.close()


async def test_a_statement_waits_for_the_busy_connection_and_runs_when_it_is_free(monkeypatch):
    monkeypatch.setattr(statements, "WAIT_SECONDS", 2.0)
    async with one_busy_connection(0.2) as (pool, slow):
        result = await pool.run(*ONE, [])
        assert result is not None and result.get_value(0, 0) == b"1"
        assert slow.done() and (await slow) is not None  # it was served after the slow one
        assert pool.open == 1 and len(pool.idle) == 1 and not pool.waiters


async def test_a_statement_gives_up_after_waiting_and_sends_nothing(monkeypatch):
    monkeypatch.setattr(statements, "WAIT_SECONDS", 0.05)
    async with one_busy_connection(0.5) as (pool, slow):
        assert await pool.run(*ONE, []) is None  # the caller takes the thread pool
        assert not pool.waiters
        await slow
        assert pool.open == 1 and len(pool.idle) == 1  # the connection came back


async def test_no_more_than_waiting_statements_wait(monkeypatch):
    monkeypatch.setattr(statements, "WAIT_SECONDS", 2.0)
    monkeypatch.setattr(statements, "WAITING", 1)
    async with one_busy_connection(0.3) as (pool, slow):
        waiting = asyncio.ensure_future(pool.run(*ONE, []))
        await asyncio.sleep(0.01)
        assert await pool.run(*ONE, []) is None  # at once: one waits already
        assert (await waiting) is not None and (await slow) is not None


async def test_a_cancelled_waiter_loses_no_connection(monkeypatch):
    monkeypatch.setattr(statements, "WAIT_SECONDS", 2.0)
    async with one_busy_connection(0.2) as (pool, slow):
        waiting = asyncio.ensure_future(pool.run(*ONE, []))
        await asyncio.sleep(0.01)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await slow
        assert not pool.waiters and pool.open == 1 and len(pool.idle) == 1
        result = await pool.run(*ONE, [])
        assert result.get_value(0, 0) == b"1"


async def test_a_connection_lost_under_a_statement_lets_a_waiter_open_another(monkeypatch):
    """The busy connection is killed: the waiting statement opens a new one and runs."""
    import psycopg

    monkeypatch.setattr(statements, "WAIT_SECONDS", 5.0)
    killer = await asyncio.get_running_loop().run_in_executor(None, statement_connection)
    try:
        async with one_busy_connection(5, wait=0.1) as (pool, slow):
            waiting = asyncio.ensure_future(pool.run(*ONE, []))
            await asyncio.sleep(0.05)
            killer.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE %s",
                ["SELECT pg_sleep(%"],
            )
            with pytest.raises(psycopg.OperationalError):
                await slow
            result = await asyncio.wait_for(waiting, 3)
            assert result.get_value(0, 0) == b"1" and pool.open == 1
    finally:
        killer.close()


async def test_a_connection_ended_while_idle_stops_being_watched_and_is_replaced():
    """The loop watches each connection for as long as it lives: one ended by the server while
    idle (a restart) is seen to end, no longer watched (its end of stream would otherwise wake
    the loop on every turn), and the next statement opens a new connection."""
    loop = asyncio.get_running_loop()
    pool = statements.Statements(statement_connection, size=1)
    killer = await loop.run_in_executor(None, statement_connection)
    try:
        assert (await pool.run(*ONE, [])).get_value(0, 0) == b"1"
        (idle,) = pool.idle
        assert idle.watched and loop._selector.get_map().get(idle.fd) is not None
        pid = idle.raw.info.backend_pid
        killer.execute("SELECT pg_terminate_backend(%s)", [pid])
        for _ in range(100):
            await asyncio.sleep(0.02)
            if not idle.watched:
                break
        assert not idle.watched and not idle.alive()
        assert loop._selector.get_map().get(idle.fd) is None
        assert (await pool.run(*ONE, [])).get_value(0, 0) == b"1"
        (renewed,) = pool.idle
        assert renewed is not idle and renewed.raw.info.backend_pid != pid and pool.open == 1
    finally:
        killer.close()
        pool.close()


async def test_an_answer_already_there_is_taken_without_waiting():
    """The whole answer may be in the socket before the statement looks for it: it is taken
    at once, without waiting for the socket to become readable again."""
    import time

    pool = statements.Statements(statement_connection, size=1)
    try:
        assert (await pool.run(*ONE, [])).get_value(0, 0) == b"1"
        (connection,) = pool.idle

        def send_and_let_it_answer():
            connection.pgconn.send_query_prepared(ONE[0], [])
            connection.pgconn.flush()
            time.sleep(0.2)  # PostgreSQL answers meanwhile; the loop is held here

        result = await asyncio.wait_for(connection._exchange(send_and_let_it_answer), 1)
        assert result.get_value(0, 0) == b"1" and connection.answer is None
        assert connection.alive()
    finally:
        pool.close()
