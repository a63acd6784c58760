"""What every socket consumer of the site shares: database calls off the event loop, in a pool
of threads, with pushes sent from the loop (`live.pushes`); one parser of client frames; a
base consumer whose cleanup always runs (`LiveConsumer`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings

from live import budget, pushes
from live.outages import CLOSE_UNAVAILABLE, is_outage
from live.threads import LANES, answer_due, answering, database_sync_to_async

log = logging.getLogger(__name__)


async def _send_late(collected: tuple[list[pushes.Push], Any, BaseException | None]) -> None:
    """A service that ended after its caller was answered (`live.threads.answering`): what it
    committed is pushed all the same, its client included (by the group)."""
    await send(collected[0])


# A service run in the pool with its pushes collected, to be sent from the loop (`call`).
_pooled_collecting = {
    lane: database_sync_to_async(pushes.collecting, lane, late=_send_late) for lane in LANES
}


async def call(
    func: Callable[..., Any],
    *args: Any,
    undelivered: Callable[[str, dict[str, Any]], Any] | None = None,
    lane: str = "db",
    **kwargs: Any,
) -> Any:
    """Run `func` in the pool of `lane` (live/threads.py); send, from the loop, whatever it
    committed; return its result or raise its error. Pushes go out first, so a client told
    "error" already has the new state.

    A push that could not be sent (Redis away) is handed to `undelivered(group, message)`: the
    consumer gives the committed state to its own client directly (else, during an outage, a
    mover would get neither the state nor an error); the others resync when they can."""
    outbox, result, error = await _pooled_collecting[lane](func, *args, **kwargs)
    await send(outbox, undelivered)
    if error is not None:
        raise error
    return result


async def send(
    outbox: list[pushes.Push],
    undelivered: Callable[[str, dict[str, Any]], Any] | None = None,
) -> None:
    """Send pushes already committed, from the loop; those that could not be sent go to
    `undelivered(group, message)` (see `call`)."""
    if outbox:
        failed = await pushes.send_collected(get_channel_layer(), outbox)
        if undelivered is not None:
            for group, message in failed:
                await undelivered(group, message)


# Clean-ups of sockets whose task was cancelled meanwhile, held until they end (a task nobody
# holds may be collected before it finishes).
_cleanups: set[asyncio.Future] = set()


def _clean_up_ended(cleanup: asyncio.Future) -> None:
    """A clean-up cut short (its loop shutting down) or failed outside `closed()`'s own guard
    says so: what it recorded may be left for the stale sweep."""
    _cleanups.discard(cleanup)
    if cleanup.cancelled():
        log.warning("a socket's clean-up was cancelled before it ended")
    elif cleanup.exception() is not None:
        log.error("a socket's clean-up failed", exc_info=cleanup.exception())


# The close code of every socket of an account deleted or deactivated (docs/protocol.md).
CLOSE_ACCOUNT_CLOSED = 4403


class FrameError(ValueError):
    """A client frame the site cannot read: answered with a `malformed` error."""


MAX_FRAME_CHARS = 8192  # the longest message any client sends is a few hundred characters


def parse_frame(text_data: str | None, bytes_data: bytes | None) -> dict[str, Any]:
    """The one parser of client frames (docs/protocol.md): a JSON object with a string `type`.

    Anything else raises FrameError with a message for the client: binary frames, empty or
    over-long text, text that is not JSON (deep nesting included), a non-object, a `type` that
    is missing or not a string."""
    if bytes_data is not None or text_data is None:
        raise FrameError("binary frames are not accepted")
    if not text_data:
        raise FrameError("empty frame")
    if len(text_data) > MAX_FRAME_CHARS:
        raise FrameError("frame too long")
    try:
        message = json.loads(text_data)
    except (ValueError, RecursionError):
        raise FrameError("not JSON") from None
    if not isinstance(message, dict):
        raise FrameError("a message is a JSON object")
    if not isinstance(message.get("type"), str):
        raise FrameError("unknown or missing message type")
    return message


# The handler name of each message type seen (channels' `get_handler_name`, worked out once
# per type rather than once per message: the layer's and daphne's types are a handful).
_HANDLER_NAMES: dict[str, str] = {}


def _handler_name(message: dict[str, Any]) -> str:
    kind = message.get("type")
    name = _HANDLER_NAMES.get(kind) if isinstance(kind, str) else None
    if name is None:
        name = get_handler_name(message)  # raises for a message without a sound type
        if len(_HANDLER_NAMES) < 256:
            _HANDLER_NAMES[kind] = name
    return name


_owners: budget.Owners | None = None


def owners() -> budget.Owners:
    """This process's shared socket budgets (live.budget), made anew when the settings change
    (a test's own budgets)."""
    global _owners
    limits = budget.Limits(
        socket=budget.Budget(*settings.SOCKET_BUDGET_PAGE),
        player=budget.Budget(*settings.SOCKET_BUDGET_PLAYER),
        guest=budget.Budget(*settings.SOCKET_BUDGET_GUEST),
        queue=settings.SOCKET_QUEUE,
        abuse=budget.Budget(*settings.SOCKET_ABUSE),
        cooldown=float(settings.SOCKET_ABUSE_COOLDOWN),
        reply_every=1.0,
        user_cap=settings.SOCKET_USER_CAP,
        address_cap=settings.SOCKET_ADDRESS_CAP,
    )
    if _owners is None or _owners.limits != limits:
        _owners = budget.Owners(limits)
    return _owners


def scope_address(scope: dict[str, Any]) -> str:
    """The address a socket came from, as `accounts.throttle.client_address` reads a request's:
    behind a trusted proxy (BEHIND_PROXY) the right-most X-Forwarded-For entry, the one the
    proxy appended; otherwise the peer's own address."""
    client = scope.get("client")
    remote = str(client[0]) if client else "unknown"
    if not settings.BEHIND_PROXY:
        return remote
    for name, value in scope.get("headers", ()):
        if name.lower() == b"x-forwarded-for":
            return budget.forwarded_address(remote, value.decode("latin1"))
    return remote


class LiveConsumer(AsyncWebsocketConsumer):
    """The base of every socket consumer of the site (STYLE 5: consumers are adapters).

    - Client frames are parsed in one place (`parse_frame`); a bad frame gets an `error` reply
      with code `malformed` and the socket stays open. A message whose `type` is in `accepts`
      goes to `on_<type>(message)`; `ping` is answered with `pong`.
    - A handler that raises is logged and answered with an `internal` error; the socket stays.
    - `closed()` runs exactly once however the socket ends: a clean close, a crash, or the task
      being cancelled, before or during the clean-up, so what a socket recorded (presence)
      never outlives it.
    - `refuse(code)` accepts the handshake, then closes with the code, so a client sees 4401 /
      4404 rather than a bare HTTP 403.
    - Dispatch skips channels' per-message `aclose_old_connections`: it runs
      `close_old_connections` through `sync_to_async` in thread-sensitive mode, queueing every
      message of every socket of the process behind one thread. Handlers touch the database
      only through `call` / `database_sync_to_async`, whose threads check their own
      connections.
    """

    accepts: frozenset[str] = frozenset()
    # Client messages answered from the present only: while one waits for the consumer, another
    # is dropped (live.budget).
    coalesced: frozenset[str] = frozenset({"ping"})
    # The setting holding this kind of socket's own budget (live.budget, config/settings.py).
    budget_setting = "SOCKET_BUDGET_PAGE"
    _closed_ran = False
    _counted = False  # counted among its owner's open sockets (live.budget.Owners.open)
    _refused = False  # closed by `refuse`: its client's frames are not handled
    _accepted = False  # its handshake accepted
    _request: Any = None  # the client message being handled (its id goes into an error)

    async def __call__(self, scope, receive, send) -> None:
        self.joined: list[str] = []
        try:
            await self._serve(scope, receive, send)
        finally:
            await self._run_closed()
            if self._counted:
                self._counted = False
                self._owners.close(self._user_id, self._address)

    async def _serve(self, scope, receive, send) -> None:
        """channels' `AsyncConsumer.__call__` with one inbox and the client's frames read by a
        task of their own.

        The inbox: the channel layer's messages go into the queue the consumer reads
        (`live.layers`' `inbox`), and so do the client's, one loop handling them one at a time
        as channels does (channels waits on both sources with `asyncio.wait` and a new task per
        message; on a busy server that was a measurable part of each move, bench/live.py).

        The reader (`_read_client`) takes each frame from the server as it arrives and lets it
        into the inbox only within the socket's budget (`live.budget`): a handler waiting for
        the database no longer leaves the frames behind it to pile up in the server's queue."""
        layer = get_channel_layer(self.channel_layer_alias)
        self.scope, self.channel_layer, self.base_send = scope, layer, send
        self.channel_name = await layer.new_channel()
        user = scope.get("user")
        self._user_id = user.pk if user is not None and user.is_authenticated else None
        self._address = scope_address(scope)
        self._owners = owners()
        self._gate = budget.SocketGate(
            self._owners,
            budget.owner_key(self._user_id, self._address),
            time.monotonic(),
            socket=budget.Budget(*getattr(settings, self.budget_setting)),
        )
        loop = asyncio.get_running_loop()
        inbox = getattr(layer, "inbox", None)
        if inbox is not None:
            queue, from_layer = inbox(self.channel_name), None
        else:  # another channel layer: its messages read by a task, as channels does
            queue = asyncio.Queue()

            async def read_layer() -> None:
                while True:
                    queue.put_nowait(await layer.receive(self.channel_name))

            from_layer = loop.create_task(read_layer())
        client = loop.create_task(self._read_client(receive, queue))
        try:
            while True:
                message = await queue.get()
                if message["type"] == "websocket.receive":
                    self._gate.taken(message.get("kind"))
                await self.dispatch(message)
        except StopConsumer:
            pass
        finally:
            for task in (client, from_layer):
                if task is not None:
                    task.cancel()
                    try:
                        await task
                    except asyncio.CancelledError:
                        pass
            if inbox is not None:
                layer.forget(self.channel_name)

    async def _read_client(self, receive, queue: asyncio.Queue) -> None:
        """Every message of the server, as it arrives: a client frame goes into the inbox, read
        and checked by `parse_frame`, only within the socket's budget; over it, the frame is
        dropped unread, answered `rate_limited` at most once a second, and a socket that goes
        on is closed (4429; live.budget)."""
        gate = self._gate
        try:
            while True:
                message = await receive()
                if message["type"] != "websocket.receive":
                    queue.put_nowait(message)
                    if message["type"] == "websocket.disconnect":
                        return
                    continue
                verdict = gate.admit(time.monotonic())
                if verdict is budget.Verdict.ADMIT:
                    try:
                        frame: dict[str, Any] | FrameError = parse_frame(
                            message.get("text"), message.get("bytes")
                        )
                        kind = frame["type"]
                    except FrameError as error:
                        frame, kind = error, None
                    if gate.queued(kind, kind in self.coalesced):
                        # `at`: its answer is due SOCKET_ANSWER_SECONDS after it came, however
                        # long it waited behind the socket's earlier messages (`dispatch`).
                        queue.put_nowait(
                            {
                                "type": "websocket.receive",
                                "frame": frame,
                                "kind": kind,
                                "at": time.monotonic(),
                            }
                        )
                elif verdict is budget.Verdict.REFUSE:
                    # No `send_error`: a game socket's reads the game's state.
                    await self.send_json(
                        {
                            "type": "error",
                            "code": "rate_limited",
                            "message": "too many messages: slow down",
                        },
                    )
                elif verdict is budget.Verdict.CLOSE:
                    log.warning(
                        "%s: closed for too many messages (%s)", type(self).__name__, gate.owner
                    )
                    await self.close(code=budget.CLOSE_TOO_MANY_MESSAGES)
        except asyncio.CancelledError:
            raise
        except Exception:  # the consumer must still hear that the socket is gone
            log.exception("%s: reading the client failed", type(self).__name__)
            queue.put_nowait({"type": "websocket.disconnect", "code": 1011})

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        """A socket over its owner's count (4409), or of an owner cooling down after abuse
        (4429), is refused before the consumer's `connect` reads anything (live.budget)."""
        now = time.monotonic()
        if self._owners.is_cooling(self._gate.owner, now):
            await self.refuse(budget.CLOSE_TOO_MANY_MESSAGES)
            return
        if not self._owners.open(self._user_id, self._address):
            await self.refuse(budget.CLOSE_TOO_MANY_SOCKETS)
            return
        self._counted = True
        if self._user_id is not None:
            # Every socket of a player, whatever its page, ends with their account (4403).
            await self.join(pushes.account_group(self._user_id))
        await super().websocket_connect(message)

    async def account_closed(self, event: dict[str, Any]) -> None:
        """The player's account was deleted or deactivated (`live.pushes.account_closed_on_commit`):
        the socket closes with 4403 and its page does not reconnect."""
        await self.close(code=CLOSE_ACCOUNT_CLOSED)

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        if self._refused:  # its `connect` never ran: nothing it would handle is set up
            return
        frame = message.get("frame")
        if frame is None:  # not through `_read_client`
            try:
                frame = parse_frame(message.get("text"), message.get("bytes"))
            except FrameError as error:
                frame = error
        await self.receive_frame(frame)

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, _handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        kind = message["type"]
        if kind == "websocket.disconnect":
            await handler(message)
            return
        # A client's message (a handshake, any message but the close) is answered within
        # SOCKET_ANSWER_SECONDS of its coming, whatever the database does: its database work is
        # done by then or not at all, and the client told `unavailable` (docs/protocol.md,
        # live.threads.answering). The close's clean-up has no client waiting: no bound.
        with answering(answer_due(message.get("at", time.monotonic()))):
            await self._handle(handler, kind, message)

    async def _handle(self, handler: Callable[..., Any], kind: str, message: dict) -> None:
        try:
            await handler(message)
        except StopConsumer:
            raise
        except Exception as error:
            outage = is_outage(error)
            if outage:  # PostgreSQL or Redis away: one line (/healthz says the rest)
                log.warning(
                    "%s: %s not handled, a service is away: %s", type(self).__name__, kind, error
                )
            else:
                log.exception("%s: handler of %s failed", type(self).__name__, kind)
            if kind == "websocket.connect":
                # The handshake could not be completed (the group or the game could not be read):
                # closed "try again later", which the page's socket client does.
                await self.close(code=CLOSE_UNAVAILABLE)
            elif kind == "websocket.receive":
                try:
                    if outage:
                        await self.send_error(
                            "unavailable",
                            "the server cannot reach its data: try again",
                            self._request,
                        )
                    else:
                        await self.send_error(
                            "internal", "the server could not handle this message", self._request
                        )
                except Exception:  # the reply itself needs what is away: a bare one
                    await LiveConsumer.send_error(self, "unavailable", "try again", self._request)

    async def join(self, group: str) -> None:
        """Join `group` (left with the socket); a group already joined is not asked again (a
        page socket's parts and its kind may name the same one)."""
        if group in self.joined:
            return
        await self.channel_layer.group_add(group, self.channel_name)
        self.joined.append(group)

    async def leave(self, group: str) -> None:
        """Leave a group joined earlier, before the socket ends (a chat room no longer read)."""
        if group in self.joined:
            self.joined.remove(group)
            await self.channel_layer.group_discard(group, self.channel_name)

    async def accept(self, subprotocol=None, headers=None) -> None:
        self._accepted = True
        await super().accept(subprotocol, headers)

    async def refuse(self, code: int) -> None:
        """Closed with `code`, its handshake accepted first if it was not yet (a page socket
        accepts before its one read, config/page_sockets.py)."""
        self._refused = True
        if not self._accepted:
            await self.accept()
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        await self._run_closed()

    async def _run_closed(self) -> None:
        if self._closed_ran:
            return
        self._closed_ran = True
        # Shielded: a task cancelled while it cleans up (daphne's close timeout on a busy
        # server, a test communicator's) still undoes what it recorded; the clean-up goes on
        # by itself and the cancellation goes on to the caller. (A full test run on a loaded
        # machine left presence rows of sockets cancelled during their clean-up, whose call
        # waited for a free database thread.)
        cleanup = asyncio.ensure_future(self._clean_up())
        _cleanups.add(cleanup)
        cleanup.add_done_callback(_clean_up_ended)
        await asyncio.shield(cleanup)

    async def _clean_up(self) -> None:
        for group in getattr(self, "joined", ()):
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:
                log.warning("could not leave group %s", group, exc_info=True)
        try:
            await self.closed()
        except Exception:
            log.exception("%s: cleanup failed", type(self).__name__)

    async def closed(self) -> None:
        """What the socket recorded, undone (subclasses)."""

    async def receive_frame(self, frame: dict[str, Any] | FrameError) -> None:
        """A client frame as `parse_frame` read it (or the reason it could not)."""
        self._request = None
        if isinstance(frame, FrameError):
            await self.send_error("malformed", str(frame))
            return
        self._request = frame
        kind = frame["type"]
        if kind == "ping":
            await self.send_json({"type": "pong", "id": frame.get("id")})
            return
        if kind not in self.accepts:
            await self.send_error("malformed", "unknown or missing message type", frame)
            return
        await getattr(self, f"on_{kind}")(frame)

    async def send_error(self, code: str, message: str, request: Any = None) -> None:
        reply: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if isinstance(request, dict) and "id" in request:
            reply["id"] = request["id"]
        await self.send_json(reply)

    async def send_json(self, content: Any) -> None:
        await self.send(text_data=json.dumps(content))

    async def send(self, text_data=None, bytes_data=None, close=False) -> None:
        # A socket may close while a push is on its way to it: nothing to tell anyone.
        try:
            if bytes_data is None and not close:
                await self.base_send({"type": "websocket.send", "text": text_data})
            else:
                await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except Exception:
            log.debug("send to a closing socket", exc_info=True)


# --- the Origin of a websocket ------------------------------------------------------------------


class SameOriginValidator:
    """Refuse a websocket whose Origin is not the site itself (scheme, host and port), or one of
    CSRF_TRUSTED_ORIGINS. A browser sends the page's origin with every websocket handshake, and
    the site cookie with it: without this check a page on another origin (another port of the
    same host included) could drive a player's games with their session.

    The socket's own origin is the scheme it came in by (wss → https; behind a proxy that says
    so, `X-Forwarded-Proto: https`, when BEHIND_PROXY is set) and its Host header, which must be
    one of ALLOWED_HOSTS. A handshake with no Origin header is refused too (clients other than
    browsers send the site's origin, docs/protocol.md)."""

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not self.allowed(scope):
            from channels.security.websocket import WebsocketDenier

            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)

    @staticmethod
    def allowed(scope) -> bool:
        from urllib.parse import urlsplit

        from django.conf import settings
        from django.http.request import split_domain_port, validate_host

        headers = {
            name.decode("latin1").lower(): value.decode("latin1")
            for name, value in scope.get("headers", [])
        }
        origin = headers.get("origin", "").strip().lower()
        if not origin:
            return False
        if origin in {o.lower().rstrip("/") for o in settings.CSRF_TRUSTED_ORIGINS}:
            return True
        secure = scope.get("scheme") == "wss" or (
            settings.BEHIND_PROXY
            and headers.get("x-forwarded-proto", "").split(",")[0].strip() == "https"
        )
        scheme = "https" if secure else "http"
        host = headers.get("host", "").strip().lower()
        domain, port = split_domain_port(host)
        if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
            return False
        default = "443" if secure else "80"
        try:
            parsed = urlsplit(origin)
            origin_port = str(parsed.port or (443 if parsed.scheme == "https" else 80))
        except ValueError:
            return False
        return (
            parsed.scheme == scheme
            and (parsed.hostname or "") == domain.strip("[]")
            and origin_port == (port or default)
        )
