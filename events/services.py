"""The checks and writes every kind of event shares (RULES 1, 4.1, 6, 7.2, 7.3, 8).

Each kind's services call these inside their own transaction; the locks follow the site's
order (`live.locks`): the opener's user row when an event is opened (so two forms submitted at
once cannot both pass the one-live-event check, RULES 1), the event row for everything else.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.conf import settings
from django.contrib.auth.hashers import check_password, make_password
from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from redis.exceptions import RedisError

from accounts.services import account_lock_open
from accounts.throttle import Counter, ThrottleUnavailable, attempt_right, count_in_order
from clubs import selectors as clubs
from clubs.models import OFFICERS, Club
from events import commitments, options, reminders
from events.kinds import open_live_event
from ratings.selectors import rating_value, ratings_snapshot


class EventError(Exception):
    """A refusal with its reason, ready to show (each refusal says why); nothing was saved."""

    def __init__(self, code: str, message: str, *, event=None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.event = event  # the live event that blocks a new one (RULES 1), for a link


@dataclass(frozen=True)
class EventOptions:
    """What the opener chose for any event, already checked field by field by the form."""

    name: str
    description: str
    variant: str
    base_seconds: int
    increment_seconds: int
    starts_at: datetime
    opening_mode: str
    thematic_opening: int | None
    rated: bool
    floor: int | None
    password: str | None  # None: keep the current one (edit); "": public
    # RULES 12.6: only the members of the opener's club (fixed at the opening).
    club_only: bool = field(default=False, kw_only=True)


def player_lock_and_check(player) -> None:
    """Lock the player's user row (USER rank, after the event's) and refuse a closed account
    (deleted or deactivated): the deletion locks the same row, so a join or an entry and a
    deletion at once are one after the other, and a deleted player is never left registered
    (`accounts.services.user_delete`)."""
    if account_lock_open(user_id=player.pk) is None:
        raise EventError("account_closed", _("Questo account è stato chiuso."))


def opener_lock_and_check(opener, *, club_only: bool = False) -> Club | None:
    """RULES 1: lock the opener's user row, then refuse if they have a live event of any kind
    (or their account is closed, `player_lock_and_check`). For an event of the opener's club
    (RULES 12.6) the club's row is locked first (CLUB rank, before USER: a dissolution at
    once waits, or is waited for) and the opener must be one of its officers; it is
    returned, for the event's `club`."""
    club = club_lock_for_opening(opener) if club_only else None
    player_lock_and_check(opener)
    live = open_live_event(opener.pk)
    if live is not None:
        raise EventError(
            "live_event",
            _("Hai già un evento aperto non ancora concluso: «%(name)s».") % {"name": live},
            event=live,
        )
    return club


def club_lock_for_opening(opener, club_id: int | None = None) -> Club:
    """RULES 12.6: the club (the opener's own, or `club_id`) locked, refusing one the opener is
    not an officer of or one dissolved."""
    from live import locks

    membership = clubs.current_membership(user_id=opener.pk)
    wanted = club_id if club_id is not None else getattr(membership, "club_id", None)
    if wanted is None:
        raise EventError("club", _("Non sei socio di nessun circolo."))
    club = locks.lock_one(Club, wanted, locks.Rank.CLUB)
    membership = clubs.membership_of(club_id=club.pk, user_id=opener.pk)
    if club.dissolved_at is not None:
        raise EventError("club", _("Questo circolo è stato sciolto."))
    if membership is None or membership.role not in OFFICERS:
        raise EventError("club", _("Solo i consiglieri del circolo possono aprirne gli eventi."))
    return club


def check_club(event, player_id: int) -> None:
    """RULES 12.6: an event of a club lets in only its members (checked under the player's row
    lock, which a change of club takes too)."""
    if event.club_id is None:
        return
    if not clubs.is_member(club_id=event.club_id, user_id=player_id):
        raise EventError(
            "club",
            _("Solo i soci del circolo «%(club)s» possono entrare.") % {"club": event.club.name},
        )


def check_free(event, player_id: int, *, start: datetime | None = None) -> None:
    """RULES 16.6, one board at a time (§1): a player committed elsewhere (named in a team
    match's line-up) for a time overlapping this event's, from `start` (its start, or now for
    an arena already running) to its expected end, is refused with the name of that event."""
    start = start or event.starts_at
    name = commitments.committed_during(player_id, start, event.calendar_end())
    if name is not None:
        raise EventError(
            "committed",
            _(
                "Sei nella formazione di «%(event)s», che si gioca nello stesso tempo: "
                "non puoi entrare."
            )
            % {"event": name},
        )


def apply_options(event, data: EventOptions, *, double_games: bool) -> None:
    """Write the shared options on `event` (not saved). RULES 6: table openings only in Italian
    and English draughts; RULES 7.3: openings unfair in a single game make the event casual
    unless it plays double games (an arena never does)."""
    if not options.mode_allowed(data.opening_mode, data.variant):
        raise EventError(
            "opening_mode",
            _(
                "Il sorteggio dalla tabella e l'apertura tematica valgono solo per la dama "
                "italiana e la dama inglese."
            ),
        )
    thematic = data.thematic_opening if data.opening_mode == options.OpeningMode.THEMATIC else None
    outcome = options.rated_outcome(
        rated=data.rated,
        floor=data.floor,
        double_games=double_games,
        mode=data.opening_mode,
        thematic_number=thematic,
    )
    event.name = data.name
    event.description = data.description
    event.variant = data.variant
    event.base_seconds = data.base_seconds
    event.increment_seconds = data.increment_seconds
    event.cadence = event.time_control.cadence.value
    if event.pk is not None and event.starts_at != data.starts_at:
        # RULES 11.2: everyone is reminded of the new start, whenever they joined.
        event.start_moved_at = timezone.now()
        reminders.start_moved(event)
    event.starts_at = data.starts_at
    event.opening_mode = data.opening_mode
    event.thematic_opening = thematic
    event.rated = outcome.rated
    event.floor = outcome.floor
    event.rated_switched_off = outcome.switched_off
    if data.password is not None:
        event.password_hash = make_password(data.password) if data.password else ""


def _private_counters(event, player_id: int | None, address: str) -> list[Counter]:
    """The counters of a password try on a private event, in the order they are asked: the
    player's own on this event, their address's on every event, and last the event's own,
    whoever tries (fresh accounts from many addresses, 4 of them × 5 tries, found a 4-digit
    password on the 23rd guess when only the first was counted)."""
    window = settings.PRIVATE_PASSWORD_WINDOW
    label = f"{event._meta.label_lower}:{event.pk}"
    return [
        Counter(
            cache.make_key(f"private-tries:{label}:{player_id}"),
            settings.PRIVATE_PASSWORD_TRIES,
            window,
        ),
        Counter(
            cache.make_key(f"private-tries:addr:{address}"),
            settings.PRIVATE_ADDRESS_TRIES,
            window,
        ),
        Counter(cache.make_key(f"private-tries:{label}"), settings.PRIVATE_EVENT_TRIES, window),
    ]


def _throttled_key(event) -> str:
    return f"private-throttled:{event._meta.label_lower}:{event.pk}"


def private_throttled_until(event) -> datetime | None:
    """Until when password tries on `event` are refused to everyone (its organizer is told on
    the event's page); None when they are not (or Redis cannot say)."""
    try:
        until = cache.get(_throttled_key(event))
    except RedisError:  # the page shows without the notice while Redis is away
        return None
    return datetime.fromtimestamp(until, tz=UTC) if until else None


def may_enter_private(
    event, password: str, invite_token: str, *, player_id: int | None, address: str = ""
) -> bool:
    """A private event lets in its opener (they need not type their own password), whoever came
    through the invite link, and whoever gives the password.

    Every password try is counted in the cache's Redis, atomically, before the check
    (`accounts.throttle.count_in_order`, `_private_counters`): past a limit within
    PRIVATE_PASSWORD_WINDOW seconds the try is refused without looking at the password
    ("throttled"). A right password gives its try back to the address's and the event's
    counters and clears the player's own. When the event's own counter refuses, the time it
    reopens is kept for its organizer's page. Without Redis the password cannot be counted and
    is refused ("unavailable": fail closed); the invite link still works."""
    if player_id is not None and player_id == event.opened_by_id:
        return True
    if invite_token and secrets.compare_digest(invite_token, event.invite_token):
        return True
    if not password:
        return False
    counters = _private_counters(event, player_id, address)
    try:
        wait, refusing = count_in_order(counters)
    except ThrottleUnavailable:
        raise EventError(
            "unavailable", _("Controllo della password non disponibile: riprova tra poco.")
        ) from None
    if refusing is not None:
        if refusing is counters[-1]:
            try:
                cache.set(_throttled_key(event), time.time() + wait, timeout=wait)
            except RedisError:  # the notice is a help; the refusal stands
                pass
        raise EventError(
            "throttled",
            _("Troppe password sbagliate: riprova tra %(minutes)d minuti o usa il link d'invito.")
            % {"minutes": max(1, -(-wait // 60))},
        )
    if check_password(password, event.password_hash):
        attempt_right(give_back=[counters[1].key, counters[2].key], clear=[counters[0].key])
        return True
    return False


def check_floor(event, player_id: int) -> None:
    """RULES 7.2: a rated event with a floor refuses a player rated below it (the event's
    variant and cadence)."""
    if not (event.rated and event.floor is not None):
        return
    rating = rating_value(player_id=player_id, variant=event.variant, cadence=event.cadence)
    if rating < event.floor:
        raise EventError(
            "floor",
            _("Il tuo punteggio (%(rating)d) è sotto lo sbarramento (%(floor)d).")
            % {"rating": rating, "floor": event.floor},
        )


def check_floor_keeps_everyone(event, entrants: dict[int, str]) -> None:
    """An edit may not leave players already in under the floor (RULES 7.2).

    **Decision** (the rules are silent): nobody is ever removed because the opener changed the
    settings after they joined, so an edit that would put an entrant (`entrants`: id → name)
    under the floor — a higher floor, or another variant or cadence and so another rating — is
    refused, naming them; the opener lowers the floor or keeps the rest. Making the event
    private keeps whoever is already in: they joined when it was open."""
    if not (event.rated and event.floor is not None):
        return
    ratings = ratings_snapshot(player_ids=entrants, variant=event.variant, cadence=event.cadence)
    below = sorted(name for pk, name in entrants.items() if ratings[pk] < event.floor)
    if below:
        raise EventError(
            "floor",
            ngettext(
                "Con queste impostazioni un iscritto resterebbe sotto lo sbarramento "
                "(%(floor)d): %(names)s. Chi è iscritto non viene escluso: abbassa lo "
                "sbarramento.",
                "Con queste impostazioni %(count)d iscritti resterebbero sotto lo sbarramento "
                "(%(floor)d): %(names)s. Chi è iscritto non viene escluso: abbassa lo "
                "sbarramento.",
                len(below),
            )
            % {"count": len(below), "floor": event.floor, "names": ", ".join(below)},
        )
