"""`/ws/game/<id>/`: players and spectators of one game (docs/protocol.md).

An adapter (STYLE 5): it authenticates, parses, calls one service and turns a domain error into
an `error` reply. It never writes a game itself and never broadcasts: the services send every
change to the group after commit. Any process may serve any game: the group lives in the Redis
channel layer.
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import DatabaseSyncToAsync
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from games import services
from games.models import Game

_MALFORMED = object()


def database_sync_to_async(func):
    """Database work off the event loop, in a pool of threads: the services lock the game row,
    so games need not queue behind one another in a single thread (channels' default)."""
    return DatabaseSyncToAsync(func, thread_sensitive=False)


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


def _presence(game_id: int, user_id: int | None, connected: bool) -> None:
    services.game_presence(game_id=game_id, user_id=user_id, connected=connected)


def _act(kind: str, game_id: int, user_id: int | None, content: dict[str, Any]) -> None:
    service, needs_ply = ACTIONS[kind]
    kwargs: dict[str, Any] = {"game_id": game_id, "user_id": user_id}
    if needs_ply or "ply" in content:
        kwargs["expected_ply"] = content.get("ply")
    if kind == "move":
        kwargs["move"] = content.get("move")
    service(**kwargs)


class GameConsumer(AsyncJsonWebsocketConsumer):
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
            await database_sync_to_async(_presence)(self.game_id, self.user_id, True)
        await self.send_json(await database_sync_to_async(_state)(self.game_id))

    async def disconnect(self, code: int) -> None:
        if not hasattr(self, "group"):
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.is_player:
            await database_sync_to_async(_presence)(self.game_id, self.user_id, False)

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
            await database_sync_to_async(_check_clock)(self.game_id)
            await self.send_json(await database_sync_to_async(_state)(self.game_id))
            return
        if kind not in ACTIONS:
            await database_sync_to_async(_check_clock)(self.game_id)
            await self._error("malformed", "unknown or missing message type", content)
            return
        try:
            await database_sync_to_async(_act)(kind, self.game_id, self.user_id, content)
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
        await self.send_json(event["state"])


class LobbyConsumer(AsyncJsonWebsocketConsumer):
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
