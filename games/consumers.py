"""`/ws/game/<id>/` (players and spectators of one game) and `/ws/lobby/` (docs/protocol.md).

Adapters (STYLE 5): they authenticate, parse (`live.sockets.parse_frame`, in the base class),
call one service and turn a domain error into an `error` reply. They never write a game
themselves and never decide what to broadcast: the services push every change to the group
after commit (sent from the event loop, `live.sockets.call`). Any process may serve any game:
the group lives in the Redis channel layer.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from games import services
from games.models import Game
from games.services import memory
from live import locks, presence
from live.presence import ProcessConnections
from live.sockets import LiveConsumer, call, database_sync_to_async


def state_read(game_id: int) -> dict[str, Any] | None:
    game = Game.objects.select_related("white", "black").filter(pk=game_id).first()
    if game is None:
        return None
    # One read is one version of the row, its stamp with it: this process may remember the game
    # from it, so even the first move here is written from memory (`games.services.memory`).
    memory.remember(game)
    return services.game_state(game)


def _flagged_state(game_id: int) -> dict[str, Any] | None:
    services.game_flag(game_id=game_id)
    return state_read(game_id)


class GameConsumer(LiveConsumer):
    accepts = frozenset(
        {
            "move",
            "resign",
            "draw_offer",
            "draw_accept",
            "draw_decline",
            "draw_claim",
            "boost",
            "abort",
            "takeback_offer",
            "takeback_accept",
            "takeback_decline",
            "more_time",
            "sync",
        }
    )
    # A sync is answered from the present: one waiting is enough (live.budget).
    coalesced = frozenset({"ping", "sync"})
    budget_setting = "SOCKET_BUDGET_GAME"
    game_id: int
    user_id: int | None
    is_player: bool = False
    # `?watch`: a board that only follows the game (an event's or a match's top boards). Its
    # viewer is never present at the game through it, even one of its players: a player looking
    # at their club's match page has not sat at their board (RULES 3, 16.5), and it acts on
    # nothing.
    watching: bool = False

    async def connect(self) -> None:
        """One read of the game: a round start connects every player at once, and each read
        is a query and the state's legal moves worked out (bench/evening.py, the round start's
        CPU). The group is joined first, so whatever changes after the read comes as a push;
        the state read is the socket's first message. A player's presence, recorded next, is
        pushed to everyone (this socket included) as a newer state."""
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.watching = "watch" in parse_qs(
            self.scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True
        )
        user = self.scope.get("user")
        self.user_id = user.pk if user is not None and user.is_authenticated else None
        await self.join(services.group_name(self.game_id))
        state = await database_sync_to_async(state_read, "connect")(self.game_id)
        if state is None:
            await self.refuse(4404)  # its group is left with the socket (`closed`)
            return
        await self.accept()
        await self.send_json(state)
        self.is_player = not self.watching and self.user_id in (
            state["white"]["id"],
            state["black"]["id"],
        )
        if self.is_player:
            ProcessConnections.add(self.channel_name)
            # A presence push that cannot be published (Redis away) still reaches this socket.
            await call(self._presence, True, undelivered=self._undelivered, lane="connect")

    def _presence(self, connected: bool) -> None:
        services.game_presence(
            game_id=self.game_id, user_id=self.user_id, connected=connected, key=self.channel_name
        )

    async def closed(self) -> None:
        if self.is_player:
            ProcessConnections.discard(self.channel_name)
            await call(self._presence, False)

    async def _undelivered(self, group: str, message: dict[str, Any]) -> None:
        """The game's state could not be published (Redis away): this socket's client, who
        acted, gets it all the same."""
        if group == services.group_name(self.game_id) and message.get("type") == "game.state":
            await self.send(text_data=message["text"])

    async def _act(self, message: dict[str, Any], service, **kwargs: Any) -> None:
        if self.watching:
            await self.send_error("watching", "this socket only follows the game", message)
            return
        try:
            await call(
                service,
                game_id=self.game_id,
                user_id=self.user_id,
                undelivered=self._undelivered,
                lane="play",  # ahead of the connects and presence of a round's opening
                **kwargs,
            )
        except services.AmbiguousMove as error:
            await self.send_error(error.code, error.message, message, choices=error.choices)
        except services.GameError as error:
            await self.send_error(error.code, error.message, message)
        except locks.LockTimeout:
            await self.send_error("busy", "the game is busy, try again", message)

    async def on_move(self, message: dict[str, Any]) -> None:
        # In the socket threads, as every action: one statement for a game this process
        # remembers (games.services.memory), two for one it reads first.
        ply, move = message.get("ply"), message.get("move")
        if move is None and "text" in message:
            # The text mode: the move as the player typed it, read by the server (the rules
            # stay in Python); `lang` says which reading of `R` comes first (docs/protocol.md).
            await self._act(
                message,
                services.game_move_typed,
                expected_ply=ply,
                text=message.get("text"),
                language=message.get("lang"),
            )
            return
        await self._act(message, services.game_move, expected_ply=ply, move=move)

    async def on_resign(self, message: dict[str, Any]) -> None:
        await self._act(message, services.game_resign, expected_ply=message.get("ply"))

    async def on_draw_offer(self, message: dict[str, Any]) -> None:
        await self._act(message, services.game_draw_offer, expected_ply=message.get("ply"))

    async def on_draw_accept(self, message: dict[str, Any]) -> None:
        await self._act(message, services.game_draw_accept, expected_ply=message.get("ply"))

    async def on_draw_decline(self, message: dict[str, Any]) -> None:
        await self._act(message, services.game_draw_decline, expected_ply=message.get("ply"))

    async def on_draw_claim(self, message: dict[str, Any]) -> None:
        await self._act(message, services.game_draw_claim, expected_ply=message.get("ply"))

    async def on_boost(self, message: dict[str, Any]) -> None:
        await self._act(message, services.game_boost, expected_ply=message.get("ply"))

    async def on_abort(self, message: dict[str, Any]) -> None:
        await self._act(message, services.game_abort, expected_ply=message.get("ply"))

    async def on_takeback_offer(self, message: dict[str, Any]) -> None:
        await self._act(message, services.game_takeback_offer, expected_ply=message.get("ply"))

    async def on_takeback_accept(self, message: dict[str, Any]) -> None:
        await self._act(message, services.game_takeback_accept, expected_ply=message.get("ply"))

    async def on_takeback_decline(self, message: dict[str, Any]) -> None:
        await self._act(message, services.game_takeback_decline, expected_ply=message.get("ply"))

    async def on_more_time(self, message: dict[str, Any]) -> None:
        await self._act(message, services.game_more_time, expected_ply=message.get("ply"))

    async def on_sync(self, message: dict[str, Any]) -> None:
        # One trip to the database threads: a clock run out is settled, then the state read.
        await self.send_json(await call(_flagged_state, self.game_id))

    async def send_error(self, code: str, message: str, request: Any = None, **extra: Any) -> None:
        """Every error carries the game's current ply and version (docs/protocol.md), but
        `unavailable`: the server cannot read them, and asking would only make the client wait
        (null, so the page asks for the state)."""
        state = None
        if code != "unavailable":
            state = await database_sync_to_async(state_read)(self.game_id)
        reply: dict[str, Any] = {"type": "error", "code": code, "message": message, **extra}
        if isinstance(request, dict) and "id" in request:
            reply["id"] = request["id"]
        reply["ply"] = state["ply"] if state else None
        reply["version"] = state["version"] if state else None
        await self.send_json(reply)

    async def game_state(self, event: dict[str, Any]) -> None:
        # Before the client hears of it (and can answer with its own move): this process's
        # memory of the game follows what was written, wherever (`games.services.memory`).
        memory.heard(self.game_id, event.get("version"), event.get("row"))
        await self.send(text_data=event["text"])

    async def game_draw_declined(self, event: dict[str, Any]) -> None:
        # Encoded once by the service (`state.push_declined_on_commit`): the same text for all.
        await self.send(text_data=event["text"])

    async def game_takeback_declined(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])

    async def game_settled(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "settled", "game": event["game"]})


class LobbyConsumer(LiveConsumer):
    """`/ws/lobby/`: a short "changed" push when challenges or pools change; pages re-fetch
    their list. For a signed-in player the open socket is also their presence for quick
    pairing (`games.services.pools`): their last lobby page closed, they leave the pool."""

    user_id: int | None = None

    async def connect(self) -> None:
        await self.join(services.LOBBY_GROUP)
        await self.accept()
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.user_id = user.pk
            ProcessConnections.add(self.channel_name)
            await call(self._opened)

    def _opened(self) -> None:
        presence.opened(
            key=self.channel_name,
            topic=services.POOL_TOPIC,
            user_id=self.user_id,
            at_ms=presence.now_ms(),
        )

    def _closed(self) -> None:
        presence.closed(key=self.channel_name)
        services.pool_left_page(player_id=self.user_id)

    async def closed(self) -> None:
        if self.user_id is not None:
            ProcessConnections.discard(self.channel_name)
            await call(self._closed)

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "changed"})
