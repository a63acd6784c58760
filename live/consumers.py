"""`/ws/me/`: the signed-in visitor's site-wide socket, on the group `user.<id>`.

Says only what changed for them (`{"type": "changed", "what": "challenges"}`); the page
re-fetches the fragment (STYLE 7). Guests are refused with close code 4401. Clients have
nothing to say here but `ping`. Every page of a signed-in visitor opens it, so its rows on the
presence topic `SITE_TOPIC` are who is on the site now (the players list shows it, issue 16).
"""

from __future__ import annotations

from typing import Any

from live import presence
from live.presence import ProcessConnections
from live.pushes import user_group
from live.sockets import LiveConsumer, call

SITE_TOPIC = "site"


class UserConsumer(LiveConsumer):
    user_id: int | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.refuse(4401)
            return
        await self.join(user_group(user.pk))
        await self.accept()
        self.user_id = user.pk
        ProcessConnections.add(self.channel_name)
        await call(
            presence.opened,
            key=self.channel_name,
            topic=SITE_TOPIC,
            user_id=user.pk,
            at_ms=presence.now_ms(),
        )

    async def closed(self) -> None:
        if self.user_id is not None:
            ProcessConnections.discard(self.channel_name)
            await call(
                presence.left,
                key=self.channel_name,
                topic=SITE_TOPIC,
                user_id=self.user_id,
                at_ms=presence.now_ms(),
            )

    async def user_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({**event, "type": "changed"})
