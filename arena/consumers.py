"""`/ws/arenas/<id>/`: the arena page's socket (STYLE 5, 7). It says only "changed" (the page
re-fetches its fragments); for a signed-in player it is also their presence on the arena's
page (RULES 8: a player in the arena with its page open is waiting)."""

from __future__ import annotations

from typing import Any

from arena import running, selectors, services
from live import presence
from live.presence import ProcessConnections
from live.sockets import LiveConsumer, call


class ArenaConsumer(LiveConsumer):
    arena_id: int
    user_id: int | None = None

    async def connect(self) -> None:
        self.arena_id = int(self.scope["url_route"]["kwargs"]["pk"])
        await self.join(running.group_name(self.arena_id))
        await self.accept()
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.user_id = user.pk
            ProcessConnections.add(self.channel_name)
            await call(self._seen, lane="connect")

    def _seen(self) -> None:
        presence.opened(
            key=self.channel_name,
            topic=selectors.topic(self.arena_id),
            user_id=self.user_id,
            at_ms=presence.now_ms(),
        )
        services.entry_seen(arena_id=self.arena_id, user_id=self.user_id, key=self.channel_name)

    async def closed(self) -> None:
        if self.user_id is not None:
            ProcessConnections.discard(self.channel_name)
            await call(presence.closed, key=self.channel_name)

    async def arena_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "changed"})
