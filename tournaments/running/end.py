"""The end of a tournament (RULES 4.9, 4.10, 7.1): final standings and the rating of the event as
one period; a running tournament cancelled by staff."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from events import ending
from games.models import Game
from games.models import Status as GameStatus
from ratings.services import FinishedTournament, finished_game_of, tournament_rate
from tournaments.broadcast import (
    changed_on_commit,
    players_changed_on_commit,
)
from tournaments.models import EndReason, Participant, Tournament
from tournaments.selectors import annulled_player_ids, final_standings, game_ids


def _tournament_finish(tournament: Tournament, reason: str, now: datetime) -> None:
    """Close, cache the final standings and tiebreaks, rate the tournament as one period."""
    rnd = tournament.rounds.filter(number=tournament.current_round).first()
    if rnd is not None and rnd.ended_at is None:
        rnd.ended_at = now
        rnd.save(update_fields=["ended_at"])
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.end_reason = reason
    tournament.next_due_at = None
    tournament.save(update_fields=["status", "finished_at", "end_reason", "next_due_at"])
    participants = {p.number: p for p in tournament.participants.all()}
    standings = final_standings(tournament)
    for standing in standings:
        p = participants[standing.player]
        p.rank = standing.rank
        p.points = standing.points
        p.buchholz_cut1 = standing.buchholz_cut1
        p.sonneborn_berger = standing.sonneborn_berger
        p.wins = standing.wins
    Participant.objects.bulk_update(
        participants.values(), ["rank", "points", "buchholz_cut1", "sonneborn_berger", "wins"]
    )
    finished = Game.objects.filter(
        pk__in=game_ids(tournament), status=GameStatus.FINISHED
    ).order_by("pk")
    annulled = annulled_player_ids(tournament)

    def rated_as(game: Game):
        described = finished_game_of(game)
        if annulled & {game.white_id, game.black_id}:
            # RULES 15.5: no game against an annulled player is rated, for either side.
            return dataclasses.replace(described, forfeit=True)
        return described

    tournament_rate(
        tournament=FinishedTournament(
            tournament_id=tournament.pk,
            variant=tournament.variant,
            time_control=tournament.time_control,
            rated=tournament.rated,
            games=[rated_as(g) for g in finished],
            start_ratings={p.player_id: p.start_rating for p in participants.values()},
            # REI art. 11, RULES 7.1: whoever finishes first never loses points, ex aequo
            # included: every player with the winner's points, whatever the tiebreaks say.
            first_place=frozenset(
                participants[s.player].player_id
                for s in standings
                if standings and s.points == standings[0].points
            ),
        )
    )
    changed_on_commit(tournament.pk, tournament.current_round)


def cancel_running(tournament: Tournament, now: datetime) -> None:
    """Staff cancel a running tournament (the admin action); the caller holds the row lock.

    The status is written first, so `game_finished` for the games ended here (delivered after
    commit) finds the tournament no longer running and scores nothing. Every game still live is
    ended at once as a draw (`game_end_by_event`, reason event_end); no round is paired after
    this, no standings are computed and nothing is rated (only `_tournament_finish` rates).
    """
    tournament.status = Tournament.Status.CANCELLED
    tournament.cancelled_at = now
    tournament.end_reason = EndReason.BY_STAFF
    tournament.next_due_at = None
    tournament.save(update_fields=["status", "cancelled_at", "end_reason", "next_due_at"])
    ending.end_live_games(tournament, now=now, rated=False)
    rnd = tournament.rounds.filter(number=tournament.current_round, ended_at__isnull=True).first()
    if rnd is not None:
        rnd.ended_at = now
        rnd.save(update_fields=["ended_at"])
    changed_on_commit(tournament.pk, tournament.current_round)
    players_changed_on_commit(tournament.participants.values_list("player_id", flat=True))
