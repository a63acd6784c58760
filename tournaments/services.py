"""Writing tournaments before their start (RULES 4.1, 4.2, 7.2, 7.3).

Every function is keyword-only and runs in one transaction. Locking contract: anything that
changes who is registered, or the tournament's options, first locks the tournament row
(`select_for_update`), so two joins for the last seat are serialized and the second sees the
tournament full. Opening a tournament locks the opener's user row, so two forms submitted at
once cannot both pass the one-live-event check (RULES 1); joining locks the player's user row
after the tournament's (`events.player_lock_and_check`), as deleting the account does, so a
deleted account is never left registered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _

from events import reminders
from events import services as events
from events.services import EventError, EventOptions
from live import locks
from tournaments import running
from tournaments.broadcast import changed_on_commit
from tournaments.models import EndReason, Registration, Tournament, new_invite_token

# The refusals of every event kind are one class (events.services): views catch it.
TournamentError = EventError


@dataclass(frozen=True)
class TournamentOptions(EventOptions):
    """What the opener chose (RULES 4.1), already checked field by field by the form."""

    seats: int
    minimum: int
    threshold: int
    extra_round: bool
    double_games: bool


def _check_opener(user) -> None:
    if not user.is_authenticated:
        raise TournamentError("guest", _("Accedi per aprire un torneo."))
    if user.is_bot:  # RULES 1
        raise TournamentError("bot", _("I bot non possono aprire tornei."))


def _apply(tournament: Tournament, data: TournamentOptions) -> None:
    events.apply_options(tournament, data, double_games=data.double_games)
    tournament.seats = data.seats
    tournament.minimum = data.minimum
    tournament.threshold = data.threshold
    tournament.extra_round = data.extra_round
    tournament.double_games = data.double_games


@locks.atomic
def tournament_create(*, opener, data: TournamentOptions) -> Tournament:
    _check_opener(opener)
    # RULES 1: one live event per person; RULES 12.6: an officer's event of their club.
    club = events.opener_lock_and_check(opener, club_only=data.club_only)
    tournament = Tournament(opened_by=opener, club=club)
    _apply(tournament, data)
    tournament.full_clean(exclude=["invite_token"])
    tournament.save()
    return tournament


def _locked(tournament_id: int) -> Tournament:
    try:
        return locks.lock_one(Tournament, tournament_id, locks.Rank.EVENT)
    except (Tournament.DoesNotExist, ValueError):
        raise TournamentError("missing", _("Questo torneo non esiste.")) from None


def _check_organizer(tournament: Tournament, user, *, now: datetime | None = None) -> None:
    """RULES 4.1: the opener, until the start (staff use the admin)."""
    if tournament.opened_by_id != getattr(user, "pk", None):
        raise TournamentError("not_opener", _("Solo chi ha aperto il torneo può modificarlo."))
    if tournament.has_started(now):
        raise TournamentError(
            "started", _("Il torneo è già iniziato o chiuso: non si può più modificare.")
        )


@locks.atomic
def tournament_update(*, tournament_id: int, by, data: TournamentOptions) -> Tournament:
    tournament = _locked(tournament_id)
    _check_organizer(tournament, by)
    registered = tournament.registrations.count()
    if data.seats < registered:
        raise TournamentError(
            "seats",
            _("Ci sono già %(n)d iscritti: i posti non possono essere meno.") % {"n": registered},
        )
    _apply(tournament, data)
    _check_floor_keeps_everyone(tournament)
    tournament.full_clean(exclude=["invite_token"])
    tournament.save()
    changed_on_commit(tournament.pk)
    return tournament


def _check_floor_keeps_everyone(tournament: Tournament) -> None:
    entrants = dict(tournament.registrations.values_list("player_id", "player__username"))
    events.check_floor_keeps_everyone(tournament, entrants)


@locks.atomic
def tournament_cancel(
    *, tournament_id: int, by, staff: bool = False, now: datetime | None = None
) -> Tournament:
    """RULES 4.1: the opener until the start; staff (the admin action) whenever it is live.

    Staff cancelling a running tournament end its live games at once as draws (event end), and
    nothing of it is paired, scored into standings or rated afterwards
    (`running.cancel_running`). Idempotent: the tournament row is locked first, and a second
    call finds it cancelled, changes nothing and says so.
    """
    tournament = _locked(tournament_id)
    now = now or timezone.now()
    if staff:
        if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            raise TournamentError("closed", _("Il torneo è già concluso o annullato."))
        if tournament.status == Tournament.Status.RUNNING:
            running.cancel_running(tournament, now)
            reminders.event_cancelled(
                tournament, by_id=getattr(by, "pk", None), now=now
            )  # RULES 11.3
            return tournament
        tournament.end_reason = EndReason.BY_STAFF
    else:
        _check_organizer(tournament, by)
    tournament.status = Tournament.Status.CANCELLED
    tournament.cancelled_at = now
    tournament.next_due_at = None
    tournament.save(update_fields=["status", "cancelled_at", "end_reason", "next_due_at"])
    changed_on_commit(tournament.pk)
    reminders.event_cancelled(tournament, by_id=getattr(by, "pk", None), now=now)  # RULES 11.3
    return tournament


@locks.atomic
def invite_regenerate(*, tournament_id: int, by) -> Tournament:
    """A new secret invite link; the old one stops working."""
    tournament = _locked(tournament_id)
    _check_organizer(tournament, by)
    tournament.invite_token = new_invite_token()
    tournament.save(update_fields=["invite_token"])
    return tournament


@locks.atomic
def registration_join(
    *,
    tournament_id: int,
    player,
    password: str = "",
    invite_token: str = "",
    address: str = "",
    now: datetime | None = None,
) -> Registration:
    """RULES 4.2. The tournament row is locked before counting seats (module docstring)."""
    if not player.is_authenticated:
        raise TournamentError("guest", _("Accedi per iscriverti."))
    if player.is_bot:  # RULES 1
        raise TournamentError("bot", _("I bot non possono iscriversi ai tornei."))
    tournament = _locked(tournament_id)
    events.player_lock_and_check(player)  # a deletion at once: one of the two goes through
    if tournament.has_started(now):
        raise TournamentError(
            "started", _("Il torneo è già iniziato: non ci si può più iscrivere.")
        )
    existing = tournament.registrations.filter(player=player).first()
    if existing is not None:
        return existing
    if tournament.is_private and not events.may_enter_private(
        tournament, password, invite_token, player_id=player.pk, address=address
    ):
        raise TournamentError(
            "private",
            _("Torneo privato: serve la password giusta o il link d'invito.")
            if not password
            else _("Password sbagliata."),
        )
    if tournament.registrations.count() >= tournament.seats:
        raise TournamentError("full", _("Il torneo è al completo."))
    events.check_floor(tournament, player.pk)  # RULES 7.2
    events.check_club(tournament, player.pk)  # RULES 12.6
    events.check_free(tournament, player.pk)  # RULES 16.6, one board at a time
    registration = Registration.objects.create(tournament=tournament, player=player)
    changed_on_commit(tournament.pk)
    return registration


@locks.atomic
def registration_withdraw(*, tournament_id: int, player, now: datetime | None = None) -> None:
    """RULES 4.2: before the start only; the player disappears from the list at once."""
    tournament = _locked(tournament_id)
    if tournament.has_started(now):
        raise TournamentError(
            "started", _("Il torneo è già iniziato: chi è iscritto resta fino alla fine.")
        )
    deleted, _rows = tournament.registrations.filter(player=player).delete()
    if not deleted:
        raise TournamentError("not_registered", _("Non sei iscritto a questo torneo."))
    changed_on_commit(tournament.pk)


@locks.atomic
def participant_annul(*, tournament_id: int, player_id: int) -> Tournament:
    """RULES 15.5: annul a player's results in a running tournament, before it is rated (a
    tournament is rated at its end, RULES 7.1). The caller (fair play's service) checked that
    the staff asked. The tournament row is locked first (EVENT rank), so the end cannot rate
    it meanwhile: the end runs under the same lock. Annulling twice changes nothing.

    The standings, the pairing of the next rounds and the final rating read it through
    `selectors.engine_tournament` and `running.end`; the pages re-fetch at the push."""
    tournament = _locked(tournament_id)
    if tournament.status != Tournament.Status.RUNNING:
        raise TournamentError(
            "not_running",
            _("Si possono annullare i risultati solo mentre il torneo è in corso."),
        )
    updated = tournament.participants.filter(player_id=player_id, annulled=False).update(
        annulled=True
    )
    if not updated and not tournament.participants.filter(player_id=player_id).exists():
        raise TournamentError("not_participant", _("Questo giocatore non è nel torneo."))
    if updated:
        changed_on_commit(tournament.pk, tournament.current_round)
    return tournament
