"""The tournament page socket: it only says "changed" (STYLE 5, 7)."""

from __future__ import annotations

from live.sockets import LiveConsumer
from tournaments.broadcast import group_name


class TournamentConsumer(LiveConsumer):
    async def connect(self) -> None:
        await self.join(group_name(int(self.scope["url_route"]["kwargs"]["pk"])))
        await self.accept()

    async def tournament_changed(self, event: dict) -> None:
        await self.send_json({"type": "changed", "round": event.get("round", 0)})
