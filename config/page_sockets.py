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

from arena import running as arena_running
from arena.consumers import ArenaConsumer
from chat import rooms
from chat import services as chat_services
from chat.consumers import ChatPart, answer, chat_opening
from games.consumers import GameConsumer
from games.consumers import state_read as game_state_read
from games.services import group_name as game_group_name
from live.consumers import SITE_KEY_SUFFIX, SiteNews
from live.presence import ProcessConnections
from live.sockets import LiveConsumer, call, database_sync_to_async
from tournaments import broadcast as tournament_broadcast
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
            await self.site_open()
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

    async def parts_closed(self, own) -> None:
        """The page's own clean-up (`own`, its kind's `closed`), then the site's, which runs even
        when the first failed (a locked game, PostgreSQL away): its row must not be vouched for
        by this process after the socket is gone."""
        try:
            await own()
        finally:
            await self.site_closed()


class GamePageConsumer(PageParts, GameConsumer):
    """`/ws/page/game/<id>/`: the game (as `/ws/game/<id>/`), its chat, the site's news. Its
    opening does what the game socket's does (`GameConsumer.connect`) and the parts' in one
    trip to the database threads: a change to one is a change to the other."""

    accepts = GameConsumer.accepts | ChatPart.chat_accepts | {AGAIN}
    # `again` is answered from the present: one waiting is enough (live.budget).
    coalesced = GameConsumer.coalesced | {AGAIN}

    async def connect(self) -> None:
        """The groups joined first (whatever changes after the read comes as a push); accepted;
        then one trip: the chat's rooms (which say whether the viewer plays here), a player's
        presence at the game or a spectator's read of it, the site's row and news. A player's
        first state is the one their presence pushes to the game's group, this socket
        included (a round start: the game read and its state worked out once, not twice); a
        spectator's is read and sent; then the chat's opening and the site's news."""
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        user = self.scope.get("user")
        self.user_id = user.pk if user is not None and user.is_authenticated else None
        await self.join(game_group_name(self.game_id))
        await self.parts_join(rooms.GAME, self.game_id)
        # Accepted before the trip: a push that cannot be published (Redis away) is sent to
        # this socket directly from within it (`_undelivered`).
        await self.accept()
        opened = await call(self._opening, undelivered=self._undelivered, lane="connect")
        if opened is None:
            await self.refuse(4404)  # no such game
            return
        state, opening, news = opened
        if self.site_user_id is not None:
            self.site_written()
        if self.is_player:
            ProcessConnections.add(self.channel_name)
        else:
            await self.send_json(state)
        await self.chat_send(await self.chat_rooms(opening))
        if self.site_user_id is not None:
            await self.site_news(news)

    def _opening(self) -> tuple[dict | None, dict, list[dict[str, Any]]] | None:
        """In a database thread: the chat's opening, the game's state (None for a player: their
        presence pushes it), the site's news (read once they sit: this game is not news)."""
        opening = chat_opening(rooms.GAME, self.game_id, self.viewer)
        if opening is None:
            return None
        # RULES 9.1 (chat.rooms): the players' room is the two players' alone.
        self.is_player = any(room["part"] == rooms.PLAYERS for room in opening["rooms"])
        state = None
        if self.is_player:
            self._presence(True)
        else:
            state = game_state_read(self.game_id)
            if state is None:  # gone since the rooms were read
                return None
        news = self.site_opened() if self.site_user_id is not None else []
        return state, opening, news

    async def closed(self) -> None:
        await self.parts_closed(lambda: GameConsumer.closed(self))


class EventPageParts(PageParts):
    """An event page's socket (`TournamentConsumer`, `ArenaConsumer`) with its parts: the
    event's group joined first, as its own socket joins it; the chat's rooms read (an unknown
    event refused); then the event's own opening (accept, an arena player's presence), the
    chat's opening and the site's news."""

    place: str  # the chat's place: the event kind's code (chat.rooms)
    # `again` is answered from the present: one waiting is enough (live.budget).
    coalesced = LiveConsumer.coalesced | {AGAIN}

    @staticmethod
    def event_group(pk: int) -> str:
        raise NotImplementedError

    async def connect(self) -> None:
        pk = int(self.scope["url_route"]["kwargs"]["pk"])
        await self.join(self.event_group(pk))  # joined once: the kind's `connect` names it too
        await self.parts_join(self.place, pk)
        opening = await database_sync_to_async(chat_opening, "connect")(self.place, pk, self.viewer)
        if opening is None:  # no such event
            await self.refuse(4404)
            return
        opening = await self.chat_rooms(opening)
        await super().connect()  # the kind's own: accept, an arena player's presence
        await self.chat_send(opening)
        if self.site_user_id is not None:
            await self.site_open(lane="connect")

    async def closed(self) -> None:
        await self.parts_closed(super().closed)


class TournamentPageConsumer(EventPageParts, TournamentConsumer):
    """`/ws/page/tournament/<id>/`: the tournament (as `/ws/tournaments/<id>/`), its chat, the
    site's news."""

    place = "tournament"
    accepts = TournamentConsumer.accepts | ChatPart.chat_accepts | {AGAIN}
    event_group = staticmethod(tournament_broadcast.group_name)


class ArenaPageConsumer(EventPageParts, ArenaConsumer):
    """`/ws/page/arena/<id>/`: the arena (as `/ws/arenas/<id>/`, an arena player's presence on
    its page included), its chat, the site's news."""

    place = "arena"
    accepts = ArenaConsumer.accepts | ChatPart.chat_accepts | {AGAIN}
    event_group = staticmethod(arena_running.group_name)
