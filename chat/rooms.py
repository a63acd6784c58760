"""Which rooms a page has, and what its viewer may do in each (RULES 9.1, 9.4).

A page's chat is a *place*: a game (`game`, its id), an event (its kind's code,
`tournament` or `arena`, and its id) or a club (`club`, its id: its members' room, RULES
12.5). `place_rooms` reads the place once and says, for one
viewer, which rooms they read, in which they may write, and whether they may close an event's
room. The socket (`chat.consumers`) and the services ask it, so the rule is written once.
"""

from __future__ import annotations

from dataclasses import dataclass

from clubs import selectors as clubs
from clubs.models import OFFICERS
from events import kinds
from games.models import Game, Status

PLAYERS = "players"
SPECTATORS = "spectators"
EVENT = "event"
GAME = "game"  # the place of a game's rooms
CLUB = "club"  # the place of a club's members' room (RULES 12.5)


def game_room(game_id: int, part: str) -> str:
    return f"game:{game_id}:{part}"


def event_room(kind: str, event_id: int) -> str:
    return f"{kind}:{event_id}"


@dataclass(frozen=True)
class Room:
    key: str  # the rows' `room` (chat.models)
    part: str  # PLAYERS, SPECTATORS or EVENT: what the page calls it
    writable: bool  # the viewer may write here (silence and closing aside: services check)
    closed: bool = False  # an event room its organizer closed (RULES 9.4)
    closable: bool = False  # the viewer may close or open it (its organizer, the staff)


@dataclass(frozen=True)
class Viewer:
    user_id: int | None
    is_staff: bool = False

    @property
    def signed_in(self) -> bool:
        return self.user_id is not None


def viewer_of(user) -> Viewer:
    if user is None or not user.is_authenticated:
        return Viewer(None)
    return Viewer(user.pk, bool(user.is_staff))


def place_rooms(kind: str, pk: int, viewer: Viewer) -> list[Room] | None:
    """The rooms of the place for this viewer, in the order the page shows them; None when
    there is no such place."""
    if kind == GAME:
        return _game_rooms(pk, viewer)
    if kind == CLUB:
        return _club_rooms(pk, viewer)
    event_kind = kinds.by_code(kind)
    if event_kind is None:
        return None
    event = event_kind.model.objects.filter(pk=pk).values("opened_by_id").first()
    if event is None:
        return None
    from chat.models import ClosedRoom

    key = event_room(kind, pk)
    closable = viewer.signed_in and (viewer.is_staff or viewer.user_id == event["opened_by_id"])
    closed = ClosedRoom.objects.filter(room=key).exists()
    return [Room(key, EVENT, writable=viewer.signed_in, closed=closed, closable=closable)]


def _game_rooms(game_id: int, viewer: Viewer) -> list[Room] | None:
    game = (
        Game.objects.filter(pk=game_id)
        .values("white_id", "black_id", "rated", "event_type_id", "status")
        .first()
    )
    if game is None:
        return None
    spectators = game_room(game_id, SPECTATORS)
    if viewer.user_id not in (game["white_id"], game["black_id"]):
        return [Room(spectators, SPECTATORS, writable=viewer.signed_in)]
    rooms = [Room(game_room(game_id, PLAYERS), PLAYERS, writable=True)]
    # RULES 9.1: no word from the audience reaches the players of a rated or an event game
    # while it is played.
    shielded = game["status"] == Status.LIVE and (
        game["rated"] or game["event_type_id"] is not None
    )
    if not shielded:
        rooms.append(Room(spectators, SPECTATORS, writable=True))
    return rooms


def club_room(club_id: int) -> str:
    return f"club:{club_id}"


def _club_rooms(club_id: int, viewer: Viewer) -> list[Room] | None:
    """RULES 12.5: a club's room is its members' own: only they read it (the staff too, as
    they see any room's reported lines), a member an officer silenced reads and does not
    write, and its officers (and the staff) close and open it, as an event's organizer does."""
    membership = clubs.membership_of(club_id=club_id, user_id=viewer.user_id)
    if membership is None and not viewer.is_staff:
        return None
    from chat.models import ClosedRoom

    key = club_room(club_id)
    officer = membership is not None and membership.role in OFFICERS
    writable = membership is not None and not membership.chat_muted
    closed = ClosedRoom.objects.filter(room=key).exists()
    return [Room(key, EVENT, writable=writable, closed=closed, closable=officer or viewer.is_staff)]
