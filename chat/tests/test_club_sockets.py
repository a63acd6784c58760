"""A club's room over real sockets (RULES 12.5; docs/protocol.md, "Chat socket"): when a
membership ends (left, removed by an officer, the club dissolved) the former member's open
socket on the room is told `ended` and closed with 4404 after the commit, no line of the room
reaches it any more, and no line of theirs is stored. WebsocketCommunicator on the real Redis
channel layer, the clubs' real services."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.db import connection

from accounts.tests.factories import UserFactory
from chat import rooms
from chat import services as chat
from chat.models import Message
from chat.routing import websocket_urlpatterns
from clubs import services as clubs
from clubs.models import Membership
from clubs.tests.factories import club_with
from tests.concurrency import Raised, run_at_once

application = URLRouter(websocket_urlpatterns)
sockets = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def connect(path: str, user) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path)
    communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert connected
    opening = await communicator.receive_json_from(timeout=5)
    assert opening["type"] == "chat"
    return communicator


async def until_closed(communicator, timeout: float = 5.0) -> tuple[list[dict], int | None]:
    """What the server sent up to its close, and the close's code."""
    import json

    sent: list[dict] = []
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        output = await communicator.receive_output(timeout=max(left, 0.01))
        if output["type"] == "websocket.close":
            return sent, output.get("code")
        sent.append(json.loads(output["text"]))


async def next_of(communicator, kind: str, timeout: float = 5.0) -> dict:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        message = await communicator.receive_json_from(timeout=max(left, 0.01))
        if message["type"] == kind:
            return message


def _said(user) -> bool:
    return Message.objects.filter(author=user).exists()


@pytest.mark.parametrize("how", ["removed", "left"])
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_former_members_socket_closes_and_their_next_line_is_not_stored(how):
    officer, member, other = await database_sync_to_async(UserFactory.create_batch)(3)
    club = await database_sync_to_async(club_with)(officers=[officer], members=[member, other])
    path = f"/ws/chat/club/{club.pk}/"
    leaving, staying = await connect(path, member), await connect(path, other)

    if how == "removed":
        await database_sync_to_async(clubs.member_remove)(
            club_id=club.pk, by=officer, user_id=member.pk
        )
    else:
        await database_sync_to_async(clubs.member_leave)(club_id=club.pk, user=member)
    # The line typed just after: it reaches the server before or after the push; either way
    # it is refused, and the socket is closed as a page that may not come back.
    await leaving.send_json_to({"type": "say", "part": "event", "text": "ci sono ancora", "id": 1})
    sent, code = await until_closed(leaving)
    assert code == 4404
    assert {"type": "ended", "code": "not_member", "message": "you are no longer a member"} in sent
    assert not [m for m in sent if m["type"] in ("said", "line")]
    assert [m["code"] for m in sent if m["type"] == "error"] in ([], ["no_room"])
    assert not await database_sync_to_async(_said)(member)

    # The room goes on for its members; a new socket of the former member is refused.
    await staying.send_json_to({"type": "say", "part": "event", "text": "ciao", "id": 2})
    assert (await next_of(staying, "line"))["text"] == "ciao"
    again = WebsocketCommunicator(application, path)
    again.scope["user"] = member
    await again.connect()
    assert await again.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}
    await staying.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_dissolving_a_club_closes_its_members_sockets_and_a_staff_reader_stays():
    president, member = await database_sync_to_async(UserFactory.create_batch)(2)
    staff = await database_sync_to_async(UserFactory)(is_staff=True)
    club = await database_sync_to_async(club_with)(
        president=president, officers=[staff], members=[member]
    )
    path = f"/ws/chat/club/{club.pk}/"
    theirs = [await connect(path, president), await connect(path, member)]
    reader = await connect(path, staff)

    await database_sync_to_async(clubs.club_dissolve)(club_id=club.pk, by=president)
    for socket in theirs:
        sent, code = await until_closed(socket)
        assert code == 4404 and sent[-1]["type"] == "ended"
    # A member of the staff reads every club's room: told their rooms anew, no longer writable.
    opening = await next_of(reader, "chat")
    assert [room["writable"] for room in opening["rooms"]] == [False]
    await reader.send_json_to({"type": "ping", "id": 3})
    assert await next_of(reader, "pong") == {"type": "pong", "id": 3}
    await reader.disconnect()


# --- a line and a removal at once ---------------------------------------------------------------


@pytest.mark.parametrize("trial", range(4))
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
def test_a_line_and_a_removal_at_once_store_no_line_after_the_membership_ended(trial):
    """The membership is read again under the writer's row, which the removal locks: a line
    that passed the first check while the removal committed is refused (fails without the
    re-check in `chat.services.say`, in the trials where the line waits for the row)."""
    from django.core.cache import cache

    cache.clear()  # RULES 9.2's counters
    officer, member = UserFactory(), UserFactory()
    club = club_with(officers=[officer], members=[member])
    results = run_at_once(
        lambda: chat.say(
            kind="club", pk=club.pk, part="event", viewer=rooms.viewer_of(member), text="ciao"
        ),
        lambda: clubs.member_remove(club_id=club.pk, by=officer, user_id=member.pk),
        errors=True,
    )
    assert not isinstance(results[1], Raised), results[1]
    left_at = Membership.objects.get(club=club, user=member).left_at
    for line in Message.objects.filter(author=member):
        assert line.created_at < left_at
    if isinstance(results[0], Raised):
        assert results[0].error.code == "no_room"
