"""Reminders before an event a player joined: a mail, a notice on the site's pages, and a
browser notification from any open tab of theirs (the player chooses each on the account page);
and the word that an event they joined was cancelled (RULES 11).

Beat's `events.reminders` looks, every few seconds, at the scheduled events of every kind that
start within the longest lead a player can choose (an hour). A player is reminded once their
own lead (10, 30 or 60 minutes; 30 by default) before the start, if they joined before that
moment (who joins inside their own lead has just read the start), or before the start was last
moved (the start they know is no longer the one). Each (player, event) gets one `Reminder` row,
whose unique constraint makes a tick run twice, or two ticks at once, remind once; a moved start
forgets the event's rows and drops its unsent reminder mails, so everyone is reminded of the new
start. The mails go through the outbox (mail/), one statement for a whole tournament, sent after
commit by the one mail sender, so the other timed work of the worker is not held up
(bench/reminders.py). A mail not sent before the start is dropped (`useful_until`).

A kind may write notices of its own in the same rows, under another `topic` (teams: a player
named in a line-up, the line-ups closed, RULES 11.4): they are shown with the reminders, said
by the kind's `notice_template`, kept when the start moves (with the new start) and forgotten
when the event is cancelled."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from accounts import emails
from accounts.models import REMIND_MINUTES, User
from events.kinds import EventKind, all_kinds, by_code
from events.models import START, Event, Reminder
from live import locks, messages
from live.locks import Rank, lock_rows
from live.pushes import user_changed_on_commit
from mail.models import Mail, Reason, Status
from mail.services import mail_queue_many

LEAD_MAX = timedelta(minutes=max(minutes for minutes, _label in REMIND_MINUTES))
# How long the notice of a cancelled event stays on the player's pages, unless closed.
CANCELLED_NOTICE = timedelta(days=1)


def reminders_due(*, now: datetime | None = None) -> int:
    """Remind everyone whose moment has come; return how many players were reminded."""
    now = now or timezone.now()
    reminded = 0
    for kind in all_kinds():
        if kind.entrants is None:
            continue
        events = list(
            kind.model.objects.filter(
                status=Event.Status.SCHEDULED, starts_at__gt=now, starts_at__lte=now + LEAD_MAX
            )
        )
        if events:
            reminded += _remind(kind, events, now)
    return reminded


def _remind(kind: EventKind, events: list, now: datetime) -> int:
    by_id = {event.pk: event for event in events}
    joined = {
        (event_id, player_id): joined_at for event_id, player_id, joined_at in kind.entrants(by_id)
    }
    # Those reminded already are left out before anything is locked or loaded: the tick sees
    # an event every 10 s for an hour, and most of them have nobody left to remind.
    already = _reminded(kind, by_id)
    joined = {pair: at for pair, at in joined.items() if pair not in already}
    if not joined:
        return 0
    players = User.objects.in_bulk({player_id for _event, player_id in joined})
    with locks.atomic():
        # The events' rows, held to the commit: two ticks at once remind in turn, and the
        # second finds the first one's rows (and a start moved meanwhile is read as it is now).
        locked = lock_rows(kind.model.objects.filter(pk__in=by_id).order_by("pk"), Rank.EVENT)
        by_id = {event.pk: event for event in locked if event.status == Event.Status.SCHEDULED}
        done = _reminded(kind, by_id)
        reminders = []
        for (event_id, player_id), joined_at in joined.items():
            player, event = players.get(player_id), by_id.get(event_id)
            if event is None or player is None or player.is_deleted or not player.is_active:
                continue
            if (event_id, player_id) in done:
                continue
            if not reminder_due(event, joined_at, player.remind_minutes, now):
                continue
            reminders.append(
                Reminder(
                    user=player,
                    kind=kind.code,
                    event_id=event_id,
                    name=event.name,
                    url=event.get_absolute_url(),
                    starts_at=event.starts_at,
                )
            )
        if not reminders:
            return 0
        Reminder.objects.bulk_create(reminders)
        mail_queue_many(
            _mail(r.user, kind, by_id[r.event_id])
            for r in reminders
            if r.user.remind_by_email and r.user.email_verified
        )
        user_changed_on_commit(
            [r.user_id for r in reminders if r.user.remind_on_site or r.user.remind_in_browser],
            messages.What.REMINDER,
        )
    return len(reminders)


def reminder_due(event, joined_at: datetime, lead_minutes: int, now: datetime) -> bool:
    """RULES 11.1-10.2: the player's moment (their lead before the start) has come and the
    start is news to them: they joined before that moment, or before the start was moved."""
    moment = event.starts_at - timedelta(minutes=lead_minutes)
    if now < moment or now >= event.starts_at:
        return False
    moved = event.start_moved_at
    return joined_at < moment or (moved is not None and joined_at < moved)


def start_moved(event) -> None:
    """RULES 11.2: the event's start moved (called in the transaction that moves it): its
    reminders are forgotten, notices with the old time go, and its reminder mails not yet sent
    are dropped, so everyone is reminded afresh of the new start. The kind's own notices (a
    line-up's, RULES 16.2) stay true: they say the new start."""
    code = event._meta.model_name
    shown = Reminder.objects.filter(kind=code, event_id=event.pk, cancelled_at=None)
    shown.filter(topic=START).delete()
    shown.update(starts_at=event.starts_at)
    _drop_reminder_mails(event)


def _drop_reminder_mails(event) -> None:
    code = event._meta.model_name
    Mail.objects.filter(
        reason=Reason.REMINDER, key__startswith=f"{code}:{event.pk}:", status=Status.PENDING
    ).update(status=Status.DROPPED)


def event_cancelled(event, *, by_id: int | None = None, now: datetime | None = None) -> int:
    """RULES 11.3: an event was cancelled (called in the cancelling transaction): each of its
    players is told on the site's pages (their notice, for a day or until closed, unless the
    kind's own pages say it: `EventKind.tells_cancellation`) and, if they chose reminder mails
    to a confirmed address, by mail; its reminders go. Returns how many were told; telling
    twice changes nothing."""
    kind = by_code(event._meta.model_name)
    if kind is None or kind.entrants is None:
        return 0
    now = now or timezone.now()
    player_ids = {player_id for _event, player_id, _at in kind.entrants([event.pk])}
    # Its reminders and every notice of it (the kind's own too) no longer hold, nor its
    # unsent reminder mails.
    Reminder.objects.filter(kind=kind.code, event_id=event.pk, cancelled_at=None).delete()
    _drop_reminder_mails(event)
    players = [
        p
        for p in User.objects.filter(pk__in=player_ids, is_active=True, deleted_at=None)
        if p.pk != by_id  # who cancelled it knows
    ]
    if not players:
        return 0
    mail_queue_many(
        _cancelled_mail(p, kind, event) for p in players if p.remind_by_email and p.email_verified
    )
    if kind.tells_cancellation:
        return len(players)  # its own pages say it, with the reason
    Reminder.objects.bulk_create(
        [
            Reminder(
                user=p,
                kind=kind.code,
                event_id=event.pk,
                name=event.name,
                url=event.get_absolute_url(),
                starts_at=event.starts_at,
                cancelled_at=now,
            )
            for p in players
        ],
        ignore_conflicts=True,  # told already: nothing new
    )
    user_changed_on_commit(
        [p.pk for p in players if p.remind_on_site or p.remind_in_browser],
        messages.What.REMINDER,
    )
    return len(players)


def _reminded(kind: EventKind, event_ids) -> set[tuple[int, int]]:
    return set(
        Reminder.objects.filter(kind=kind.code, event_id__in=event_ids, topic=START).values_list(
            "event_id", "user_id"
        )
    )


def _event_context(player: User, kind: EventKind, event) -> dict:
    return {
        "username": player.username,
        "event_name": event.name,
        "kind": kind.code,
        "starts_at": event.starts_at.isoformat(),
        "time_zone": settings.TOURNAMENT_DEFAULT_TIME_ZONE,
        "event_url": emails.absolute(event.get_absolute_url()),
        "calendar_url": emails.absolute(calendar_path(kind.code, event.pk)),
        "unsubscribe_url": emails.unsubscribe_url(player),
        "account_url": emails.absolute("/accounts/settings/"),
    }


def _mail(player: User, kind: EventKind, event) -> Mail:
    # One reminder per player and start: a moved start is reminded again.
    return Mail(
        user=player,
        reason=Reason.REMINDER,
        key=reminder_mail_key(kind.code, event),
        to=player.email,
        template="events/mail/reminder",
        language=player.language,
        useful_until=event.starts_at,
        context=_event_context(player, kind, event),
    )


def reminder_mail_key(code: str, event) -> str:
    return f"{code}:{event.pk}:{int(event.starts_at.timestamp())}"


def _cancelled_mail(player: User, kind: EventKind, event) -> Mail:
    return Mail(
        user=player,
        reason=Reason.CANCELLED,
        key=f"{kind.code}:{event.pk}",
        to=player.email,
        template="events/mail/cancelled",
        language=player.language,
        context=_event_context(player, kind, event),
    )


def calendar_path(code: str, pk: int) -> str:
    from django.urls import reverse

    return reverse("events:calendar", args=[code, pk])


def notices_for(user, *, now: datetime | None = None) -> list[Reminder]:
    """The notices a page shows the player, not closed: events not started yet, and events
    cancelled within the last day. A kind's own notice carries the kind's template to say it
    (`template`: None for a reminder or a cancellation)."""
    if not user.is_authenticated or not (user.remind_on_site or user.remind_in_browser):
        return []
    now = now or timezone.now()
    shown = Q(starts_at__gt=now, cancelled_at=None) | Q(cancelled_at__gt=now - CANCELLED_NOTICE)
    rows = list(
        Reminder.objects.filter(shown, user=user, dismissed=False).order_by("starts_at", "pk")[:5]
    )
    notices = []
    for row in rows:
        kind = by_code(row.kind)
        row.template = None if row.topic == START else kind and kind.notice_template
        if row.topic == START or row.template:
            notices.append(row)
    return notices
