"""Single statements, each its own transaction, sent to PostgreSQL from the event loop itself
(libpq's asynchronous calls), without a thread (issue 17, bench/live.py).

A socket handler's database work goes to a pool of threads (`live.sockets`); for a statement
that is its own transaction and needs nothing of Django's (the move written from memory,
`games.services.memory`), the hop to a thread and back — the executor's future, the wake-up of
the loop, the GIL taken back — cost more than the statement itself. Here a few connections of
the process's own, in autocommit, are driven by the loop: the statement is sent, and the loop
goes on serving other sockets until PostgreSQL's answer is readable.

`run` returns None, having sent nothing, when no connection came free in time (the caller then
takes its usual path); errors are psycopg's (`psycopg.OperationalError` for a connection lost: an
outage, `live.outages`), a lock held too long is `live.locks.LockTimeout`. A connection whose
statement failed or was abandoned (its caller cancelled) is closed, not reused; one that ended
while idle (PostgreSQL restarted) is found so before it is used, and replaced.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import select
import types
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg.pq import ConnStatus, ExecStatus

from live.locks import LockTimeout, is_lock_timeout

log = logging.getLogger(__name__)

# Connections per event loop: moves rarely overlap on one process (a statement is a fraction of
# a millisecond). One that finds them all busy waits for one a little (WAIT_SECONDS, at most
# WAITING statements), then takes the thread pool: at 1,000 games, 4-6 % of a process's moves
# found all four busy at once (bench/live.py), each then costing a thread hop and back.
SIZE = 4
WAIT_SECONDS = 0.05
WAITING = 64


class _Connection:
    """One statement connection, watched by its loop for as long as it lives: registering and
    unregistering the descriptor around every statement was half of what the loop spent on
    one (bench/live.py). A statement's answer is read as it comes (`_readable`) and wakes the
    statement when it is whole; anything that comes while no statement runs is the server
    ending the connection, left for `alive` to see."""

    def __init__(self, raw: psycopg.Connection) -> None:
        self.raw = raw
        self.pgconn = raw.pgconn
        self.pgconn.nonblocking = 1
        self.fd = self.pgconn.socket
        self.prepared: set[bytes] = set()
        self.loop = asyncio.get_running_loop()
        self.answer: asyncio.Future | None = None  # the running statement's, until it is whole
        self.watched = True
        self.loop.add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        answer = self.answer
        if answer is None:
            # Idle: the server is ending the connection (`alive`). Left unread, for `alive` to
            # see, and no longer watched (its end of stream would wake the loop every turn).
            self._unwatch()
            return
        try:
            self.pgconn.consume_input()
        except psycopg.Error as error:  # the end of the stream: the connection is gone
            self._unwatch()
            if not answer.done():
                answer.set_exception(error)
            return
        if not self.pgconn.is_busy() and not answer.done():
            answer.set_result(None)

    def _unwatch(self) -> None:
        if self.watched:
            self.watched = False
            self.loop.remove_reader(self.fd)

    def alive(self) -> bool:
        """Whether the connection may take a statement: an idle connection in autocommit hears
        nothing from the server unless it is being ended (a restart, an idle timeout: the
        notice, then the end of the stream), so one with anything to read is not used. Asked
        of the socket itself, not of the loop's watch: the end may have come in the same turn
        of the loop as the message that wants a statement."""
        if not self.watched or self.pgconn.status != ConnStatus.OK:
            return False
        # poll, not select: a busy server's descriptors go past select's 1,024.
        probe = select.poll()
        probe.register(self.fd, select.POLLIN)
        return not probe.poll(0)

    def close(self) -> None:
        self._unwatch()
        try:
            self.raw.close()
        except Exception:
            log.debug("closing a statement connection", exc_info=True)

    async def _send(self) -> None:
        loop = self.loop
        while self.pgconn.flush() == 1:  # more to send than the socket took
            ready = loop.create_future()
            loop.add_writer(self.fd, _wake, ready)
            try:
                await ready
            finally:
                loop.remove_writer(self.fd)

    async def _exchange(self, send: Callable[[], None]) -> Any:
        """`send` a statement and return its checked result. The statement's `answer` is set
        before anything is sent, so that the watch knows whatever comes is its answer."""
        if not self.watched:
            raise psycopg.OperationalError("the connection to PostgreSQL was lost")
        answer = self.answer = self.loop.create_future()
        try:
            send()
            await self._send()
            if not answer.done():
                self.pgconn.consume_input()  # the answer may be there already
                if self.pgconn.is_busy():
                    await answer
            if answer.done():
                answer.result()  # the watch found the connection gone: raised here
        finally:
            self.answer = None
        last = None
        while True:
            result = self.pgconn.get_result()
            if result is None:
                return _checked(self.raw, last)
            last = result

    async def run(self, name: bytes, sql: bytes, params: Sequence[bytes | None]) -> Any:
        pgconn = self.pgconn
        if name not in self.prepared:
            await self._exchange(lambda: pgconn.send_prepare(name, sql))
            self.prepared.add(name)
        return await self._exchange(lambda: pgconn.send_query_prepared(name, params))


def _wake(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


def _checked(raw: psycopg.Connection, result: Any) -> Any:
    if result is not None and result.status in (ExecStatus.COMMAND_OK, ExecStatus.TUPLES_OK):
        return result
    if raw.pgconn.status == ConnStatus.BAD or result is None:
        raise psycopg.OperationalError("the connection to PostgreSQL was lost")
    raise psycopg.errors.error_from_result(result, encoding=raw.info.encoding)


class Statements:
    """The statement connections of one event loop (`for_loop`)."""

    def __init__(self, connect: Callable[[], psycopg.Connection], size: int | None = None) -> None:
        self.connect = connect
        self.size = SIZE if size is None else size
        self.idle: list[_Connection] = []
        self.open = 0
        # Statements waiting for a connection, first come first served: each future gets a
        # connection, or None to try again (one was closed: a new one may be opened).
        self.waiters: collections.deque[asyncio.Future] = collections.deque()

    async def run(self, name: bytes, sql: bytes, params: Sequence[bytes | None]) -> Any:
        """The result of the prepared statement `name` (`sql`, with `$1`… placeholders) with
        `params` in text form, or None when no connection came free in time (nothing was
        sent)."""
        connection = await self._take()
        if connection is None:
            return None
        try:
            result = await connection.run(name, sql, params)
        except BaseException as error:
            self.open -= 1
            connection.close()
            self._wake(None)
            if isinstance(error, psycopg.Error) and is_lock_timeout(error):
                raise LockTimeout(str(error)) from error
            raise
        self._wake(connection)
        return result

    async def _take(self) -> _Connection | None:
        while True:
            while self.idle:
                connection = self.idle.pop()
                if connection.alive():
                    return connection
                self.open -= 1  # ended while idle (a restart, an idle timeout)
                connection.close()
            if self.open < self.size:
                self.open += 1
                try:
                    raw = await asyncio.get_running_loop().run_in_executor(None, self.connect)
                except BaseException:
                    self.open -= 1
                    self._wake(None)
                    raise
                return _Connection(raw)
            # Every connection busy: usually for a moment only (a burst of moves read before
            # the answers already there), so wait for one rather than take the thread pool,
            # which costs more than the statement; but not behind statements waiting for row
            # locks, so not for long.
            if len(self.waiters) >= WAITING:
                return None
            waiter = asyncio.get_running_loop().create_future()
            self.waiters.append(waiter)
            try:
                async with asyncio.timeout(WAIT_SECONDS):
                    connection = await waiter
            except TimeoutError:
                # Given a connection just as the time ran out: keep it, it is ours.
                if waiter.done() and not waiter.cancelled():
                    return waiter.result()
                return None
            except BaseException:
                if waiter.done() and not waiter.cancelled() and waiter.result() is not None:
                    self._wake(waiter.result())  # cancelled after being given one: pass it on
                raise
            finally:
                if waiter in self.waiters:
                    self.waiters.remove(waiter)
            if connection is not None:
                return connection

    def _wake(self, connection: _Connection | None) -> None:
        """`connection` is free (None: one was closed): to the first waiter, else idle."""
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(connection)
                return
        if connection is not None:
            self.idle.append(connection)

    def close(self) -> None:
        for connection in self.idle:
            connection.close()
        self.open -= len(self.idle)
        self.idle.clear()


_by_loop: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def for_loop(connect: Callable[[], psycopg.Connection]) -> Statements:
    """This event loop's statement connections, made with `connect` (a blocking call that
    returns a psycopg connection in autocommit, run in a thread). They are closed with the
    loop (a test's loop; a server's lives as long as its process)."""
    loop = asyncio.get_running_loop()
    statements = _by_loop.get(loop)
    if statements is None:
        statements = _by_loop[loop] = Statements(connect)
        close = loop.close

        def closing(self_loop, *args, **kwargs):
            gone = _by_loop.pop(self_loop, None)
            if gone is not None:
                gone.close()
            self_loop.close = close
            return close(*args, **kwargs)

        loop.close = types.MethodType(closing, loop)
    return statements
