"""`/ws/me/`: the signed-in visitor's site-wide socket, on the group `user.<id>`.

Says only what changed for them (`{"type": "changed", "what": "challenges"}`); the page
re-fetches the fragment (STYLE 7). Guests are refused with close code 4401. Clients have
nothing to say here but `ping`. Every page of a signed-in visitor opens it, so its rows on the
presence topic `SITE_TOPIC` are who is on the site now (the players list shows it).

As it opens (a new page, a reconnect) the socket also tells the page what it may have missed
that cannot wait for a poll: the apps register, at their start, functions that say so
(`news_on_connect`; the live layer imports none of them, STYLE 6). The games app says which
game has just opened for the player and is waiting for them (docs/protocol.md, "Site socket":
a `mygame` push lost while the socket was down, or sent a second before the page opened, must
not cost the game).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from live import presence
from live.presence import ProcessConnections
from live.pushes import user_group
from live.sockets import LiveConsumer, call

SITE_TOPIC = "site"
log = logging.getLogger(__name__)

# Functions `(user_id) -> [{"what": …, **data}, …]`: what a site socket says as it opens, each
# sent as `{"type": "changed", "what": …, **data}` like a push (docs/protocol.md).
NewsOnConnect = Callable[[int], list[dict[str, Any]]]
_news_on_connect: list[NewsOnConnect] = []


def news_on_connect(func: NewsOnConnect) -> NewsOnConnect:
    """Register `func` (an app's `AppConfig.ready`); registering twice is once."""
    if func not in _news_on_connect:
        _news_on_connect.append(func)
    return func


def _opened(*, key: str, user_id: int, at_ms: int) -> list[dict[str, Any]]:
    """The socket's presence row, then what the page must be told (one trip to the pool)."""
    presence.opened(key=key, topic=SITE_TOPIC, user_id=user_id, at_ms=at_ms)
    news: list[dict[str, Any]] = []
    for func in _news_on_connect:
        try:
            news.extend(func(user_id))
        except Exception:  # the news is a help; the socket and its presence matter more
            log.exception("news on connect from %s failed", func)
    return news


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
        news = await call(
            _opened, key=self.channel_name, user_id=user.pk, at_ms=presence.now_ms(), lane="connect"
        )
        for item in news:
            await self.send_json({**item, "type": "changed"})

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
