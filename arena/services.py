"""Writing arenas (RULES 1, 7.2, 8): opening, editing and cancelling one, and the players'
entering, pausing and leaving. The run itself is `arena.running`.

Every function runs in one transaction and first locks what it changes: opening an arena locks
the opener's user row (RULES 1, one live event per person, across kinds); everything else
locks the arena row (EVENT rank, `live.locks`), so entering, pausing and the pairing pass are
serialized per arena. Entering then locks the player's user row (USER rank), as deleting the
account does (`events.player_lock_and_check`), so a deleted account is never left in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _

from arena import running, selectors
from arena.engine import battle
from arena.models import Arena, BattleClub, EndReason, Entry, EntryState, PauseReason
from clubs import selectors as clubs
from clubs.models import OFFICERS, Club
from events import reminders
from events import services as events
from events.models import new_invite_token
from events.services import EventError, EventOptions
from live import locks

ArenaError = EventError  # the refusals of every event kind are one class (events.services)


@dataclass(frozen=True)
class ArenaOptions(EventOptions):
    """What the opener chose (RULES 8), already checked field by field by the form."""

    duration_minutes: int
    # A club battle (RULES 12.7): the clubs invited and how many best scorers count; fixed at
    # the opening.
    battle_club_ids: tuple[int, ...] = field(default=(), kw_only=True)
    battle_top_n: int | None = field(default=None, kw_only=True)


def _check_person(user, *, opening: bool) -> None:
    if not user.is_authenticated:
        raise ArenaError(
            "guest", _("Accedi per aprire un'arena.") if opening else _("Accedi per entrare.")
        )
    if user.is_bot:  # RULES 1
        raise ArenaError("bot", _("I bot non possono aprire arene né entrarvi."))


def _apply(arena: Arena, data: ArenaOptions) -> None:
    # RULES 7.3: an arena's games are single games, so unfair openings make it casual.
    events.apply_options(arena, data, double_games=False)
    arena.duration_minutes = data.duration_minutes


@locks.atomic
def arena_create(*, opener, data: ArenaOptions) -> Arena:
    _check_person(opener, opening=True)
    battle_clubs = _battle_clubs_locked(opener, data) if data.battle_top_n is not None else []
    # RULES 1: one live event per person, any kind; RULES 12.6: an officer's event of their club.
    club = events.opener_lock_and_check(opener, club_only=data.club_only)
    arena = Arena(opened_by=opener, club=club, battle_top_n=data.battle_top_n)
    _apply(arena, data)
    arena.full_clean(exclude=["invite_token"])
    arena.save()
    BattleClub.objects.bulk_create(BattleClub(arena=arena, club=c) for c in battle_clubs)
    return arena


def _battle_clubs_locked(opener, data: ArenaOptions) -> list[Club]:
    """RULES 12.7: 2 to 10 clubs, not dissolved, N from 3 to 10, opened by an officer of one
    of them (who becomes its organizer). The clubs' rows are locked (CLUB rank, ascending id)
    before the opener's: a dissolution at once waits, or is waited for."""
    ids = sorted(set(data.battle_club_ids))
    if data.club_only:
        raise ArenaError(
            "battle", _("Una battaglia tra circoli è aperta ai soci dei circoli invitati.")
        )
    if not battle.CLUBS_MIN <= len(ids) <= battle.CLUBS_MAX:
        raise ArenaError("battle", _("Una battaglia tra circoli invita da 2 a 10 circoli."))
    if not battle.TOP_N_MIN <= data.battle_top_n <= battle.TOP_N_MAX:
        raise ArenaError("battle", _("Contano da 3 a 10 migliori per circolo."))
    found = locks.lock_rows(Club.objects.filter(pk__in=ids), locks.Rank.CLUB)
    if len(found) != len(ids) or any(c.dissolved_at is not None for c in found):
        raise ArenaError("battle", _("Uno dei circoli invitati non esiste più."))
    if any(c.hidden for c in found):  # RULES 12.7: out of every list, invited by nobody
        raise ArenaError(
            "battle",
            _("Uno dei circoli invitati è stato nascosto dallo staff: non può essere invitato."),
        )
    mine = clubs.current_membership(user_id=opener.pk)
    if mine is None or mine.club_id not in ids or mine.role not in OFFICERS:
        raise ArenaError(
            "battle",
            _("Apre una battaglia tra circoli un consigliere di uno dei circoli invitati."),
        )
    return found


def _locked(arena_id: int) -> Arena:
    try:
        return locks.lock_one(Arena, arena_id, locks.Rank.EVENT)
    except (Arena.DoesNotExist, ValueError):
        raise ArenaError("missing", _("Questa arena non esiste.")) from None


def _check_organizer(arena: Arena, user, *, now: datetime | None = None) -> None:
    """RULES 8 (as 4.1): the opener, until the start (staff use the admin)."""
    if arena.opened_by_id != getattr(user, "pk", None):
        raise ArenaError("not_opener", _("Solo chi ha aperto l'arena può modificarla."))
    if arena.has_started(now):
        raise ArenaError(
            "started", _("L'arena è già iniziata o chiusa: non si può più modificare.")
        )


@locks.atomic
def arena_update(*, arena_id: int, by, data: ArenaOptions, now: datetime | None = None) -> Arena:
    arena = _locked(arena_id)
    _check_organizer(arena, by, now=now)
    _apply(arena, data)
    entrants = dict(arena.entries.values_list("player_id", "player__username"))
    events.check_floor_keeps_everyone(arena, entrants)
    arena.full_clean(exclude=["invite_token"])
    arena.save()
    running.changed_on_commit(arena.pk)
    return arena


@locks.atomic
def arena_cancel(*, arena_id: int, by, staff: bool = False, now: datetime | None = None) -> Arena:
    """The opener until the start; staff (the admin action) whenever it is live: a running
    arena's games are then drawn and not rated. Idempotent: a second call says so."""
    arena = _locked(arena_id)
    now = now or timezone.now()
    if staff:
        if not arena.is_live:
            raise ArenaError("closed", _("L'arena è già conclusa o annullata."))
        if arena.status == Arena.Status.RUNNING:
            running.cancel_running(arena, now)
            reminders.event_cancelled(arena, by_id=getattr(by, "pk", None), now=now)  # RULES 11.3
            return arena
        arena.end_reason = EndReason.BY_STAFF
    else:
        _check_organizer(arena, by, now=now)
        arena.end_reason = EndReason.BY_OPENER
    arena.status = Arena.Status.CANCELLED
    arena.cancelled_at = now
    arena.next_due_at = None
    arena.save(update_fields=["status", "cancelled_at", "end_reason", "next_due_at"])
    running.changed_on_commit(arena.pk)
    running.players_told_on_commit(arena.entries.values_list("player_id", flat=True))
    reminders.event_cancelled(arena, by_id=getattr(by, "pk", None), now=now)  # RULES 11.3
    return arena


def arena_staff_saved(*, arena_id: int, now: datetime | None = None) -> None:
    """Staff saved the arena in the admin: a moved start or end goes into the tick's schedule
    and its pages are told (`running.arena_staff_saved`)."""
    running.arena_staff_saved(arena_id=arena_id, now=now)


@locks.atomic
def invite_regenerate(*, arena_id: int, by) -> Arena:
    arena = _locked(arena_id)
    _check_organizer(arena, by)
    arena.invite_token = new_invite_token()
    arena.save(update_fields=["invite_token"])
    return arena


# --- the players -------------------------------------------------------------------------------


@locks.atomic
def entry_enter(
    *,
    arena_id: int,
    player,
    password: str = "",
    invite_token: str = "",
    address: str = "",
    now: datetime | None = None,
) -> Entry:
    """RULES 8: enter (or come back) before or during the arena ("Entra", "Riprendi").

    The floor is checked at each entry (RULES 7.2); a private arena needs the password or the
    invite link the first time. **Decision**: a player is in at most one running arena at a
    time — entering one pauses them in any other. Points stay with the player whatever they do.
    """
    _check_person(player, opening=False)
    now = now or timezone.now()
    arena = _locked(arena_id)
    events.player_lock_and_check(player)  # a deletion at once: one of the two goes through
    if not arena.is_live or now >= arena.ends_at:
        raise ArenaError("closed", _("L'arena è finita: non si può più entrare."))
    entry = Entry.objects.filter(arena=arena, player=player).first()
    if entry is None and arena.is_private:
        if not events.may_enter_private(
            arena, password, invite_token, player_id=player.pk, address=address
        ):
            raise ArenaError(
                "private",
                _("Arena privata: serve la password giusta o il link d'invito.")
                if not password
                else _("Password sbagliata."),
            )
    events.check_floor(arena, player.pk)  # RULES 7.2, at each entry
    events.check_club(arena, player.pk)  # RULES 12.6, at each entry
    # RULES 16.6, one board at a time: from now on, for an arena already running.
    events.check_free(arena, player.pk, start=max(now, arena.starts_at))
    club_id = _battle_club_of(arena, player) if arena.is_battle else None
    if entry is None:
        entry = Entry.objects.create(arena=arena, player=player, waiting_since=now, club_id=club_id)
    else:
        entry.state, entry.pause_reason, entry.waiting_since = EntryState.ACTIVE, "", now
        entry.save(update_fields=["state", "pause_reason", "waiting_since"])
    if arena.status == Arena.Status.RUNNING:
        # One running arena at a time: the others pause this player.
        others = selectors.running_entries_of(player.pk, except_arena=arena.pk)
        for other_arena in others.values_list("arena_id", flat=True):
            running.changed_on_commit(other_arena)
        others.update(state=EntryState.PAUSED, pause_reason=PauseReason.OTHER_ARENA)
        running.request_pairing(arena, now)
    running.changed_on_commit(arena.pk)
    return entry


def _battle_club_of(arena: Arena, player) -> int:
    """RULES 12.7: a battle lets in the members of its clubs, each scoring for their own
    (read under the player's row lock, which leaving a club takes too: a player who entered
    stays in the club until the battle ends)."""
    mine = clubs.current_membership(user_id=player.pk)
    invited = set(arena.battle_clubs.values_list("club_id", flat=True))
    if mine is None or mine.club_id not in invited:
        raise ArenaError(
            "battle",
            _("Questa battaglia è tra circoli: entra chi è socio di uno di quelli invitati."),
        )
    return mine.club_id


def _set_state(arena_id: int, player, state: str, reason: str) -> Entry:
    arena = _locked(arena_id)
    entry = Entry.objects.filter(arena=arena, player_id=getattr(player, "pk", None)).first()
    if entry is None:
        raise ArenaError("not_in", _("Non sei in questa arena."))
    entry.state, entry.pause_reason = state, reason
    entry.save(update_fields=["state", "pause_reason"])
    running.changed_on_commit(arena.pk)
    return entry


@locks.atomic
def entry_pause(*, arena_id: int, player) -> Entry:
    """ "Pausa": not paired from now on (a game in progress goes on); points stay."""
    return _set_state(arena_id, player, EntryState.PAUSED, PauseReason.BY_PLAYER)


@locks.atomic
def entry_leave(*, arena_id: int, player) -> Entry:
    """ "Esci": out of the arena until they enter again; points stay on the leaderboard."""
    return _set_state(arena_id, player, EntryState.LEFT, PauseReason.NONE)


@locks.atomic
def entry_seen(*, arena_id: int, user_id: int, key: str = "", now: datetime | None = None) -> bool:
    """The player opened the arena's page (its socket `key`): if they are in and not paused, a
    pass runs soon (RULES 8: a player who comes back is paired). **Decision** (RULES 8): coming
    back after being away (no other socket on the arena, not in a game) makes them waiting
    from now, so the odd one out is the one who became waiting last."""
    now = now or timezone.now()
    arena = _locked(arena_id)
    entry = Entry.objects.filter(arena=arena, player_id=user_id, state=EntryState.ACTIVE).first()
    if entry is None:
        return False
    at_ms = selectors.ms(now)
    if not selectors.was_here(arena, entry, except_key=key, at_ms=at_ms):
        if not selectors.in_live_game(user_id):
            entry.waiting_since = now
            entry.save(update_fields=["waiting_since"])
    running.request_pairing(arena, now)
    return True
