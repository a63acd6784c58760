"""The tournament page socket: it only says "changed" (STYLE 5, 7)."""

from __future__ import annotations

import json

from channels.generic.websocket import AsyncWebsocketConsumer

from config.sockets import SiteConsumerMixin
from tournaments.broadcast import group_name


class TournamentConsumer(SiteConsumerMixin, AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = group_name(int(self.scope["url_route"]["kwargs"]["pk"]))
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
        """Clients have nothing to say here; ignored."""

    async def tournament_changed(self, event: dict) -> None:
        await self.send(text_data=json.dumps({"type": "changed", "round": event.get("round", 0)}))
