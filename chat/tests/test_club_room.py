"""A club's room (RULES 12.5): its members read and write it, nobody else opens it, an
officer closes it and silences a member, who then reads and does not write."""

from __future__ import annotations

import pytest

from accounts.tests.factories import UserFactory
from chat import rooms, services
from chat.services import ChatError
from clubs import services as clubs
from clubs.tests.factories import club_with

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_chat_counters")]


@pytest.fixture
def fresh_chat_counters():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def test_only_members_read_and_write_the_clubs_room():
    officer, member, stranger = UserFactory(), UserFactory(), UserFactory()
    club = club_with(officers=[officer], members=[member])
    (room,) = rooms.place_rooms("club", club.pk, rooms.viewer_of(member))
    assert room.writable and not room.closable
    assert rooms.place_rooms("club", club.pk, rooms.viewer_of(stranger)) is None
    assert rooms.place_rooms("club", club.pk, rooms.viewer_of(None)) is None
    (officer_room,) = rooms.place_rooms("club", club.pk, rooms.viewer_of(officer))
    assert officer_room.closable
    line = services.say(
        kind="club", pk=club.pk, part="event", viewer=rooms.viewer_of(member), text="Ciao soci"
    )
    assert line["text"] == "Ciao soci"
    with pytest.raises(ChatError):
        services.say(
            kind="club", pk=club.pk, part="event", viewer=rooms.viewer_of(stranger), text="Ehi"
        )


def test_a_member_an_officer_silenced_reads_and_does_not_write():
    officer, member = UserFactory(), UserFactory()
    club = club_with(officers=[officer], members=[member])
    clubs.chat_mute_set(club_id=club.pk, by=officer, user_id=member.pk, muted=True)
    (room,) = rooms.place_rooms("club", club.pk, rooms.viewer_of(member))
    assert not room.writable
    with pytest.raises(ChatError):
        services.say(
            kind="club", pk=club.pk, part="event", viewer=rooms.viewer_of(member), text="Ehi"
        )
    services.set_closed(kind="club", pk=club.pk, viewer=rooms.viewer_of(officer), closed=True)
    (closed,) = rooms.place_rooms("club", club.pk, rooms.viewer_of(officer))
    assert closed.closed
