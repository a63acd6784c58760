"""Reminders before an event a player joined: a mail, a notice on the site's pages, and a
browser notification from any open tab of theirs (the player chooses each on the account page).

Beat's `events.reminders` looks, every few seconds, at the scheduled events of every kind that
start within the longest lead a player can choose (an hour). A player is reminded once their
own lead (10, 30 or 60 minutes; 30 by default) before the start, and only if they joined more
than an hour before it: who joined ten minutes ago knows. Each (player, event) gets one
`Reminder` row, whose unique constraint makes a tick run twice, or two ticks at once, remind
once; the mails go through the outbox (mail/), one statement for a whole tournament, sent after
commit by the one mail sender, so the other timed work of the worker is not held up
(bench/reminders.py). A mail not sent before the start is dropped (`useful_until`)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from accounts import emails
from accounts.models import REMIND_MINUTES, User
from events.kinds import EventKind, all_kinds
from events.models import Event, Reminder
from live import locks, messages
from live.locks import Rank, lock_rows
from live.pushes import user_changed_on_commit
from mail.models import Mail, Reason
from mail.services import mail_queue_many

LEAD_MAX = timedelta(minutes=max(minutes for minutes, _label in REMIND_MINUTES))
JOINED_AHEAD = timedelta(hours=1)


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
    joined = [
        (event_id, player_id)
        for event_id, player_id, joined_at in kind.entrants(by_id)
        if joined_at <= by_id[event_id].starts_at - JOINED_AHEAD
    ]
    # Those reminded already are left out before anything is locked or loaded: the tick sees
    # an event every 10 s for an hour, and most of them have nobody left to remind.
    already = _reminded(kind, by_id)
    joined = [pair for pair in joined if pair not in already]
    if not joined:
        return 0
    players = User.objects.in_bulk({player_id for _event, player_id in joined})
    with locks.atomic():
        # The events' rows, held to the commit: two ticks at once remind in turn, and the
        # second finds the first one's rows.
        lock_rows(kind.model.objects.filter(pk__in=by_id).order_by("pk"), Rank.EVENT)
        done = _reminded(kind, by_id)
        reminders = []
        for event_id, player_id in joined:
            player, event = players.get(player_id), by_id[event_id]
            if player is None or player.is_deleted or not player.is_active:
                continue
            if (event_id, player_id) in done:
                continue
            if now < event.starts_at - timedelta(minutes=player.remind_minutes):
                continue  # their own moment has not come yet
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


def _reminded(kind: EventKind, event_ids) -> set[tuple[int, int]]:
    return set(
        Reminder.objects.filter(kind=kind.code, event_id__in=event_ids).values_list(
            "event_id", "user_id"
        )
    )


def _mail(player: User, kind: EventKind, event) -> Mail:
    return Mail(
        user=player,
        reason=Reason.REMINDER,
        key=f"{kind.code}:{event.pk}",
        to=player.email,
        template="events/mail/reminder",
        language=player.language,
        useful_until=event.starts_at,
        context={
            "username": player.username,
            "event_name": event.name,
            "kind": kind.code,
            "starts_at": event.starts_at.isoformat(),
            "time_zone": settings.TOURNAMENT_DEFAULT_TIME_ZONE,
            "event_url": emails.absolute(event.get_absolute_url()),
            "calendar_url": emails.absolute(calendar_path(kind.code, event.pk)),
            "unsubscribe_url": emails.unsubscribe_url(player),
            "account_url": emails.absolute("/accounts/settings/"),
        },
    )


def calendar_path(code: str, pk: int) -> str:
    from django.urls import reverse

    return reverse("events:calendar", args=[code, pk])


def notices_for(user, *, now: datetime | None = None) -> list[Reminder]:
    """The reminders a page shows the player: events not started yet, not dismissed."""
    if not user.is_authenticated or not (user.remind_on_site or user.remind_in_browser):
        return []
    now = now or timezone.now()
    return list(
        Reminder.objects.filter(user=user, starts_at__gt=now, dismissed=False).order_by(
            "starts_at"
        )[:5]
    )
