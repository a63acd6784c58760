"""Writing clubs (RULES 12): founding one, its members' requests, roles, leaving and removal,
its invite links, its dissolution. Keyword-only, typed, each in one transaction (STYLE 2).

Locking contract
----------------
Every write on a club's members locks the club row first (CLUB rank, `live.locks`), then the
players' user rows it changes (USER rank, ascending id): two officers deciding one request,
a request accepted while the player joins elsewhere, an officer opening an event while the
president dissolves the club, all queue on the club row, and a player's one club at a time
(RULES 12.3) is checked under their user row — the row a join to any club, an event entry and
the account's deletion lock too. So a player entering a club's battle and leaving the club at
once are one after the other: whichever is second sees the other's commit (a leave then finds
the battle entry and is refused, an entry finds no membership). The unique constraints
(`clubs_one_club`, `clubs_one_president`, the names') are the last judge of what the checks
cover.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import emails
from accounts import services as accounts
from accounts.models import SignupLink, User
from clubs import registry, selectors
from clubs.models import (
    LINK_PURPOSE,
    OFFICERS,
    Club,
    EndReason,
    JoinRequest,
    Membership,
    RequestStatus,
    Role,
    members_place,
)
from live import locks, pushes
from mail.models import Mail, Reason
from mail.services import mail_queue_many


class ClubError(Exception):
    """A refusal with its reason, ready to show; nothing was saved."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ClubData:
    """What the founder (or an officer, editing) typed, checked field by field by the form."""

    name: str
    short_name: str
    city: str
    province: str
    description: str = ""
    fsi_code: str = ""
    fid_code: str = ""


# --- locks and checks ----------------------------------------------------------------------------


def _club_locked(club_id: int) -> Club:
    try:
        club = locks.lock_one(Club, club_id, locks.Rank.CLUB)
    except (Club.DoesNotExist, ValueError, TypeError):
        raise ClubError("missing", _("Questo circolo non esiste.")) from None
    if not club.is_active:
        raise ClubError("dissolved", _("Questo circolo è stato sciolto."))
    return club


def _player_locked(user_id: int) -> User:
    """The player's user row, locked, refusing a closed account (RULES 1)."""
    user = accounts.account_lock_open(user_id=user_id)
    if user is None:
        raise ClubError("account_closed", _("Questo account è stato chiuso."))
    return user


def _officer(club: Club, user) -> Membership:
    membership = selectors.membership_of(club_id=club.pk, user_id=getattr(user, "pk", None))
    if membership is None or membership.role not in OFFICERS:
        raise ClubError("not_officer", _("Solo i consiglieri del circolo possono farlo."))
    return membership


def _president(club: Club, user) -> Membership:
    membership = _officer(club, user)
    if membership.role != Role.PRESIDENT:
        raise ClubError("not_president", _("Solo il presidente del circolo può farlo."))
    return membership


def _not_in_a_club(user_id: int, *, you: bool = True) -> None:
    """RULES 12.3: one club at a time (checked under the player's row lock)."""
    current = selectors.current_membership(user_id=user_id)
    if current is not None:
        raise ClubError(
            "in_a_club",
            _("Sei già socio di «%(club)s»: esci prima da quel circolo.")
            % {"club": current.club.name}
            if you
            else _("È già socio di «%(club)s».") % {"club": current.club.name},
        )


def _person(user) -> None:
    if not getattr(user, "is_authenticated", False):
        raise ClubError("guest", _("Accedi per entrare in un circolo."))
    if user.is_bot:
        raise ClubError("bot", _("I bot non entrano nei circoli."))


def _not_committed(club: Club, user_id: int, *, you: bool = True) -> None:
    """RULES 12.3: a player in a competition of the club not over stays until it ends."""
    names = registry.commitments_of(club.pk, user_id)
    if names:
        shown = ", ".join(f"«{name}»" for name in names)
        raise ClubError(
            "committed",
            (
                _(
                    "Sei in %(events)s del circolo, non ancora finito: potrai uscire quando "
                    "sarà finito (da un evento non ancora iniziato, ritirati prima)."
                )
                if you
                else _(
                    "È in %(events)s del circolo, non ancora finito: resta socio fino ad allora."
                )
            )
            % {"events": shown},
        )


def _saved(club: Club) -> Club:
    """Checked (`full_clean`, the names' clash included) and saved; a clash committed by
    someone else meanwhile is the unique constraint's, and reads the same (RULES 12.2)."""
    club.full_clean()
    try:
        with transaction.atomic():
            club.save()
    except IntegrityError:
        raise ValidationError(
            {"name": _("Esiste già un circolo con questo nome (o con uno che si legge uguale).")}
        ) from None
    return club


def _apply(club: Club, data: ClubData) -> None:
    club.name = data.name.strip()
    club.short_name = data.short_name.strip().upper()
    club.city = data.city.strip()
    club.province = data.province
    club.description = data.description.strip()
    club.fsi_code = data.fsi_code.strip()
    club.fid_code = data.fid_code.strip()


# --- the club ------------------------------------------------------------------------------------


@locks.atomic
def club_found(*, founder, data: ClubData, now: datetime | None = None) -> Club:
    """RULES 12.1: any registered player in no club founds one and is its president.
    ValidationError for the form's fields (a name clash), ClubError otherwise."""
    _person(founder)
    now = now or timezone.now()
    _player_locked(founder.pk)
    _not_in_a_club(founder.pk)
    club = Club(founded_by=founder)
    _apply(club, data)
    _saved(club)
    Membership.objects.create(club=club, user=founder, role=Role.PRESIDENT, joined_at=now)
    return club


@locks.atomic
def club_update(*, club_id: int, by, data: ClubData) -> Club:
    club = _club_locked(club_id)
    _officer(club, by)
    _apply(club, data)
    return _saved(club)


@locks.atomic
def club_dissolve(*, club_id: int, by=None, staff: bool = False, now=None) -> Club:
    """The president (or the staff) dissolves the club: refused while it has an event not over
    (RULES 12.8); every membership ends, the requests waiting are withdrawn, its invite links
    revoked. The club's history stays (its page says it was dissolved); its name is free."""
    club = _club_locked(club_id)
    if not staff:
        _president(club, by)
    live = [e.name for e in registry.events_of(club.pk) if e.live]
    if live:
        raise ClubError(
            "live_event",
            _(
                "Il circolo ha eventi non ancora conclusi: %(events)s. Annullali o aspetta che finiscano."
            )
            % {"events": ", ".join(f"«{name}»" for name in live)},
        )
    now = now or timezone.now()
    members = list(club.memberships.filter(left_at=None).values_list("user_id", flat=True))
    _players_locked_any(members)
    club.memberships.filter(left_at=None).update(left_at=now, end_reason=EndReason.DISSOLVED)
    # RULES 12.5: the members' room is theirs no more; their open sockets on it close.
    pushes.membership_ended_on_commit(members_place(club.pk), members)
    club.requests.filter(status=RequestStatus.PENDING).update(
        status=RequestStatus.WITHDRAWN, decided_at=now
    )
    _links(club).filter(revoked_at=None).update(revoked_at=now)
    club.dissolved_at = now
    Club.objects.filter(pk=club.pk).update(dissolved_at=now)
    return club


def _players_locked_any(user_ids) -> None:
    """Lock these players' rows (USER rank, ascending id), closed accounts too: what ends for
    everyone (a dissolution) must not wait for an account to be open."""
    if user_ids:
        locks.lock_rows(User.objects.filter(pk__in=list(user_ids)).only("pk"), locks.Rank.USER)


# --- joining on request --------------------------------------------------------------------------


@locks.atomic
def request_create(*, club_id: int, user) -> JoinRequest:
    """RULES 12.3: ask to join; an officer accepts or refuses. One request waiting at a time."""
    _person(user)
    club = _club_locked(club_id)
    if club.hidden:
        raise ClubError("hidden", _("Questo circolo non accetta richieste."))
    _player_locked(user.pk)
    _not_in_a_club(user.pk)
    waiting = JoinRequest.objects.filter(user=user, status=RequestStatus.PENDING).first()
    if waiting is not None:
        raise ClubError(
            "pending",
            _("Hai già chiesto di entrare in «%(club)s»: ritira quella richiesta prima.")
            % {"club": waiting.club.name},
        )
    return JoinRequest.objects.create(club=club, user=user)


@locks.atomic
def request_withdraw(*, request_id: int, user) -> bool:
    return bool(
        JoinRequest.objects.filter(
            pk=request_id, user_id=getattr(user, "pk", None), status=RequestStatus.PENDING
        ).update(status=RequestStatus.WITHDRAWN, decided_at=timezone.now(), seen=True)
    )


@locks.atomic
def request_decide(*, request_id: int, by, accept: bool, now=None) -> JoinRequest:
    """An officer accepts or refuses a request; the player is told (RULES 12.3): on the site's
    club pages until they close the notice, and by mail if they chose mails to a confirmed
    address. Accepting someone who joined another club meanwhile is refused, saying so."""
    found = JoinRequest.objects.filter(pk=request_id).values_list("club_id", flat=True).first()
    if found is None:
        raise ClubError("missing", _("Questa richiesta non esiste."))
    club = _club_locked(found)
    _officer(club, by)
    request = JoinRequest.objects.select_related("user").get(pk=request_id)
    if request.status != RequestStatus.PENDING:
        raise ClubError("decided", _("Questa richiesta è già stata decisa o ritirata."))
    now = now or timezone.now()
    if accept:
        _player_locked(request.user_id)
        _not_in_a_club(request.user_id, you=False)
        Membership.objects.create(club=club, user_id=request.user_id, joined_at=now)
    request.status = RequestStatus.ACCEPTED if accept else RequestStatus.REFUSED
    request.decided_at, request.decided_by = now, by
    request.save(update_fields=["status", "decided_at", "decided_by"])
    _tell(request.user, club, accepted=accept)
    return request


def _tell(player: User, club: Club, *, accepted: bool) -> None:
    """The decision by mail, to a player who chose mails (the reminders' choice, RULES 11) at a
    confirmed address; the outbox refuses the rest (RULES 10.2)."""
    if not (player.remind_by_email and player.email_verified):
        return
    mail_queue_many(
        [
            Mail(
                user=player,
                reason=Reason.CLUB,
                key=f"club-request:{club.pk}:{timezone.now().timestamp():.0f}",
                to=player.email,
                template="clubs/mail/decision",
                language=player.language,
                context={
                    "username": player.username,
                    "club_name": club.name,
                    "accepted": accepted,
                    "club_url": emails.absolute(club.get_absolute_url()),
                    "unsubscribe_url": emails.unsubscribe_url(player),
                    "account_url": emails.absolute("/accounts/settings/"),
                },
            )
        ]
    )


def notice_seen(*, user, request_id: int) -> None:
    JoinRequest.objects.filter(pk=request_id, user_id=getattr(user, "pk", None)).update(seen=True)


# --- leaving, removal, roles ---------------------------------------------------------------------


def _member(club: Club, user_id: int) -> Membership:
    membership = selectors.membership_of(club_id=club.pk, user_id=user_id)
    if membership is None:
        raise ClubError("not_member", _("Non è socio di questo circolo."))
    return membership


@locks.atomic
def member_leave(*, club_id: int, user, now=None) -> Membership:
    """RULES 12.3: leave at any time, except while in a competition of the club not over; the
    president hands on first (or dissolves the club)."""
    club = _club_locked(club_id)
    _player_locked(user.pk)
    membership = selectors.membership_of(club_id=club.pk, user_id=user.pk)
    if membership is None:
        raise ClubError("not_member", _("Non sei socio di questo circolo."))
    if membership.role == Role.PRESIDENT:
        raise ClubError(
            "president",
            _(
                "Sei il presidente: passa la presidenza a un altro socio prima di uscire, o sciogli il circolo."
            ),
        )
    _not_committed(club, user.pk)
    return _end(membership, EndReason.LEFT, now)


def _end(membership: Membership, reason: str, now=None) -> Membership:
    membership.left_at = now or timezone.now()
    membership.end_reason = reason
    membership.save(update_fields=["left_at", "end_reason"])
    # RULES 12.5: only members read the club's room: the former member's open sockets on it
    # close once this is committed (a line they send meanwhile is refused by the room's check).
    pushes.membership_ended_on_commit(members_place(membership.club_id), [membership.user_id])
    return membership


@locks.atomic
def member_remove(*, club_id: int, by, user_id: int, now=None) -> Membership:
    """An officer removes a member; only the president removes an officer, and nobody the
    president (RULES 12.1). A member in a competition of the club stays until it ends."""
    club = _club_locked(club_id)
    mine = _officer(club, by)
    _players_locked_any([user_id])
    membership = _member(club, user_id)
    if membership.role == Role.PRESIDENT:
        raise ClubError("president", _("Il presidente non può essere tolto dal circolo."))
    if membership.role == Role.OFFICER and mine.role != Role.PRESIDENT:
        raise ClubError("not_president", _("Solo il presidente può togliere un consigliere."))
    _not_committed(club, user_id, you=False)
    return _end(membership, EndReason.REMOVED, now)


@locks.atomic
def member_role_set(*, club_id: int, by, user_id: int, role: str) -> Membership:
    """The president makes a member an officer, or an officer a member again."""
    if role not in (Role.OFFICER, Role.MEMBER):
        raise ClubError("role", _("Ruolo non valido."))
    club = _club_locked(club_id)
    _president(club, by)
    membership = _member(club, user_id)
    if membership.role == Role.PRESIDENT:
        raise ClubError("president", _("Per cambiare presidente usa «Passa la presidenza»."))
    membership.role = role
    membership.save(update_fields=["role"])
    return membership


@locks.atomic
def president_hand_on(*, club_id: int, by, user_id: int) -> Membership:
    """RULES 12.1: the president hands the club on to another member, and stays an officer."""
    club = _club_locked(club_id)
    mine = _president(club, by)
    _players_locked_any(sorted({mine.user_id, user_id}))
    target = _member(club, user_id)
    if target.pk == mine.pk:
        raise ClubError("same", _("Sei già il presidente."))
    mine.role = Role.OFFICER
    mine.save(update_fields=["role"])
    target.role = Role.PRESIDENT
    target.chat_muted = False
    target.save(update_fields=["role", "chat_muted"])
    return target


@locks.atomic
def chat_mute_set(*, club_id: int, by, user_id: int, muted: bool) -> Membership:
    """RULES 12.5: an officer silences a member in the club's room (or lets them speak again);
    officers are silenced by nobody but the staff."""
    club = _club_locked(club_id)
    _officer(club, by)
    membership = _member(club, user_id)
    if membership.role in OFFICERS:
        raise ClubError("officer", _("I consiglieri non possono essere zittiti nel circolo."))
    membership.chat_muted = muted
    membership.save(update_fields=["chat_muted"])
    return membership


# --- invite links (sign-up links of accounts, RULES 10.6, 12.4) ----------------------------------


def _links(club: Club):
    return SignupLink.objects.filter(purpose=LINK_PURPOSE, target_id=club.pk)


@locks.atomic
def invite_create(*, club_id: int, by, uses: int, days: int) -> SignupLink:
    """RULES 12.4: an officer makes an invite link, also a sign-up link, bounded by the
    officer's own limits as every sign-up link (RULES 10.6)."""
    club = _club_locked(club_id)
    _officer(club, by)
    try:
        return accounts.signup_link_create(
            maker=by, purpose=LINK_PURPOSE, target_id=club.pk, uses_limit=uses, days=days
        )
    except ValidationError as error:
        raise ClubError("link", " ".join(error.messages)) from None


@locks.atomic
def invite_revoke(*, club_id: int, by, link_id: int) -> bool:
    club = _club_locked(club_id)
    _officer(club, by)
    return bool(_links(club).filter(pk=link_id, revoked_at=None).update(revoked_at=timezone.now()))


def _link_state_message(state: str) -> str:
    return {
        "expired": _("Questo link d'invito è scaduto: chiedine uno nuovo al circolo."),
        "used_up": _("Questo link d'invito ha già raggiunto il numero massimo di iscrizioni."),
        "revoked": _("Questo link d'invito è stato revocato."),
    }.get(state, _("Questo link d'invito non esiste."))


@locks.atomic
def join_by_link(*, token: str, user, now=None) -> Membership:
    """A registered player follows an invite link: a member at once, counted on the link as a
    sign-up is (a conditional UPDATE: never past its bound), unless in another club."""
    _person(user)
    link = SignupLink.objects.filter(token=token, purpose=LINK_PURPOSE).first()
    if link is None:
        raise ClubError("link", _link_state_message("unknown"))
    club = _club_locked(link.target_id)
    _player_locked(user.pk)
    if selectors.membership_of(club_id=club.pk, user_id=user.pk) is not None:
        raise ClubError("member", _("Sei già socio di questo circolo."))
    _not_in_a_club(user.pk)
    now = now or timezone.now()
    if not User.objects.filter(pk=link.maker_id, is_active=True).exists():
        raise ClubError("link", _link_state_message("revoked"))
    counted = SignupLink.objects.filter(
        pk=link.pk, revoked_at=None, expires_at__gt=now, uses__lt=F("uses_limit")
    ).update(uses=F("uses") + 1)
    if not counted:
        link.refresh_from_db()
        raise ClubError("link", _link_state_message(link.state(now)))
    JoinRequest.objects.filter(user=user, status=RequestStatus.PENDING).update(
        status=RequestStatus.WITHDRAWN, decided_at=now, seen=True
    )
    return Membership.objects.create(club=club, user=user, joined_at=now)


def joined_through_link(*, user, link) -> None:
    """A new account signed up through a club's invite link (accounts.signup_links): a member
    at once, in the sign-up's transaction (a failure undoes the account and the link's use)."""
    try:
        club = _club_locked(link.target_id)
    except ClubError as error:  # the sign-up form shows it above its fields
        raise ValidationError({NON_FIELD_ERRORS: [error.message]}) from None
    Membership.objects.create(club=club, user=user, joined_at=timezone.now())


# --- the account's deletion (accounts.personal) -------------------------------------------------


def lock_for_deletion(user_id: int) -> None:
    """The deletion's locker: the player's club row (CLUB rank) before their user row."""
    current = selectors.current_membership(user_id=user_id)
    if current is not None:
        locks.lock_one(Club, current.club_id, locks.Rank.CLUB)


def erase_for_deletion(user) -> None:
    """The deletion's eraser: the membership ends (its row stays in the club's history, under
    the tombstone name); a president's club passes to its longest-serving officer, else its
    longest-standing member; a club left with nobody is dissolved. Requests go."""
    JoinRequest.objects.filter(user=user).delete()
    current = selectors.current_membership(user_id=user.pk)
    if current is None:
        return
    _end(current, EndReason.ACCOUNT_DELETED)
    if current.role != Role.PRESIDENT:
        return
    others = Membership.objects.filter(club_id=current.club_id, left_at=None)
    heir = (
        others.filter(role=Role.OFFICER).order_by("joined_at", "id").first()
        or others.order_by("joined_at", "id").first()
    )
    if heir is None:
        Club.objects.filter(pk=current.club_id).update(dissolved_at=timezone.now())
        _links(current.club).filter(revoked_at=None).update(revoked_at=timezone.now())
        return
    heir.role = Role.PRESIDENT
    heir.save(update_fields=["role"])
