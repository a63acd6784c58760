"""`/ws/game/<id>/`: players and spectators of one game (docs/protocol.md).

An adapter (STYLE 5): it authenticates, parses, calls one service and turns a domain error into
an `error` reply. It never writes a game itself and never decides what to broadcast: the
services push every change to the group after commit (sent from the event loop, `config.sockets`
`call`). Any process may serve any game: the group lives in the Redis
channel layer.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from config.sockets import SiteConsumerMixin, call, database_sync_to_async
from games import services
from games.models import Game

logger = logging.getLogger(__name__)
_MALFORMED = object()


# Client message type -> (service, whether "ply" is required).
ACTIONS = {
    "move": (services.game_move, True),
    "resign": (services.game_resign, False),
    "draw_offer": (services.game_draw_offer, False),
    "draw_accept": (services.game_draw_accept, False),
    "draw_decline": (services.game_draw_decline, False),
    "draw_claim": (services.game_draw_claim, True),
}


def _state(game_id: int) -> dict[str, Any] | None:
    game = Game.objects.select_related("white", "black").filter(pk=game_id).first()
    return None if game is None else services.game_state(game)


def _check_clock(game_id: int) -> None:
    services.game_flag(game_id=game_id)


def _presence(game_id: int, user_id: int | None, connected: bool, key: str) -> None:
    services.game_presence(game_id=game_id, user_id=user_id, connected=connected, key=key)


def _heartbeat(keys: list[str]) -> None:
    services.presence_heartbeat(keys=keys)


class Heartbeat:
    """This process's players' sockets, vouched for in one query every few seconds.

    If the process dies, the rows stop being refreshed and the tick sweeps them
    (`services.presence_sweep`): a player cannot stay "connected" through a dead server."""

    keys: set[str] = set()
    task: asyncio.Task | None = None

    @classmethod
    def add(cls, key: str) -> None:
        cls.keys.add(key)
        loop = asyncio.get_running_loop()
        if cls.task is None or cls.task.done() or cls.task.get_loop() is not loop:
            cls.task = loop.create_task(cls.run())

    @classmethod
    def discard(cls, key: str) -> None:
        cls.keys.discard(key)
        if not cls.keys and cls.task is not None:
            cls.task.cancel()
            cls.task = None

    @classmethod
    async def run(cls) -> None:
        while cls.keys:
            await asyncio.sleep(services.PRESENCE_HEARTBEAT_SECONDS)
            try:
                await database_sync_to_async(_heartbeat)(sorted(cls.keys))
            except Exception:  # the next beat tries again; the rows go stale only after three
                logger.exception("presence heartbeat failed")


def _act(kind: str, game_id: int, user_id: int | None, content: dict[str, Any]) -> None:
    service, needs_ply = ACTIONS[kind]
    kwargs: dict[str, Any] = {"game_id": game_id, "user_id": user_id}
    if needs_ply or "ply" in content:
        kwargs["expected_ply"] = content.get("ply")
    if kind == "move":
        kwargs["move"] = content.get("move")
    service(**kwargs)


class GameConsumer(SiteConsumerMixin, AsyncJsonWebsocketConsumer):
    game_id: int
    user_id: int | None
    is_player: bool = False

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        user = self.scope.get("user")
        self.user_id = user.pk if user is not None and user.is_authenticated else None
        state = await database_sync_to_async(_state)(self.game_id)
        if state is None:
            await self.close(code=4404)
            return
        self.group = services.group_name(self.game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.is_player = self.user_id in (state["white"]["id"], state["black"]["id"])
        if self.is_player:
            # Recorded presence is broadcast to everyone, this socket included.
            await call(_presence, self.game_id, self.user_id, True, self.channel_name)
            Heartbeat.add(self.channel_name)
        await self.send_json(await database_sync_to_async(_state)(self.game_id))

    async def disconnect(self, code: int) -> None:
        if not hasattr(self, "group"):
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.is_player:
            Heartbeat.discard(self.channel_name)
            await call(_presence, self.game_id, self.user_id, False, self.channel_name)

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        try:
            return json.loads(text_data)
        except (TypeError, ValueError):
            return _MALFORMED

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "ping":
            await self.send_json({"type": "pong", "id": content.get("id")})
            return
        if kind == "sync":
            await call(_check_clock, self.game_id)
            await self.send_json(await database_sync_to_async(_state)(self.game_id))
            return
        if kind not in ACTIONS:
            await call(_check_clock, self.game_id)
            await self._error("malformed", "unknown or missing message type", content)
            return
        try:
            await call(_act, kind, self.game_id, self.user_id, content)
        except services.GameError as error:
            await self._error(error.code, error.message, content)

    async def _error(self, code: str, message: str, content: Any) -> None:
        state = await database_sync_to_async(_state)(self.game_id)
        reply: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if isinstance(content, dict) and "id" in content:
            reply["id"] = content["id"]
        reply["ply"] = state["ply"] if state else None
        await self.send_json(reply)

    async def game_state(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])


class LobbyConsumer(SiteConsumerMixin, AsyncJsonWebsocketConsumer):
    """`/ws/lobby/`: a short "changed" push when challenges change; pages re-fetch their list."""

    async def connect(self) -> None:
        await self.channel_layer.group_add(services.LOBBY_GROUP, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(services.LOBBY_GROUP, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        return None

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "changed"})


class UserConsumer(SiteConsumerMixin, AsyncJsonWebsocketConsumer):
    """`/ws/me/`: the signed-in visitor's site-wide socket, on the group `user.<id>`.

    Says only what changed for them (`{"type": "changed", "what": "challenges"}`); the page
    re-fetches the fragment (STYLE 7). Guests are refused (4401)."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        self.group = services.user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        return None

    async def user_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "changed", "what": event["what"]})
