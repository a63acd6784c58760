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


# The key of the site's presence row of a socket that also records another (the game page's
# one socket records the game's under its channel name): a row's key is unique.
SITE_KEY_SUFFIX = "#site"


class SiteNews:
    """The site's news of a signed-in visitor on a socket (`LiveConsumer`'s methods): their
    `user.<id>` group's pushes, their presence on `SITE_TOPIC`, and what they missed told as the
    socket opens. `UserConsumer` is this alone; a page's one socket (config/page_sockets.py)
    carries it beside its own, every message with `"on": "me"` (`site_tag`)."""

    site_tag: dict[str, str] = {}
    site_user_id: int | None = None
    site_key: str = ""
    site_recorded = False  # its presence row written (and refreshed by this process)

    async def site_join(self, user_id: int, key: str) -> None:
        """The group joined (before anything is read: a push from now on reaches the socket)."""
        await self.join(user_group(user_id))
        self.site_user_id, self.site_key = user_id, key

    def site_opened(self) -> list[dict[str, Any]]:
        """In a database thread: the presence row written, the news read."""
        return _opened(key=self.site_key, user_id=self.site_user_id, at_ms=presence.now_ms())

    def site_written(self) -> None:
        """Right after `site_opened` returned (before anything else is awaited, so a socket
        that fails next still leaves its row): the row vouched for by this process."""
        if not self.site_recorded:
            self.site_recorded = True
            ProcessConnections.add(self.site_key)

    async def site_open(self, lane: str = "db") -> None:
        """Its row written and its news read in one trip of its own, then the news sent."""
        news = await call(self.site_opened, lane=lane)
        self.site_written()
        await self.site_news(news)

    async def site_news(self, news: list[dict[str, Any]]) -> None:
        for item in news:
            await self.send_json({**item, "type": "changed", **self.site_tag})

    async def site_closed(self) -> None:
        """The row left lingering one stale window (`presence.left`); nothing when it was never
        written (a socket refused, or whose opening failed before it): `left` would take away the
        lingering row of the visitor's previous page."""
        if self.site_recorded:
            self.site_recorded = False
            ProcessConnections.discard(self.site_key)
            await call(
                presence.left,
                key=self.site_key,
                topic=SITE_TOPIC,
                user_id=self.site_user_id,
                at_ms=presence.now_ms(),
            )

    async def user_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({**event, "type": "changed", **self.site_tag})


class UserConsumer(SiteNews, LiveConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.refuse(4401)
            return
        await self.site_join(user.pk, self.channel_name)
        await self.accept()
        await self.site_open(lane="connect")

    async def closed(self) -> None:
        await self.site_closed()
