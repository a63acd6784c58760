"""`/ws/me/`: the signed-in visitor's site-wide socket, on the group `user.<id>`.

Says only what changed for them (`{"type": "changed", "what": "challenges"}`); the page
re-fetches the fragment (STYLE 7). Guests are refused with close code 4401. Clients have
nothing to say here but `ping`.
"""

from __future__ import annotations

from typing import Any

from live.pushes import user_group
from live.sockets import LiveConsumer


class UserConsumer(LiveConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.refuse(4401)
            return
        await self.join(user_group(user.pk))
        await self.accept()

    async def user_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({**event, "type": "changed"})
