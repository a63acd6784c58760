"""Every push the server sends through the channel layer, one constructor per kind
(docs/protocol.md says what each tells a page). Services build their pushes here and hand them
to `live.pushes`; a kind not declared here cannot be sent, and `tests/test_protocol_kinds.py`
checks the declared kinds against docs/protocol.md.

Two families:
- the site socket's news (`/ws/me/`, the group `user.<id>`): `{"type": "changed", "what": …}`
  with a little data, one `What` per kind of news; the page re-fetches a fragment or goes to a
  game;
- a page's own group (a game, the lobby, a tournament, an arena): `"type"` names the handler
  of the page's consumer (`game.state` → `game_state`), which sends its clients what the
  protocol says.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

Message = dict[str, Any]


class What(StrEnum):
    """What changed for the player, on their site socket; each kind of event adds its own
    news (`register_what`: `mytournament`, `myarena`), so this layer names none."""

    CHALLENGES = "challenges"  # a challenge to or from them came, went or was answered
    MYGAME = "mygame"  # a game of theirs opened: `game` is its id; the page goes there
    # An event of theirs needs them on its page now (an arena that starts: only a page open
    # on it pairs, RULES 8): `url` is the page's; the page goes there, as for a game.
    EVENT_CALL = "eventcall"
    POOL = "pool"  # their wait in a quick-pairing pool started or ended
    REMINDER = "reminder"  # an event they joined starts soon (the reminder notices re-fetch)


# The data each kind carries, and its type: nothing more is sent; and what must be there.
_DATA: dict[str, dict[str, type]] = {
    What.CHALLENGES: {},
    What.MYGAME: {"game": int},
    What.EVENT_CALL: {"url": str},
    What.POOL: {},
    What.REMINDER: {},
}
_REQUIRED: dict[str, tuple[str, ...]] = {What.MYGAME: ("game",), What.EVENT_CALL: ("url",)}


def register_what(name: str, data: dict[str, type] | None = None) -> None:
    """A kind of event's own news on the site socket, declared by its app as it starts
    (`AppConfig.ready`): its pages' fragments re-fetch on `<name>-changed`."""
    if not re.fullmatch(r"[a-z]+", name):
        raise ValueError(f"site news are named in lowercase letters: {name!r}")
    _DATA.setdefault(name, dict(data or {}))


def whats() -> list[str]:
    """Every kind of site news, the registered ones included."""
    return sorted(_DATA)


def user_changed(what: str, **data: Any) -> Message:
    """`{"type": "user.changed", "what": …}` for the site sockets of a player; a kind's required
    data must be there with its type (`mygame` needs its `game`)."""
    what = str(what)
    if what not in _DATA:
        raise TypeError(f"no site news {what!r} (live.messages.register_what)")
    allowed = _DATA[what]
    unknown = set(data) - set(allowed)
    if unknown:
        raise TypeError(f"{what}: no such data {sorted(unknown)}")
    for key, kind in allowed.items():
        if key in _REQUIRED.get(what, ()) and key not in data:
            raise TypeError(f"{what}: `{key}` is required")
        if key in data and not isinstance(data[key], kind):
            raise TypeError(f"{what}: `{key}` must be {kind.__name__}")
    return {"type": "user.changed", "what": what, **data}


def lobby_changed() -> Message:
    """The lobby's lists (open challenges, games being played) re-fetch."""
    return {"type": "lobby.changed"}


def game_state(text: str, version: int) -> Message:
    """A game's new state or move delta, encoded once (`text`) for every socket of the game."""
    return {"type": "game.state", "text": text, "version": version}


# What a player may decline at a game: the opponent's draw offer, their takeback request.
DECLINABLE = ("draw_declined", "takeback_declined")


def game_declined(kind: str, text: str) -> Message:
    """`draw_declined` or `takeback_declined`, encoded once (`text`) for every socket."""
    if kind not in DECLINABLE:
        raise TypeError(f"nothing is declined as {kind!r}")
    return {"type": f"game.{kind}", "text": text}


def game_settled(game_id: int) -> Message:
    """The game's event and rating have taken its result: pages ask what they decided."""
    return {"type": "game.settled", "game": game_id}


def tournament_changed(round_number: int) -> Message:
    """The tournament's pages re-fetch; every message carries the round (0 before the start)."""
    return {"type": "tournament.changed", "round": round_number}


def arena_changed() -> Message:
    return {"type": "arena.changed"}


def team_match_changed(version: int) -> Message:
    """A team match's page re-fetches (its start, a board's game scored, the end); the
    version grows with every change (STYLE 4)."""
    return {"type": "teams.changed", "version": version}


def otb_changed(version: int) -> Message:
    """An over-the-board tournament's public page re-fetches (a result typed, a round
    published); the version grows with every change (STYLE 4)."""
    return {"type": "otb.changed", "version": version}


def chat_line(room: str, line: dict[str, Any]) -> Message:
    """A new line in a chat room (`chat.services.say`), for the room's sockets."""
    return {"type": "chat.line", "room": room, "line": line}


def chat_closed(room: str, closed: bool) -> Message:
    """An event's room was closed or opened by its organizer (RULES 9.4)."""
    return {"type": "chat.closed", "room": room, "closed": closed}


def chat_removed(room: str, line_id: int) -> Message:
    """The staff took a line away (RULES 9.6): every page showing it drops it."""
    return {"type": "chat.removed", "room": room, "line": line_id}


def chat_muted(players: list[dict[str, Any]]) -> Message:
    """Whom a player mutes now (RULES 9.5), for every chat socket of theirs: a mute holds in
    every tab, not only the one that muted."""
    return {"type": "chat.muted", "players": players}


def membership_ended(place: str) -> Message:
    """A player is no longer a member of a place only its members read (a club's room): each
    socket of theirs on it asks again what its viewer reads, and closes if nothing (4404)."""
    return {"type": "membership.ended", "place": place}


def account_closed() -> Message:
    """The account was deleted or deactivated: every socket of its player closes (4403)."""
    return {"type": "account.closed"}
