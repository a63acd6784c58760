"""What the chat shows (RULES 9.3, 9.5): a room's latest lines without the viewer's muted
players, one line as the pages show it, whom a player mutes."""

from __future__ import annotations

from chat.models import Message, Mute

# RULES 9.3: a page shows a room's latest lines, this many.
HISTORY = 100


def line(message: Message, part: str) -> dict:
    """One line as the socket sends it (docs/protocol.md, the chat socket): the page writes its
    text as text, never as HTML. Its number is `line`, as in `said`, `report` and `removed`:
    `id` is the client's own request id, which replies repeat."""
    return {
        "line": message.pk,
        "part": part,
        "author": {"id": message.author_id, "name": message.author.username},
        "text": message.text,
        "at": message.created_at.isoformat(),
    }


def history(room_key: str, part: str, muted: frozenset[int] = frozenset()) -> list[dict]:
    latest = (
        Message.objects.filter(room=room_key, removed=False)
        .exclude(author_id__in=muted)
        .select_related("author")
        .order_by("-id")[:HISTORY]
    )
    return [line(message, part) for message in reversed(latest)]


def muted_ids(user_id: int | None) -> list[int]:
    if user_id is None:
        return []
    return sorted(Mute.objects.filter(user_id=user_id).values_list("muted_id", flat=True))


def muted_players(user_id: int | None) -> list[dict]:
    """Whom the player mutes, with names, for the list they unmute from."""
    if user_id is None:
        return []
    return [
        {"id": pk, "name": name}
        for pk, name in Mute.objects.filter(user_id=user_id)
        .order_by("muted__username")
        .values_list("muted_id", "muted__username")
    ]
