"""A page's one socket (docs/protocol.md, "Page sockets"): the page's own socket (the game's,
the tournament's, the arena's) with its chat and, for a signed-in viewer, the site's news on
the same connection. A round start sends every player from their event's page to their game's
at the same instant, and each socket is a handshake, a session and a user read and a trip to
the database threads of the server's (bench/round_start.py): each of those pages opened three.

The page socket is its own kind's consumer (its messages as they are) with two parts beside it:
the chat (`chat.consumers.ChatPart`, every message with `"on": "chat"`) and the site's news
(`live.consumers.SiteNews`, `"on": "me"`). The client's types of the kinds and of the chat
differ, so a client message goes where its `type` says; `again` asks a part for its opening
anew. The pages say which of their sockets this one carries (`<meta name="page-socket">`) and
the site's socket client (live/static/live/socket.js) shares it among their scripts. Here, at
the root, because it joins apps of several floors (pyproject.toml, the floors).
"""

from __future__ import annotations

from typing import Any

from arena.consumers import ArenaConsumer
from chat import rooms
from chat import services as chat_services
from chat.consumers import ChatPart, answer, chat_opening
from games.consumers import GameConsumer
from games.consumers import state_read as game_state_read
from games.services import group_name as game_group_name
from live.consumers import SITE_KEY_SUFFIX, SiteNews
from live.presence import ProcessConnections
from live.sockets import call, database_sync_to_async
from tournaments.consumers import TournamentConsumer

AGAIN = "again"


class PageParts(ChatPart, SiteNews):
    """The chat and the site's news beside a page's own socket (a `LiveConsumer`)."""

    chat_tag = {"on": "chat"}
    site_tag = {"on": "me"}

    async def parts_join(self, kind: str, pk: int) -> None:
        """The parts' groups joined, before anything is read (a change after the read comes as
        a push): the site's `user.<id>` and the viewer's mutes (RULES 9.5). The chat's rooms
        are joined once read (`chat_rooms`)."""
        self.chat_place(kind, pk)
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            await self.site_join(user.pk, self.channel_name + SITE_KEY_SUFFIX)
            await self.join(chat_services.muting_group(user.pk))

    async def on_again(self, message: dict[str, Any]) -> None:
        """A part of the page asks for its opening anew: the chat's rooms (a game over gives
        its players the spectators' room, RULES 9.1), or the site's news."""
        if message.get("on") == "chat":
            opening = await database_sync_to_async(chat_opening)(self.kind, self.pk, self.viewer)
            if opening is not None:
                await self.chat_send(await self.chat_rooms(opening))
        elif message.get("on") == "me" and self.site_user_id is not None:
            await self.site_news(await call(self.site_opened))
        else:
            await self.send_error("malformed", "again: on must be chat or me", message)

    async def send_error(self, code: str, message: str, request: Any = None, **extra: Any) -> None:
        """A chat message's error is the chat's (`on: chat`, nothing of the page's kind); any
        other is the kind's own."""
        if isinstance(request, dict) and request.get("type") in ChatPart.chat_accepts:
            reply = {"type": "error", "code": code, "message": message}
            await self.chat_send(answer(request, reply))
            return
        await super().send_error(code, message, request, **extra)

    async def parts_closed(self) -> None:
        await self.site_closed()


def _game_page_opening(game_id: int, viewer: rooms.Viewer) -> tuple[dict | None, dict | None]:
    """The game's state and its chat's opening, read in one trip to the database threads."""
    state = game_state_read(game_id)
    if state is None:
        return None, None
    return state, chat_opening(rooms.GAME, game_id, viewer)


class GamePageConsumer(PageParts, GameConsumer):
    """`/ws/page/game/<id>/`: the game (as `/ws/game/<id>/`), its chat, the site's news."""

    accepts = GameConsumer.accepts | ChatPart.chat_accepts | {AGAIN}

    async def connect(self) -> None:
        """The groups joined first; one read of the game and its rooms; the state, then the
        chat, sent; then in one more trip the presence rows (the game's for a player, the
        site's) and the site's news."""
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        user = self.scope.get("user")
        self.user_id = user.pk if user is not None and user.is_authenticated else None
        await self.join(game_group_name(self.game_id))
        await self.parts_join(rooms.GAME, self.game_id)
        state, opening = await database_sync_to_async(_game_page_opening, "connect")(
            self.game_id, self.viewer
        )
        if state is None or opening is None:
            await self.refuse(4404)
            return
        opening = await self.chat_rooms(opening)
        await self.accept()
        await self.send_json(state)
        await self.chat_send(opening)
        self.is_player = self.user_id in (state["white"]["id"], state["black"]["id"])
        if self.is_player:
            ProcessConnections.add(self.channel_name)
        if self.user_id is not None:
            news = await call(self._opened, undelivered=self._undelivered, lane="connect")
            await self.site_news(news)

    def _opened(self) -> list[dict[str, Any]]:
        """In a database thread: the player's presence at the game (pushed as a newer state),
        then the site's row and news (read once they sit: this game is not news to them)."""
        if self.is_player:
            self._presence(True)
        return self.site_opened()

    async def closed(self) -> None:
        await GameConsumer.closed(self)
        await self.parts_closed()


class EventPageParts(PageParts):
    """An event page's socket (`TournamentConsumer`, `ArenaConsumer`) with its parts: the
    event's own opening (its group, an arena player's presence) first, then the chat's rooms
    and the site's news."""

    place: str  # the chat's place: the event kind's code (chat.rooms)

    async def connect(self) -> None:
        pk = int(self.scope["url_route"]["kwargs"]["pk"])
        await self.parts_join(self.place, pk)
        opening = await database_sync_to_async(chat_opening, "connect")(self.place, pk, self.viewer)
        if opening is None:  # no such event
            await self.refuse(4404)
            return
        opening = await self.chat_rooms(opening)
        await super().connect()  # the kind's own: its group, accept, an arena's presence
        await self.chat_send(opening)
        if self.site_user_id is not None:
            await self.site_news(await call(self.site_opened, lane="connect"))

    async def closed(self) -> None:
        await super().closed()
        await self.parts_closed()


class TournamentPageConsumer(EventPageParts, TournamentConsumer):
    """`/ws/page/tournament/<id>/`: the tournament (as `/ws/tournaments/<id>/`), its chat, the
    site's news."""

    place = "tournament"
    accepts = TournamentConsumer.accepts | ChatPart.chat_accepts | {AGAIN}


class ArenaPageConsumer(EventPageParts, ArenaConsumer):
    """`/ws/page/arena/<id>/`: the arena (as `/ws/arenas/<id>/`, an arena player's presence on
    its page included), its chat, the site's news."""

    place = "arena"
    accepts = ArenaConsumer.accepts | ChatPart.chat_accepts | {AGAIN}
