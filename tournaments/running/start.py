"""The start (RULES 4.3, 4.4): present players, the format and rounds chosen, the ratings of the
start, numbers by lot or rating, round 1 opened."""

from __future__ import annotations

import random
from datetime import datetime

from django.utils import timezone

from events import reminders
from events.pairing import model
from events.pairing.rounds import ROUND_ROBIN, plan_tournament
from live import locks
from ratings.selectors import ratings_snapshot
from tournaments.broadcast import (
    changed_on_commit,
    players_changed_on_commit,
)
from tournaments.models import EndReason, Participant, Tournament

from .common import _locked, _reschedule, round_slot
from .rounds import _round_open


@locks.atomic
def tournament_start(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Start the tournament if it is due and still scheduled; returns whether it did anything.

    Below the minimum it cancels itself (the page says why); otherwise it fixes format and
    rounds (RULES 4.4), numbers the players, announces the end (RULES 4.9) and pairs round 1.
    """
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament.status != Tournament.Status.SCHEDULED or now < tournament.starts_at:
        return False
    registrations = list(tournament.registrations.select_related("player").order_by("id"))
    if len(registrations) < tournament.minimum:
        tournament.status = Tournament.Status.CANCELLED
        tournament.cancelled_at = now
        tournament.end_reason = EndReason.BELOW_MINIMUM
        tournament.next_due_at = None
        tournament.save(update_fields=["status", "cancelled_at", "end_reason", "next_due_at"])
        changed_on_commit(tournament.pk, 0)
        # RULES 4.3: the players are told, and so is the opener, joined or not.
        players_changed_on_commit([*(r.player_id for r in registrations), tournament.opened_by_id])
        reminders.event_cancelled(tournament, now=now)  # RULES 11.3
        return True
    plan = plan_tournament(
        len(registrations),
        threshold=tournament.threshold,
        extra=tournament.extra_round,
        double=tournament.double_games,
    )
    ratings = ratings_snapshot(  # RULES 7.1: the ratings of the start
        player_ids=[r.player_id for r in registrations],
        variant=tournament.variant,
        cadence=tournament.cadence,
    )
    lot = random.SystemRandom()
    if plan.format == ROUND_ROBIN:
        order = list(registrations)
        lot.shuffle(order)  # RULES 5.1: Berger numbers by lot
    else:  # RULES 5.2: rating descending, then username
        order = sorted(
            registrations, key=lambda r: (-ratings[r.player_id], r.player.username.lower())
        )
    Participant.objects.bulk_create(
        Participant(
            tournament=tournament,
            player_id=r.player_id,
            number=number,
            start_rating=ratings[r.player_id],
        )
        for number, r in enumerate(order, start=1)
    )
    tournament.format = plan.format
    tournament.total_rounds = plan.rounds
    tournament.legs = 2 if plan.double else 1
    if plan.double and not tournament.double_games and tournament.rated_switched_off:
        # RULES 7.3 Decision: four players force double games (RULES 4.4), which makes fair the
        # openings that had made the tournament casual: it becomes rated at the start, with no
        # floor (a casual tournament has none), and its page says so.
        tournament.rated, tournament.rated_switched_off = True, False
        tournament.rated_by_double_games = True
    # Lim 10.5: the colour of #1 in round 1, by lot — a Swiss's. A round robin's colours are
    # the Berger table's, #1 first-named, White, in round 1 (RULES 5.1): its TRF says so (152).
    tournament.first_colour = (
        model.WHITE if plan.format == ROUND_ROBIN else lot.choice((model.WHITE, model.BLACK))
    )
    tournament.seed = lot.randrange(2**62)
    tournament.started_at = now
    tournament.announced_end = now + plan.rounds * round_slot(tournament)
    tournament.status = Tournament.Status.RUNNING
    tournament.save()
    rnd = _round_open(tournament, 1, now)
    _reschedule(tournament, rnd)
    changed_on_commit(tournament.pk, 1)
    return True
