"""The match page's socket: it only says "changed" (STYLE 5, 7)."""

from __future__ import annotations

from live.sockets import LiveConsumer
from teams.broadcast import group_name, league_group_name


class TeamMatchConsumer(LiveConsumer):
    async def connect(self) -> None:
        await self.join(group_name(int(self.scope["url_route"]["kwargs"]["pk"])))
        await self.accept()

    async def teams_changed(self, event: dict) -> None:
        await self.send_json({"type": "changed", "version": event.get("version", 0)})


class LeagueConsumer(LiveConsumer):
    """The league page's socket (RULES 16.8): "changed" when a match of it or the league
    itself changes."""

    async def connect(self) -> None:
        await self.join(league_group_name(int(self.scope["url_route"]["kwargs"]["pk"])))
        await self.accept()

    async def teams_changed(self, event: dict) -> None:
        await self.send_json({"type": "changed", "version": event.get("version", 0)})
