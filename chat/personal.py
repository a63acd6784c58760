"""The chat's part of what is personal to a player (accounts.personal, RULES 9.6): the lines
they wrote go with their data download, and with their account."""

from __future__ import annotations

from chat.models import Message


def messages_section(user) -> list[dict]:
    return [
        {"room": room, "text": text, "at": at.isoformat(), "removed": removed}
        for room, text, at, removed in Message.objects.filter(author=user)
        .order_by("id")
        .values_list("room", "text", "created_at", "removed")
    ]


def erase_messages(user) -> None:
    Message.objects.filter(author=user).delete()
