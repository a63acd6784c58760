"""What a player or the staff does in the chat (RULES §9): every write is here, in one
transaction, and pushes to the room's sockets after commit (`live.pushes`). Errors are
`ChatError`s with a code the page translates (docs/protocol.md, the chat socket)."""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.services import account_lock_open
from accounts.throttle import Counter, ThrottleUnavailable, count_in_order
from chat import rooms, selectors
from chat.models import TEXT_MAX, ClosedRoom, Message, Mute, Report, Silence
from clubs.models import members_place
from live import locks, messages, pushes

# RULES 9.2: at most 5 lines in 10 s and 20 in a minute per player, over all rooms.
RATE = ((5, 10), (20, 60))
# RULES 9.6: how long the staff may silence an account for, in the admin.
SILENCES = {
    "1h": timedelta(hours=1),
    "1d": timedelta(days=1),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
}


class ChatError(Exception):
    def __init__(self, code: str, message: str, **data) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def group_name(room_key: str) -> str:
    """The channel layer's group of one room's sockets (names allow no colon)."""
    return "chat." + room_key.replace(":", ".")


def muting_group(user_id: int) -> str:
    """The group of one player's chat sockets, whatever their page: whom they mute (RULES 9.5)."""
    return f"chat.muting.{user_id}"


def member_group(kind: str, pk: int, user_id: int | None) -> str | None:
    """The group that tells one viewer's socket on a members-only place that they are members
    no more (a club's room, RULES 12.5; `clubs.services` pushes to it); None for a place
    whose readers do not depend on a membership, or a guest."""
    if kind != rooms.CLUB or user_id is None:
        return None
    return pushes.member_group(members_place(pk), user_id)


# RULES 9.2: the invisible characters a line loses (format characters: bidirectional overrides
# and isolates, zero-width spaces, tags...; lone surrogates), as names refuse them. The
# zero-width joiner stays: emoji sequences (a family, a profession) are made with it, and it
# neither reorders nor hides text.
_DROPPED = frozenset(("Cf", "Cs"))
ZERO_WIDTH_JOINER = "\u200d"


def _kept(char: str) -> str:
    category = unicodedata.category(char)
    if category == "Cc":
        return " "
    if category in _DROPPED and char != ZERO_WIDTH_JOINER:
        return ""
    return char


def clean_text(text: object) -> str:
    """RULES 9.2: control characters (line breaks among them) become spaces, format characters
    but the zero-width joiner go, spaces at the ends go; anything else is kept as typed (the
    page never reads it as HTML)."""
    if not isinstance(text, str):
        raise ChatError("empty", "write something first")
    spaced = "".join(_kept(ch) for ch in text).strip()
    if not spaced:
        raise ChatError("empty", "write something first")
    if len(spaced) > TEXT_MAX:
        raise ChatError("too_long", f"at most {TEXT_MAX} characters", max=TEXT_MAX)
    return spaced


def silenced_until(user_id: int, now: datetime | None = None) -> datetime | None:
    now = now or timezone.now()
    latest = (
        Silence.objects.filter(user_id=user_id, until__gt=now)
        .order_by("-until")
        .values_list("until", flat=True)
        .first()
    )
    return latest


def _writable_room(kind: str, pk: int, part: str, viewer: rooms.Viewer) -> rooms.Room:
    if not viewer.signed_in:
        raise ChatError("sign_in", "sign in to write")
    found = rooms.place_rooms(kind, pk, viewer)
    room = next((r for r in found or () if r.part == part), None)
    if room is None or not room.writable:
        raise ChatError("no_room", "you cannot write in this room")
    if room.closed:
        raise ChatError("closed", "the organizer has closed this chat")
    return room


def _count_line(user_id: int) -> None:
    """RULES 9.2's limits, counted in Redis for every process; Redis away: refused (a chat
    line can wait, a flood cannot be let through)."""
    counters = [
        Counter(cache.make_key(f"chat:{window}s:{user_id}"), limit, window)
        for limit, window in RATE
    ]
    try:
        wait, _counter = count_in_order(counters)
    except ThrottleUnavailable as error:
        raise ChatError("unavailable", "the chat cannot count lines now: try again") from error
    if wait:
        raise ChatError("too_fast", f"too many lines: wait {wait} s", wait=wait)


def say(*, kind: str, pk: int, part: str, viewer: rooms.Viewer, text: object) -> dict:
    """Write a line in one room of a place; every socket of the room gets it after commit.
    Returns the line as the pages show it."""
    cleaned = clean_text(text)
    room = _writable_room(kind, pk, part, viewer)
    until = silenced_until(viewer.user_id)
    if until is not None:
        raise ChatError("silenced", "the staff have silenced you", until=until.isoformat())
    _count_line(viewer.user_id)
    with locks.atomic():
        # The author's row, locked as deleting the account locks it: a line is stored only for
        # an open account, and a deletion at once erases it or comes first.
        if account_lock_open(user_id=viewer.user_id) is None:
            raise ChatError("account_closed", "this account is closed")
        if kind == rooms.CLUB:
            # RULES 12.5: a membership ends under the player's row, locked now: read again, a
            # member who left or was removed while this line waited is refused, nothing stored.
            room = _writable_room(kind, pk, part, viewer)
        message = Message.objects.create(room=room.key, author_id=viewer.user_id, text=cleaned)
        line = selectors.line(message, room.part)  # reads the author's name
        pushes.group_send_on_commit(group_name(room.key), messages.chat_line(room.key, line))
    return line


def mute(*, user_id: int, muted_id: object) -> list[int]:
    """RULES 9.5: `user_id` no longer sees `muted_id`'s lines; returns whom they mute now."""
    from accounts.models import User

    if not isinstance(muted_id, int) or isinstance(muted_id, bool):
        raise ChatError("no_player", "no such player")
    if muted_id == user_id:
        raise ChatError("no_player", "you cannot mute yourself")
    if not User.objects.filter(pk=muted_id).exists():
        raise ChatError("no_player", "no such player")
    with transaction.atomic():
        Mute.objects.get_or_create(user_id=user_id, muted_id=muted_id)
        _muted_on_commit(user_id)
    return selectors.muted_ids(user_id)


def unmute(*, user_id: int, muted_id: object) -> list[int]:
    if isinstance(muted_id, int) and not isinstance(muted_id, bool):
        with transaction.atomic():
            Mute.objects.filter(user_id=user_id, muted_id=muted_id).delete()
            _muted_on_commit(user_id)
    return selectors.muted_ids(user_id)


def _muted_on_commit(user_id: int) -> None:
    """RULES 9.5: a mute holds on every page: every chat socket of the player (any tab) is told
    whom they mute now, after commit, and drops their lines from then on."""
    transaction.on_commit(
        lambda: pushes.group_send(
            muting_group(user_id), messages.chat_muted(selectors.muted_players(user_id))
        )
    )


def report(*, kind: str, pk: int, viewer: rooms.Viewer, line_id: object) -> int:
    """RULES 9.6: a line the reporter can read goes to the staff, once per reporter; returns
    the line's id."""
    if not viewer.signed_in:
        raise ChatError("sign_in", "sign in to report")
    readable = [room.key for room in rooms.place_rooms(kind, pk, viewer) or ()]
    if not isinstance(line_id, int) or not (
        Message.objects.filter(pk=line_id, room__in=readable, removed=False).exists()
    ):
        raise ChatError("no_line", "no such line here")
    if Message.objects.filter(pk=line_id, author_id=viewer.user_id).exists():
        raise ChatError("no_line", "you cannot report your own line")
    try:
        with transaction.atomic():
            Report.objects.create(message_id=line_id, reporter_id=viewer.user_id)
    except IntegrityError:
        pass  # reported already: once is enough
    return line_id


def set_closed(*, kind: str, pk: int, viewer: rooms.Viewer, closed: bool) -> rooms.Room:
    """RULES 9.4: the organizer (or the staff) closes or opens an event's room; its sockets are
    told after commit (closed, they hide its lines; open again, they are sent them)."""
    room = next(
        (r for r in rooms.place_rooms(kind, pk, viewer) or () if r.part == rooms.EVENT), None
    )
    if room is None:
        raise ChatError("no_room", "no such chat")
    if not room.closable:
        raise ChatError("not_organizer", "only the organizer can close or open this chat")
    with transaction.atomic():
        if closed:
            ClosedRoom.objects.get_or_create(
                room=room.key, defaults={"closed_by_id": viewer.user_id}
            )
        else:
            ClosedRoom.objects.filter(room=room.key).delete()
        pushes.group_send_on_commit(group_name(room.key), messages.chat_closed(room.key, closed))
    return room


def silence(*, user_id: int, until: datetime, by_id: int | None, reason: str = "") -> Silence:
    return Silence.objects.create(user_id=user_id, until=until, by_id=by_id, reason=reason)


def remove_lines(message_ids) -> int:
    """RULES 9.6: the staff take lines away; every page showing one drops it."""
    with transaction.atomic():
        found = list(
            Message.objects.select_for_update()
            .filter(pk__in=list(message_ids), removed=False)
            .values_list("pk", "room")
        )
        Message.objects.filter(pk__in=[pk for pk, _room in found]).update(removed=True)
        for pk, room in found:
            pushes.group_send_on_commit(group_name(room), messages.chat_removed(room, pk))
    return len(found)
