"""`/ws/chat/<place>/<id>/`: a page's chat (docs/protocol.md, "Chat socket"; RULES §9).

An adapter (STYLE 5): it asks `chat.rooms` which rooms its viewer reads, joins their groups,
sends their latest lines, and hands every client message to one service of `chat.services`,
turning a `ChatError` into an `error` reply (the socket stays up). The one thing it keeps itself
is whom its viewer mutes, so that a pushed line of a muted player never reaches the page; a
signed-in viewer's sockets share a group (`services.muting_group`) that tells each of them
when the list changes, in whichever tab.
"""

from __future__ import annotations

from typing import Any

from chat import rooms, selectors, services
from live.sockets import LiveConsumer, call, database_sync_to_async


def chat_opening(kind: str, pk: int, viewer: rooms.Viewer) -> dict[str, Any] | None:
    """What the page is sent as the socket opens: its rooms with their latest lines."""
    found = rooms.place_rooms(kind, pk, viewer)
    if found is None:
        return None
    muted = selectors.muted_players(viewer.user_id)
    muted_ids = frozenset(player["id"] for player in muted)
    until = services.silenced_until(viewer.user_id) if viewer.signed_in else None
    return {
        "type": "chat",
        "signed_in": viewer.signed_in,
        "user": viewer.user_id,
        "silenced_until": until.isoformat() if until else None,
        "muted": muted,
        "rooms": [
            {
                "part": room.part,
                "writable": room.writable,
                "closed": room.closed,
                "closable": room.closable,
                "lines": [] if room.closed else selectors.history(room.key, room.part, muted_ids),
            }
            for room in found
        ],
        "keys": {room.key: room.part for room in found},
    }


# A former member's socket on the club's room (docs/protocol.md): as for an unknown place, the
# page does not come back (it would be refused).
CLOSE_NOT_MEMBER = 4404


def answer(message: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
    """A reply carries the request's `id`, when it had one (docs/protocol.md)."""
    if "id" in message:
        reply["id"] = message["id"]
    return reply


class ChatPart:
    """A page's chat on a socket (`LiveConsumer`'s methods): `ChatConsumer`, the chat's own
    socket, and the game page's one socket (`GamePageConsumer`), which sends every chat message
    with `"on": "chat"` (`chat_tag`) so that its page tells them from the game's."""

    chat_accepts = frozenset({"say", "mute", "unmute", "report", "close", "open"})
    chat_tag: dict[str, str] = {}
    kind: str
    pk: int
    viewer: rooms.Viewer
    muted: frozenset[int] = frozenset()
    parts: dict[str, str]  # room key -> part, the rooms this socket reads
    ended = False  # its viewer reads none of the place's rooms any more (RULES 12.5)

    async def chat_send(self, content: dict[str, Any]) -> None:
        await self.send_json({**content, **self.chat_tag})

    def chat_place(self, kind: str, pk: int) -> None:
        self.kind, self.pk = kind, pk
        self.viewer = rooms.viewer_of(self.scope.get("user"))
        self.parts = {}

    async def chat_rooms(self, opening: dict[str, Any]) -> dict[str, Any]:
        """The rooms of an opening (`chat_opening`) read: their groups joined, those of rooms no
        longer read left (a game's end gives its players the spectators' room, RULES 9.1);
        the opening to send returned."""
        keys = opening.pop("keys")
        for key in set(self.parts) - set(keys):
            await self.leave(services.group_name(key))
        for key in keys:
            await self.join(services.group_name(key))
        self.parts = keys
        self.muted = frozenset(player["id"] for player in opening["muted"])
        return opening

    async def _chat_act(self, message: dict[str, Any], service, **kwargs: Any) -> Any:
        try:
            return await call(service, **kwargs)
        except services.ChatError as error:
            reply: dict[str, Any] = {"type": "error", "code": error.code, "message": error.message}
            reply.update(error.data)
            await self.chat_send(answer(message, reply))
            return None

    def _place(self) -> dict[str, Any]:
        return {"kind": self.kind, "pk": self.pk, "viewer": self.viewer}

    async def on_say(self, message: dict[str, Any]) -> None:
        line = await self._chat_act(
            message,
            services.say,
            part=message.get("part"),
            text=message.get("text"),
            **self._place(),
        )
        if line is not None:
            await self.chat_send(answer(message, {"type": "said", "line": line["line"]}))

    async def _muting(self, message: dict[str, Any], service) -> None:
        if not self.viewer.signed_in:
            reply = {"type": "error", "code": "sign_in", "message": "sign in first"}
            await self.chat_send(answer(message, reply))
            return
        muted = await self._chat_act(
            message, service, user_id=self.viewer.user_id, muted_id=message.get("player")
        )
        if muted is not None:
            players = await database_sync_to_async(selectors.muted_players)(self.viewer.user_id)
            self.muted = frozenset(player["id"] for player in players)
            await self.chat_send(answer(message, {"type": "muted", "players": players}))

    async def on_mute(self, message: dict[str, Any]) -> None:
        await self._muting(message, services.mute)

    async def on_unmute(self, message: dict[str, Any]) -> None:
        await self._muting(message, services.unmute)

    async def on_report(self, message: dict[str, Any]) -> None:
        reported = await self._chat_act(
            message, services.report, line_id=message.get("line"), **self._place()
        )
        if reported is not None:
            await self.chat_send(answer(message, {"type": "reported", "line": message.get("line")}))

    async def on_close(self, message: dict[str, Any]) -> None:
        await self._chat_act(message, services.set_closed, closed=True, **self._place())

    async def on_open(self, message: dict[str, Any]) -> None:
        await self._chat_act(message, services.set_closed, closed=False, **self._place())

    # --- pushes to the room's group (live/messages.py) ----------------------------------------

    async def chat_line(self, event: dict[str, Any]) -> None:
        line = event["line"]
        if self.ended or line["author"]["id"] in self.muted:  # RULES 9.5
            return
        await self.chat_send({"type": "line", **line})

    async def chat_closed(self, event: dict[str, Any]) -> None:
        part = self.parts.get(event["room"])
        if part is None or self.ended:
            return
        reply: dict[str, Any] = {"type": "closed", "part": part, "closed": event["closed"]}
        if not event["closed"]:  # open again: its lines are shown as they were (RULES 9.4)
            reply["lines"] = await database_sync_to_async(selectors.history)(
                event["room"], part, self.muted
            )
        await self.chat_send(reply)

    async def chat_muted(self, event: dict[str, Any]) -> None:
        """Whom the viewer mutes now, changed on another page (RULES 9.5); the page that
        muted was answered already and has nothing new to hear."""
        muted = frozenset(player["id"] for player in event["players"])
        if muted == self.muted:
            return
        self.muted = muted
        await self.chat_send({"type": "muted", "players": event["players"]})

    async def chat_removed(self, event: dict[str, Any]) -> None:
        await self.chat_send({"type": "removed", "line": event["line"]})


class ChatConsumer(ChatPart, LiveConsumer):
    accepts = ChatPart.chat_accepts

    async def connect(self) -> None:
        route = self.scope["url_route"]["kwargs"]
        self.chat_place(route["place"], int(route["pk"]))
        # Joined before the rooms are read: a membership that ends after the read is pushed
        # here (RULES 12.5), one that ended before it finds no room.
        members = services.member_group(self.kind, self.pk, self.viewer.user_id)
        if members is not None:
            await self.join(members)
        opening = await database_sync_to_async(chat_opening, "connect")(
            self.kind, self.pk, self.viewer
        )
        if opening is None:
            await self.refuse(4404)
            return
        opening = await self.chat_rooms(opening)
        if self.viewer.signed_in:  # RULES 9.5: a mute made in another tab holds here too
            await self.join(services.muting_group(self.viewer.user_id))
        await self.accept()
        await self.send_json(opening)

    async def membership_ended(self, event: dict[str, Any]) -> None:
        """The viewer is no longer a member of the club (left, removed, the club dissolved;
        `live.pushes.membership_ended_on_commit`): its rooms are read again for them. None
        left: the page is told `ended` and the socket closes with 4404, so the room's lines no
        longer reach them and it does not come back. Still some (the staff read every club's
        room; a member again meanwhile): the rooms are sent anew, as at the opening."""
        opening = await database_sync_to_async(chat_opening)(self.kind, self.pk, self.viewer)
        if opening is None:
            self.ended = True
            await self.send_json(
                {"type": "ended", "code": "not_member", "message": "you are no longer a member"}
            )
            await self.close(code=CLOSE_NOT_MEMBER)
            return
        await self.send_json(await self.chat_rooms(opening))
