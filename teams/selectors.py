"""Reading team matches (RULES §16) for their pages and for the other apps' registries."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from events.top_boards import TopBoard, TopBoards
from games.commitments import Commitment
from games.models import Status as GameStatus
from games.selectors import board_geometry
from ratings.selectors import ratings_at, ratings_snapshot
from teams import rules
from teams.models import Availability, Lineup, LineupEntry, TeamMatch, expected_end

# How far ahead a match warns its players in the lobby (as a tournament's start, RULES 4.7).
SOON = timedelta(hours=2)


def commitments_of(club_id: int, user_id: int) -> list[str]:
    """RULES 16.6: the club's matches not over in whose line-up the player is named (they stay
    a member until it is over, RULES 12.3)."""
    return list(
        LineupEntry.objects.filter(lineup__club_id=club_id, player_id=user_id)
        .exclude(lineup__match__status__in=[TeamMatch.Status.FINISHED, TeamMatch.Status.CANCELLED])
        .values_list("lineup__match__name", flat=True)
        .order_by("lineup__match__starts_at")
    )


def match_named_during(player_id: int, start, end) -> str | None:
    """RULES 16.6, one board at a time (§1): the name of a match not over in whose line-up
    (reserves too) the player is named and whose time, from its start to its expected end,
    overlaps [start, end); else None. The tournaments' join and the arena's entry ask it
    through `events.commitments`. One query, the window in SQL."""
    return (
        LineupEntry.objects.filter(player_id=player_id, lineup__match__starts_at__lt=end)
        .exclude(lineup__match__status__in=[TeamMatch.Status.FINISHED, TeamMatch.Status.CANCELLED])
        .alias(match_end=expected_end("lineup__match__"))
        .filter(match_end__gt=start)
        .order_by("lineup__match__starts_at", "lineup__match_id")
        .values_list("lineup__match__name", flat=True)
        .first()
    )


@dataclass(frozen=True)
class BoardLeg:
    """One game of a board as the match page shows it (RULES 16.3: two with double games):
    its game, if one was opened (none for a forfeit or an empty board, RULES 16.4), the two
    sides' board points once scored, and the players' names, first side first, that name its
    link for a screen reader."""

    number: int
    game_id: int | None
    first: int | None
    second: int | None
    first_name: str
    second_name: str


def match_boards(match: TeamMatch) -> list:
    """The boards of a started match, in order, with their players and games; each carries
    `legs`, its games as `BoardLeg`s (the second only once opened)."""
    boards = list(
        match.board_rows.select_related(
            "first_player",
            "second_player",
            "game1__white",
            "game1__black",
            "game2__white",
            "game2__black",
        ).order_by("number")
    )
    empty = _("vuota")
    for board in boards:
        names = (
            board.first_player.username if board.first_player else empty,
            board.second_player.username if board.second_player else empty,
        )
        board.legs = [
            BoardLeg(n, getattr(board, f"game{n}_id"), *board.points(n), *names)
            for n in range(1, match.legs + 1)
            if n == 1 or getattr(board, f"game{n}_id") or board.points(n)[0] is not None
        ]
    return boards


def soon_commitments_of(user_id: int) -> list[Commitment]:
    """RULES 16.4, 16.6: the matches starting within `SOON` in whose line-up the player is
    named, or for which they said they are available, so that the lobby and the challenge
    notices warn before they take on another game. One query."""
    now = timezone.now()
    matches = (
        TeamMatch.objects.filter(
            Q(lineups__entries__player_id=user_id) | Q(availabilities__player_id=user_id),
            status=TeamMatch.Status.SCHEDULED,
            starts_at__lte=now + SOON,
        )
        .distinct()
        .order_by("starts_at", "pk")
    )
    found = []
    for match in matches:
        at = formats.time_format(timezone.localtime(match.starts_at), "TIME_FORMAT")
        found.append(
            Commitment(
                event=match.name,
                url=match.get_absolute_url(),
                due_at=match.starts_at,
                warning=_(
                    "L'incontro a squadre «%(name)s» inizia alle %(time)s: se a quell'ora sei in "
                    "un'altra partita, non giochi e la tua scacchiera passa a chi ti segue "
                    "(regola 16.4)."
                )
                % {"name": match.name, "time": at},
            )
        )
    return found


def live_boards(match: TeamMatch, boards: list) -> TopBoards:
    """RULES 16.4: each board's game being played, small and moving on the match's page, by
    its board number (a match has at most 12 boards and one live game on each: at most 12
    game sockets on the page)."""
    shown = []
    for board in boards:
        game = board.game2 if board.game2_id else board.game1
        if game is None or game.status != GameStatus.LIVE:
            continue
        shown.append(
            TopBoard(
                number=board.number,
                game_id=game.pk,
                white=game.white.username,
                black=game.black.username,
                fen=game.fen,
                last_move=game.moves[-1] if game.moves else "",
            )
        )
    return TopBoards(
        boards=shown, variant=match.variant, geometry_json=json.dumps(board_geometry(match.variant))
    )


def side_order(match: TeamMatch, side: int) -> list[int]:
    """RULES 16.2: the side's line-up in the order it plays: the saved one, judged with the
    ratings at the deadline (in rating order of its players if no longer in order); without
    one, the members who said they are available, in rating order at the deadline (who said
    first among equals), at most 2N."""
    lineup = Lineup.objects.filter(match=match, side=side).first()
    if lineup is not None:
        order = list(lineup.entries.order_by("place").values_list("player_id", flat=True))
    else:
        order = list(
            Availability.objects.filter(match=match, side=side)
            .order_by("said_at", "pk")
            .values_list("player_id", flat=True)
        )
    if not order:
        return []
    at_deadline = ratings_at(
        player_ids=order, variant=match.variant, cadence=match.cadence, at=match.lineup_deadline
    )
    if lineup is None or rules.out_of_order([at_deadline[p] for p in order]) is not None:
        order = rules.rating_order(order, lambda p: at_deadline[p])
    return order[: 2 * match.boards]


def members_rated(match: TeamMatch, side: int) -> list[tuple[int, str, int]]:
    """The side's club's members now (RULES 16.8: its team's roster in a league), best-rated
    first in the match's variant and cadence (RULES 16.2: the rating a line-up is checked
    with), as (id, username, rating). Two queries (three in a league)."""
    from clubs.models import Membership

    rows = list(
        Membership.objects.filter(
            club_id=match.club_of_side(side), left_at__isnull=True
        ).values_list("user_id", "user__username")
    )
    roster = roster_of(match, side)  # RULES 16.8: a league match names its team's roster
    if roster is not None:
        rows = [row for row in rows if row[0] in roster]
    ratings = ratings_snapshot(
        player_ids=[pk for pk, _name in rows], variant=match.variant, cadence=match.cadence
    )
    rated = [(pk, name, ratings[pk]) for pk, name in rows]
    return sorted(rated, key=lambda row: (-row[2], row[1].lower()))


def available_players(match: TeamMatch, side: int) -> list[tuple[int, str]]:
    """RULES 16.2: the members who said they are available for the side, in the order they
    said it (the order a late line-up takes among equal ratings), as (id, username). For the
    side's captains: the page shows it to its club's officers only. One query."""
    return list(
        Availability.objects.filter(match=match, side=side)
        .order_by("said_at", "pk")
        .values_list("player_id", "player__username")
    )


def saved_lineup(match: TeamMatch, side: int) -> list[LineupEntry]:
    return list(
        LineupEntry.objects.filter(lineup__match=match, lineup__side=side)
        .select_related("player")
        .order_by("place")
    )


def club_matches(club_id: int) -> list:
    """RULES 12.5, 16: the club's matches (the latest 50), with the score from its side once
    started, for the club's page and calendar (`clubs.registry`): board points as every page
    shows them, 1 a win, ½ a draw (RULES 16.5)."""
    from events.club_events import club_event

    found = []
    matches = (
        TeamMatch.objects.filter(Q(first_club_id=club_id) | Q(second_club_id=club_id))
        .exclude(status=TeamMatch.Status.CANCELLED)
        .select_related("first_club", "second_club", "first_team", "second_team")
        .order_by("-starts_at", "-pk")[:50]
    )
    for match in matches:
        result = ""
        if match.status != TeamMatch.Status.SCHEDULED and len(match.sides_of_club(club_id)) == 2:
            # RULES 16.8: two teams of the club met: the score as the match names them.
            result = _("%(first)s %(a)s – %(b)s %(second)s.") % {
                "first": match.side_name(1),
                "a": rules.board_points_label(match.first_points),
                "b": rules.board_points_label(match.second_points),
                "second": match.side_name(2),
            }
        elif match.status != TeamMatch.Status.SCHEDULED:
            first = match.side_of(club_id) == 1
            mine, theirs = (
                (match.first_points, match.second_points)
                if first
                else (match.second_points, match.first_points)
            )
            result = _("%(mine)s – %(theirs)s contro «%(other)s».") % {
                "mine": rules.board_points_label(mine),
                "theirs": rules.board_points_label(theirs),
                "other": match.side_name(2 if first else 1),
            }
        found.append(club_event(match, kind="teammatch", result=result))
    return found


def roster_of(match: TeamMatch, side: int) -> set[int] | None:
    """RULES 16.8: the roster for the season of the side's team in a league match; None for a
    friendly match (every member of the club may play)."""
    from teams.models import LeagueMember

    if match.league_round_id is None:
        return None
    team_id = match.first_team_id if side == 1 else match.second_team_id
    return set(LeagueMember.objects.filter(team_id=team_id).values_list("player_id", flat=True))
