"""What a team match tells people (RULES 11.4, 16.2), through the site's event notices
(`events.models.Reminder` rows of the teams' own topics, said by `teams/_notice.html`, a
"reminder" push to their open pages, a browser notification from an open tab — each as the
player chose on the account page, RULES 11) and, for a player named, the outbox (mail/).

- **Named in a line-up**: written in the transaction that saves the line-up (`lineup_saved`,
  called by `services.lineup_set` under the match's row lock), so a line-up saved is a notice
  written, and a line-up refused writes none. A player is told when they come into their club's
  line-up: saving it again with them in tells them nothing more (a new place only changes what
  their notice says); taken out, their notice goes, and named again they are told again.
- **The line-ups closed**, to each club's officers at the deadline (`lineups_closed_due`, from
  the teams tick): the match row is locked, its notices written and
  `TeamMatch.lineups_closed_told_at` set in one transaction, so a tick run twice, or two at
  once, tells once, and a crash before the commit tells nothing and the next tick tells; the
  pushes after commit are only a hurry (the notices' fragment also polls).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model

from accounts import emails
from clubs.models import OFFICERS, Club, Membership
from events.models import Reminder
from live import locks, messages, pushes
from mail.models import Mail, Reason, Status
from mail.services import mail_queue_many
from teams import broadcast
from teams.models import LINEUP_DEADLINE, TeamMatch

User = get_user_model()

KIND = "teammatch"  # the kind's code (events.kinds): the notices' rows are the match's
NAMED = "named"  # RULES 11.4: a player named in their club's line-up
CLOSED = "closed"  # RULES 11.4: the line-ups closed, to the clubs' officers


def _detail(match: TeamMatch, **more) -> dict:
    # The sides' names: the teams' in a league (two of one club may meet, RULES 16.8).
    return {"first": match.side_name(1), "second": match.side_name(2), **more}


def _place(match: TeamMatch, place: int) -> dict:
    """Board k, or reserve k (places after the N boards, RULES 16.2)."""
    if place <= match.boards:
        return {"board": place}
    return {"reserve": place - match.boards}


def _notice(match: TeamMatch, user_id: int, topic: str, detail: dict) -> Reminder:
    return Reminder(
        user_id=user_id,
        kind=KIND,
        event_id=match.pk,
        topic=topic,
        name=match.name,
        url=match.get_absolute_url(),
        starts_at=match.starts_at,
        detail=detail,
    )


def _mail_key_prefix(match: TeamMatch) -> str:
    return f"teammatch-named:{match.pk}:"


def lineup_saved(
    *,
    match: TeamMatch,
    before: dict[int, int],
    player_ids: Sequence[int],
    by_id: int | None,
    now: datetime,
) -> list[int]:
    """RULES 11.4: the club's line-up was saved (called in the saving transaction, after its
    entries): `before` is who was in it and where (player id -> place), `player_ids` the new
    order. The players who come into it are told (not the captain who saved it: they know);
    those who stay see their notice say their place now; those taken out lose their notice,
    and their mail if it is not sent yet. Returns the players told."""
    places = {player_id: place for place, player_id in enumerate(player_ids, start=1)}
    gone = [p for p in before if p not in places]
    stayed = [p for p in places if p in before and before[p] != places[p]]
    told = [p for p in places if p not in before and p != by_id]
    mine = Reminder.objects.filter(kind=KIND, event_id=match.pk, topic=NAMED)
    if gone:
        mine.filter(user_id__in=gone).delete()
        Mail.objects.filter(
            user_id__in=gone,
            reason=Reason.CLUB,
            key__startswith=_mail_key_prefix(match),
            status=Status.PENDING,
        ).update(status=Status.DROPPED)
    for player_id in stayed:
        mine.filter(user_id=player_id).update(
            detail=_detail(match, **_place(match, places[player_id]))
        )
    if told:
        players = list(
            User.objects.filter(pk__in=told).only(
                "pk", "username", "email", "email_verified_at", "language", "remind_by_email"
            )
        )
        # A row left for one of them (named by another club before they changed clubs) is
        # kept as it is: one notice per player and match.
        Reminder.objects.bulk_create(
            [
                _notice(match, p.pk, NAMED, _detail(match, **_place(match, places[p.pk])))
                for p in players
            ],
            ignore_conflicts=True,
        )
        # RULES 11.4 Decision: by mail too, as a cancellation or a club's decision, to those
        # who chose reminder mails, at a confirmed address (the outbox refuses the rest).
        mail_queue_many(
            _named_mail(p, match, places[p.pk], now)
            for p in players
            if p.remind_by_email and p.email_verified
        )
    pushes.user_changed_on_commit([*told, *stayed, *gone], messages.What.REMINDER)
    return told


def _named_mail(player, match: TeamMatch, place: int, now: datetime) -> Mail:
    return Mail(
        user=player,
        reason=Reason.CLUB,
        # Once per time they are named: named again after being taken out, mailed again.
        key=f"{_mail_key_prefix(match)}{int(now.timestamp() * 1000)}",
        to=player.email,
        template="teams/mail/named",
        language=player.language,
        useful_until=match.starts_at,
        context={
            "username": player.username,
            "event_name": match.name,
            "first_club": match.side_name(1),
            "second_club": match.side_name(2),
            **_place(match, place),
            "starts_at": match.starts_at.isoformat(),
            "deadline": match.lineup_deadline.isoformat(),
            "time_zone": settings.TOURNAMENT_DEFAULT_TIME_ZONE,
            "event_url": emails.absolute(match.get_absolute_url()),
            "unsubscribe_url": emails.unsubscribe_url(player),
            "account_url": emails.absolute("/accounts/settings/"),
        },
    )


def lineups_closed_due(*, now: datetime) -> list[int]:
    """The teams tick: tell the officers of the matches whose line-ups have closed (the deadline
    passed, not started yet) and who were not told. The matches are read by the index on
    (status, start): those starting within `LINEUP_DEADLINE`. Returns the matches told."""
    due = (
        TeamMatch.objects.filter(
            status=TeamMatch.Status.SCHEDULED,
            starts_at__gt=now,
            starts_at__lte=now + LINEUP_DEADLINE,
            lineups_closed_told_at=None,
        )
        .order_by("starts_at", "pk")
        .values_list("pk", flat=True)
    )
    return [match_id for match_id in list(due) if lineups_closed_tell(match_id=match_id, now=now)]


def lineups_closed_tell(*, match_id: int, now: datetime) -> bool:
    """RULES 11.4, 16.2: the line-ups of the match closed: both are now shown to both clubs; each
    club's officers (its captains, at this moment) are told, once. False when there is nothing
    to tell: told already, not scheduled (started, cancelled), before the deadline."""
    with locks.atomic():
        try:
            match = locks.lock_one(TeamMatch, match_id, locks.Rank.EVENT)
        except TeamMatch.DoesNotExist:
            return False
        if (
            match.lineups_closed_told_at is not None
            or match.status != TeamMatch.Status.SCHEDULED
            or not match.lineup_deadline <= now < match.starts_at
        ):
            return False
        clubs = Club.objects.in_bulk(match.club_ids())
        match.first_club, match.second_club = (
            clubs[match.first_club_id],
            clubs[match.second_club_id],
        )
        officers = list(
            Membership.objects.filter(
                club_id__in=match.club_ids(),
                left_at__isnull=True,
                role__in=OFFICERS,
                user__is_active=True,
                user__deleted_at=None,
            ).values_list("user_id", flat=True)
        )
        Reminder.objects.bulk_create(
            [_notice(match, user_id, CLOSED, _detail(match)) for user_id in officers],
            ignore_conflicts=True,
        )
        match.lineups_closed_told_at = now
        # The match's open pages re-fetch: both line-ups show from now on.
        broadcast.changed_on_commit(match)
        match.save(update_fields=["lineups_closed_told_at", "version"])
        pushes.user_changed_on_commit(officers, messages.What.REMINDER)
    return True


def match_forfeited(match: TeamMatch) -> None:
    """RULES 16.8: a league match lost whole by a withdrawn team is not played: its notices go
    (named, closed, reminders), and the named players' mails not sent yet."""
    Reminder.objects.filter(kind=KIND, event_id=match.pk).delete()
    Mail.objects.filter(
        reason=Reason.CLUB, key__startswith=_mail_key_prefix(match), status=Status.PENDING
    ).update(status=Status.DROPPED)
