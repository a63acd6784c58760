"""The channel layer: Redis pub/sub, spoken directly (RESP over two connections per event loop).

What channels_redis' pub/sub layer does, in a leaner shape: every group is a Redis channel, and
a process subscribes to the groups its sockets joined; nothing is stored, so a process not
connected at that moment misses the message, and its pages resync (docs/protocol.md: `sync`,
the full state on reconnect).

Why our own: under live play (`make bench-live`, bench/live.py; docs/architecture.md, "Why our own
channel layer") redis-py's client around every PUBLISH and every message read — a retry wrapper and
a timeout context per call, a poll of the subscription every 100 ms, the message decoded once per
receiving socket — was a sixth of daphne's CPU per move. Here a message read from Redis is parsed
by hiredis in the socket's own `data_received`, decoded once, and put straight into the queues of
the sockets of its group; a PUBLISH is one write, its reply matched in order on a pipelined
connection.

Contract (what the consumers and `live.pushes` rely on):
- `group_add` returns once Redis has confirmed the subscription, so a consumer that joins and
  then reads the state from the database misses no change committed after that read.
- A channel from `new_channel` lives in this process; `send` to it from another process goes
  through this process's own Redis channel (one subscription per process, not per socket).
- `group_send` hands the message to this process's own members itself once Redis has taken
  the PUBLISH (every message carries its publishing loop's mark, and the copy Redis hands back
  is skipped): nobody gets a message Redis did not take. A message another process published
  just after may reach this process's members first; clients keep the newest version and ask
  for the state on a gap (docs/protocol.md). Processes of one site must run the same version
  of this layer (a message without the mark is dropped with a warning).
- Redis away: `group_add` / `group_send` / `send` raise ConnectionError (or TimeoutError), which
  `live.outages` reads as an outage; the subscriptions come back by themselves when Redis does
  (every RECONNECT_SECONDS), and the messages sent meanwhile are lost (pages resync).
"""

from __future__ import annotations

import asyncio
import logging
import select
import socket
import ssl
import uuid
import weakref
from collections import deque
from typing import Any
from urllib.parse import unquote, urlsplit

import hiredis
import msgpack
from channels.layers import BaseChannelLayer
from django.core.exceptions import ImproperlyConfigured

log = logging.getLogger(__name__)

CONNECT_SECONDS = 2.0  # opening a connection (and AUTH) to Redis
PUBLISH_SECONDS = 1.0  # Redis answering a PUBLISH (then the connection is given up)
SUBSCRIBE_SECONDS = 5.0  # Redis confirming a SUBSCRIBE
RECONNECT_SECONDS = 1.0  # between two attempts to get the subscriptions back
# A command past its instant with bytes unread is looked at again LATE_SECONDS later; one past
# it while this loop was late by more than LATE_SECONDS gets its whole time again from the
# moment the loop is back; both up to GRACE_SECONDS past the instant.
LATE_SECONDS = 0.1
GRACE_SECONDS = 5.0

_MESSAGE, _SUBSCRIBE = b"message", b"subscribe"
_PUSH_KINDS = frozenset({b"message", b"subscribe", b"unsubscribe", b"pong"})
_ORIGIN_BYTES = 16  # a loop's mark before each message it publishes (a UUID's bytes)


def wire(message: dict[str, Any], origin: bytes = bytes(_ORIGIN_BYTES)) -> bytes:
    """A message as this layer publishes it: its publisher's mark, then msgpack."""
    return origin + msgpack.packb(message)


def _command(*parts: bytes) -> bytes:
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out += (b"$%d\r\n" % len(part), part, b"\r\n")
    return b"".join(out)


def redis_address(url: str) -> dict[str, Any]:
    """Where and how to reach Redis, from a `redis://`, `rediss://` (TLS) or `unix://` URL
    (user and password included; the database number does not matter to pub/sub)."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss", "unix"):
        raise ValueError(f"not a Redis URL: {parts.scheme}://…")
    return {
        "host": parts.hostname or "localhost",
        "port": parts.port or 6379,
        "path": unquote(parts.path) if parts.scheme == "unix" else None,
        "username": unquote(parts.username) if parts.username else None,
        "password": unquote(parts.password) if parts.password else None,
        "tls": parts.scheme == "rediss",
    }


class _Connection(asyncio.Protocol):
    """One connection to Redis: commands pipelined, their replies matched in order; pub/sub
    pushes handed to `on_push` as they are parsed, in `data_received` itself."""

    def __init__(self, on_push=None, on_lost=None) -> None:
        self._parser = hiredis.Reader()
        # Commands sent, oldest first: each one's future, the instant its reply is due by and
        # the time it was given (None: no limit, `command(within=…)`); one timer watches the
        # oldest that has one.
        self._waiting: deque[tuple[asyncio.Future, float | None, float | None]] = deque()
        self._on_push, self._on_lost = on_push, on_lost
        self.transport: asyncio.Transport | None = None
        self.lost = False
        self._watch: asyncio.TimerHandle | None = None
        self._watch_due = 0.0  # the instant the watch was set for

    def connection_made(self, transport) -> None:
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:  # a Redis host that vanished is found out, not waited on forever
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)

    def data_received(self, data: bytes) -> None:
        self._parser.feed(data)
        while (reply := self._parser.gets()) is not False:
            if (
                self._on_push is not None
                and type(reply) is list
                and reply
                and reply[0] in _PUSH_KINDS
            ):
                self._on_push(reply)
                continue
            if not self._waiting:
                continue
            future, _due, _within = self._waiting.popleft()
            if future.done():
                continue
            if isinstance(reply, hiredis.ReplyError):
                future.set_exception(RuntimeError(f"Redis: {reply}"))
            else:
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        while self._waiting:
            future, _due, _within = self._waiting.popleft()
            if not future.done():
                future.set_exception(ConnectionError("the connection to Redis was lost"))
        if self._on_lost is not None:
            self._on_lost(self)

    @property
    def alive(self) -> bool:
        return not self.lost and self.transport is not None and not self.transport.is_closing()

    def write(self, *parts: bytes) -> None:
        """Send a command whose reply comes as a push (SUBSCRIBE, UNSUBSCRIBE)."""
        if not self.alive:
            raise ConnectionError("not connected to Redis")
        self.transport.write(_command(*parts))

    def command(self, *parts: bytes, within: float | None = None) -> asyncio.Future:
        """Send a command; its reply comes as the future's result. `within` seconds without
        it and the connection is given up (every command on it fails with ConnectionError,
        and the next one opens a new connection): a Redis that stopped answering costs a
        command that long at most. One timer per connection watches the oldest command, not
        one per command (a context or task per push was a visible share of a busy daphne,
        bench/live.py)."""
        self.write(*parts)
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        due = None if within is None else loop.time() + within
        self._waiting.append((future, due, within))
        if due is not None and self._watch is None:
            self._arm(loop, due)
        return future

    def _check_deadlines(self) -> None:
        """The oldest command past its instant gives the connection up, unless this loop, not
        Redis, may be why: its reply is waiting unread in the socket, or this check itself
        ran late (the loop was busy elsewhere, a burst of sockets closing: the time it lost is
        not Redis's, whose answer may be just behind). A reply waiting is looked at again
        shortly after; a late loop gives the command its whole time again from now (on a busy
        machine Redis, woken as late, may need more than a moment); both up to GRACE_SECONDS
        past the instant. A Redis that stopped answering while this loop kept time is given
        up at once. (A benchmark's teardown gave healthy connections up: bench/live.py's
        server logs; a full test run on a loaded machine, 100 ms after a late loop.)"""
        self._watch = None
        oldest = next(((due, within) for _f, due, within in self._waiting if due is not None), None)
        if oldest is None or self.transport is None:
            return
        deadline, within = oldest
        loop = asyncio.get_running_loop()
        now = loop.time()
        if deadline > now:
            self._arm(loop, deadline)
            return
        if now - deadline < GRACE_SECONDS:
            if now - self._watch_due > LATE_SECONDS:
                self._arm(loop, min(now + within, deadline + GRACE_SECONDS))
                return
            if self._reply_waiting():
                self._arm(loop, now + LATE_SECONDS)
                return
        log.warning("channel layer: Redis did not answer in time, connection given up")
        self.transport.abort()  # connection_lost fails every command waiting on it

    def _arm(self, loop: asyncio.AbstractEventLoop, due: float) -> None:
        self._watch_due = due
        self._watch = loop.call_at(due, self._check_deadlines)

    def _reply_waiting(self) -> bool:
        """Whether bytes from Redis wait unread in the socket (the loop reads them first on
        its next turn, before any timer)."""
        sock = self.transport.get_extra_info("socket") if self.transport else None
        if sock is None:
            return False
        try:
            return bool(select.select([sock.fileno()], [], [], 0)[0])
        except (OSError, ValueError):  # closed meanwhile
            return False

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def _open(address: dict[str, Any], on_push=None, on_lost=None) -> _Connection:
    loop = asyncio.get_running_loop()

    def protocol() -> _Connection:
        return _Connection(on_push, on_lost)

    try:
        if address["path"]:
            opening = loop.create_unix_connection(protocol, address["path"])
        else:
            context = ssl.create_default_context() if address["tls"] else None
            opening = loop.create_connection(
                protocol, address["host"], address["port"], ssl=context
            )
        _transport, connection = await asyncio.wait_for(opening, CONNECT_SECONDS)
        if address["password"]:
            auth = [b"AUTH"]
            if address["username"]:
                auth.append(address["username"].encode())
            auth.append(address["password"].encode())
            try:
                await asyncio.wait_for(connection.command(*auth), CONNECT_SECONDS)
            except BaseException:  # refused or timed out: the connection is not kept open
                connection.close()
                raise
    except OSError as error:  # refused, unreachable, a name that does not resolve
        raise ConnectionError(f"cannot reach Redis: {error}") from error
    return connection


class _SUBSCRIBED:
    """The state of a Redis channel whose subscription Redis has confirmed."""


class _LoopLayer:
    """The layer's state in one event loop (its connections belong to that loop)."""

    def __init__(self, address: dict[str, Any], prefix: str) -> None:
        self.address, self.prefix = address, prefix
        self.channels: dict[str, asyncio.Queue] = {}
        self.groups: dict[bytes, set[str]] = {}  # a group's Redis channel -> local channel names
        # This process's channels are "<process>!<id>"; `send` from elsewhere goes to <process>.
        self.process = f"{prefix}specific.{uuid.uuid4().hex}"
        self._process_channel = self.process.encode()
        # Marks what this loop publishes: Redis hands it back to our own subscription.
        self._origin = uuid.uuid4().bytes
        self._process_wanted = False
        # Per Redis channel: _SUBSCRIBED, or the future of the SUBSCRIBE on its way.
        self._state: dict[bytes, Any] = {}
        self._subscriber: _Connection | None = None
        self._publisher: _Connection | None = None
        self._subscriber_lock = asyncio.Lock()
        self._publisher_lock = asyncio.Lock()
        self._reconnecting: asyncio.Task | None = None
        self._closed = False

    # --- what is wanted ------------------------------------------------------------------------

    def group_channel(self, group: str) -> bytes:
        return f"{self.prefix}__group__{group}".encode()

    def _wanted(self, name: bytes) -> bool:
        if name == self._process_channel:
            return self._process_wanted
        return bool(self.groups.get(name))

    def _all_wanted(self) -> list[bytes]:
        names = [name for name, members in self.groups.items() if members]
        if self._process_wanted:
            names.append(self._process_channel)
        return names

    # --- the subscriber connection -------------------------------------------------------------

    def _on_push(self, reply: list) -> None:
        kind = reply[0]
        if kind == _MESSAGE:
            self._deliver(reply[1], reply[2])
        elif kind == _SUBSCRIBE:
            name = reply[1]
            pending = self._state.get(name)
            if isinstance(pending, asyncio.Future):
                self._state[name] = _SUBSCRIBED
                if not pending.done():
                    pending.set_result(None)
                if not self._wanted(name):  # everyone left while it was on its way
                    self._unsubscribe(name)

    def _deliver(self, name: bytes, data: bytes) -> None:
        """A message from Redis: those this loop published itself were delivered here already
        (`group_send`); the others to this loop's channels."""
        if data[:_ORIGIN_BYTES] == self._origin:
            return
        try:
            message = msgpack.unpackb(data[_ORIGIN_BYTES:], raw=False)
        except Exception:  # not a message of this layer (another version, another program)
            log.warning("channel layer: unreadable message on %r dropped", name)
            return
        self._hand_over(name, message)

    def _hand_over(self, name: bytes, message: dict[str, Any]) -> None:
        if name == self._process_channel:
            queue = self.channels.get(message["to"])
            if queue is not None:
                queue.put_nowait(message["message"])
            return
        members = self.groups.get(name)
        if not members:
            return
        first = True
        for channel in members:
            queue = self.channels.get(channel)
            if queue is not None:
                # Each consumer gets its own dict (a handler may change what it was given).
                queue.put_nowait(message if first else dict(message))
                first = False

    def _on_subscriber_lost(self, connection: _Connection) -> None:
        if connection is not self._subscriber:
            return
        self._subscriber = None
        for state in self._state.values():
            if isinstance(state, asyncio.Future) and not state.done():
                state.set_exception(ConnectionError("the connection to Redis was lost"))
                state.exception()  # a renewal nobody awaits: not "never retrieved"
        self._state.clear()
        if self._closed or not self._all_wanted():
            return
        log.warning("channel layer: lost Redis, subscriptions come back when it does")
        if self._reconnecting is None or self._reconnecting.done():
            self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        while not self._closed and self._all_wanted():
            try:
                await self._subscriber_connection()
                log.warning("channel layer: Redis is back, subscriptions renewed")
                return
            except (OSError, TimeoutError, RuntimeError):  # ConnectionError is an OSError
                await asyncio.sleep(RECONNECT_SECONDS)
            except Exception:
                # Anything else must not end the task: the subscriptions would never come back.
                log.warning("channel layer: reconnecting to Redis failed", exc_info=True)
                await asyncio.sleep(RECONNECT_SECONDS)

    async def _subscriber_connection(self) -> _Connection:
        connection = self._subscriber
        if connection is not None and connection.alive:
            return connection
        async with self._subscriber_lock:
            connection = self._subscriber
            if connection is not None and connection.alive:
                return connection
            connection = await _open(self.address, self._on_push, self._on_subscriber_lost)
            self._subscriber = connection
            self._state.clear()
            for name in self._all_wanted():  # after an outage: everything this loop had
                self._send_subscribe(connection, name)
            return connection

    def _send_subscribe(self, connection: _Connection, name: bytes) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        self._state[name] = future
        connection.write(b"SUBSCRIBE", name)
        return future

    async def _subscribe(self, name: bytes) -> None:
        """Return once Redis has confirmed a subscription to `name`."""
        while self._wanted(name):  # (all who wanted it may leave while it is on its way)
            state = self._state.get(name)
            if state is _SUBSCRIBED and self._subscriber is not None and self._subscriber.alive:
                return
            if not isinstance(state, asyncio.Future):
                state = self._send_subscribe(await self._subscriber_connection(), name)
                if self._state.get(name) is not state:  # the connection was renewed meanwhile
                    continue
            await asyncio.wait_for(asyncio.shield(state), SUBSCRIBE_SECONDS)

    def _unsubscribe(self, name: bytes) -> None:
        """Stop listening to `name` if it is subscribed (one on its way is stopped when its
        confirmation comes, `_on_push`)."""
        if self._state.get(name) is not _SUBSCRIBED:
            return
        del self._state[name]
        connection = self._subscriber
        if connection is not None and connection.alive:
            connection.write(b"UNSUBSCRIBE", name)

    # --- the publisher connection --------------------------------------------------------------

    async def publish(self, name: bytes, data: bytes) -> None:
        """PUBLISH `data` to `name`, marked as this loop's (`_deliver` skips it coming back)."""
        connection = self._publisher
        if connection is None or not connection.alive:
            # Bounded as a whole, the wait behind another's attempt included (Redis away).
            async with asyncio.timeout(CONNECT_SECONDS), self._publisher_lock:
                connection = self._publisher
                if connection is None or not connection.alive:
                    connection = self._publisher = await _open(self.address)
        await connection.command(b"PUBLISH", name, self._origin + data, within=PUBLISH_SECONDS)

    # --- the channel layer, in this loop -------------------------------------------------------

    async def new_channel(self, prefix: str = "specific.") -> str:
        if not self._process_wanted:
            self._process_wanted = True
            try:
                await self._subscribe(self._process_channel)
            except (ConnectionError, TimeoutError):
                # Redis away: the channel works in this process all the same, and the
                # subscription comes with the others when Redis does (a consumer's join, next,
                # fails as an outage and its socket is refused with "try again").
                log.warning("channel layer: Redis away, this process's channel waits for it")
                if self._reconnecting is None or self._reconnecting.done():
                    self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect())
        name = f"{self.process}!{uuid.uuid4().hex}"
        self.channels[name] = asyncio.Queue()
        return name

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        queue = self.channels.get(channel)
        if queue is not None:
            queue.put_nowait(message)
            return
        process, bang, _ = channel.partition("!")
        if not bang:
            raise ValueError(f"not a channel of this layer: {channel!r}")
        await self.publish(process.encode(), msgpack.packb({"to": channel, "message": message}))

    async def receive(self, channel: str) -> dict[str, Any]:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue()
        try:
            return await queue.get()
        except (asyncio.CancelledError, TimeoutError, GeneratorExit):
            # As channels_redis: a receive cancelled is its consumer ending.
            self.channels.pop(channel, None)
            raise

    def inbox(self, channel: str, queue: asyncio.Queue | None = None) -> asyncio.Queue:
        """The queue `channel`'s messages are put in: `queue` when given (the server's queue of
        the socket's frames, `live.sockets`), else one of its own."""
        if queue is not None:
            self.channels[channel] = queue
            return queue
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue()
        return queue

    async def group_add(self, group: str, channel: str) -> None:
        name = self.group_channel(group)
        members = self.groups.setdefault(name, set())
        members.add(channel)
        try:
            await self._subscribe(name)
        except BaseException:
            members.discard(channel)  # not joined: nothing of it is left behind
            if not members:
                self.groups.pop(name, None)
                self._unsubscribe(name)
            raise

    async def group_discard(self, group: str, channel: str) -> None:
        name = self.group_channel(group)
        members = self.groups.get(name)
        if not members or channel not in members:
            return
        members.discard(channel)
        if not members:
            del self.groups[name]
            self._unsubscribe(name)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """To every member in every process: published, and once Redis has taken it, handed to
        this loop's own members directly rather than read back from Redis (a move's push
        reached its own process twice over the wire: bench/live.py). So a message Redis did not
        take reaches nobody, here or elsewhere (the caller's fallback, `live.sockets.call`).
        A message another process published just after this one may reach this loop's members
        first: clients keep the newest version and ask for the state on a gap
        (docs/protocol.md)."""
        name = self.group_channel(group)
        await self.publish(name, msgpack.packb(message))
        self._hand_over(name, dict(message))

    async def flush(self) -> None:
        """Forget every channel and group and close the connections (they reopen on use)."""
        self._closed = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            self._reconnecting = None
        for connection in (self._subscriber, self._publisher):
            if connection is not None:
                connection.close()
        self._subscriber = self._publisher = None
        for state in self._state.values():
            if isinstance(state, asyncio.Future) and not state.done():
                state.cancel()
        self._state.clear()
        self.channels.clear()
        self.groups.clear()
        self._process_wanted = False
        self._closed = False


class PubSubChannelLayer(BaseChannelLayer):
    """The site's channel layer (CHANNEL_LAYERS in config/settings.py): one `_LoopLayer` per
    event loop, closed by `flush()`."""

    extensions = ["groups", "flush"]
    # Every send ends, Redis away or silent included: within CONNECT_SECONDS + PUBLISH_SECONDS
    # while the loop keeps time, up to GRACE_SECONDS more when the loop itself was late (its
    # lost time is not counted against Redis, `_Connection._check_deadlines`).
    # `live.pushes.send_collected` needs no timeout of its own around it.
    bounded_sends = True

    def __init__(self, hosts: list[Any], prefix: str = "asgi", **kwargs: Any) -> None:
        super().__init__()
        if len(hosts) != 1:  # no sharding: one Redis carries every group (docs/operations.md)
            raise ImproperlyConfigured("the channel layer takes exactly one Redis host")
        host = hosts[0]
        url = host["address"] if isinstance(host, dict) else host
        self.address = redis_address(url)
        self.prefix = prefix
        self._layers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _layer(self) -> _LoopLayer:
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            self._forget_closed_loops()
            layer = self._layers[loop] = _LoopLayer(self.address, self.prefix)
        return layer

    def _forget_closed_loops(self) -> None:
        """A loop that ends should `flush()` the layer first, which closes its connections
        (the site's own loops never end: daphne's and `live.pushes`' run as long as the
        process; tests' do). One closed without it is forgotten here, when a new loop first
        uses the layer; its sockets are closed by the collector. Nothing of asyncio's is
        patched for this (tests/test_no_patches.py)."""
        for loop in [loop for loop in self._layers if loop.is_closed()]:
            self._layers.pop(loop, None)

    async def new_channel(self, prefix: str = "specific.") -> str:
        return await self._layer().new_channel(prefix)

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        await self._layer().send(channel, message)

    async def receive(self, channel: str) -> dict[str, Any]:
        return await self._layer().receive(channel)

    def inbox(self, channel: str, queue: asyncio.Queue | None = None) -> asyncio.Queue:
        """The queue the messages of a channel of this process go into: a consumer may read it
        itself, with its other messages (`live.sockets.LiveConsumer`), instead of `receive`;
        given `queue` (the server's queue of the socket's own frames), that one."""
        return self._layer().inbox(channel, queue)

    def forget(self, channel: str) -> None:
        """A channel of this process no longer read (its consumer ended)."""
        self._layer().channels.pop(channel, None)

    async def group_add(self, group: str, channel: str) -> None:
        self.require_valid_group_name(group)
        await self._layer().group_add(group, channel)

    async def group_discard(self, group: str, channel: str) -> None:
        await self._layer().group_discard(group, channel)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await self._layer().group_send(group, message)

    async def flush(self) -> None:
        await self._layer().flush()
