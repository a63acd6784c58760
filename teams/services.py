"""Writing team matches (RULES §16): opening one, the clubs' line-ups and their members'
availability, the start (each board's games opened, empty boards forfeited), the scoring as
games end, a cancellation. Keyword-only, typed, each in one transaction (STYLE 2).

Locking contract (`live.locks`)
-------------------------------
Every write on a match locks its row first (EVENT rank), then the club row it acts for (CLUB),
then the players' user rows (USER, ascending id). So two officers of one club saving its
line-up at once queue on the match row and the last one saved is the club's, whole; a line-up
saved as the start comes is either in before the start reads it or refused (the match has
started); a member leaving the club (`clubs.services`, CLUB then USER) while named in a line-up
queues on the club row: the leave finds the line-up (`registry.commitments_of`), or the line-up
finds no membership. Opening a match locks both club rows (ascending id) then the opener's user
row (one live event per person, RULES 1). The start locks the match, then every named player's
user row, then opens the games (`games.services.games_open`, which locks them again, a no-op,
and its games rows): a challenge accepted for one of them meanwhile waits, and is refused or
comes first (then that player is left out, RULES 16.4). A step run twice does nothing twice:
the start does nothing once the match is no longer scheduled, a game already scored is not
scored again.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.services import account_open
from clubs import selectors as clubs
from clubs.models import OFFICERS, Club, Membership
from events import kinds, reminders
from events import options as event_options
from events import services as events
from events.ending import end_live_games
from events.openings import draw_opening
from games import services as games
from games.models import EndReason as GameEndReason
from games.models import Game, GameResult
from games.models import Status as GameStatus
from live import locks, messages, pushes
from ratings.selectors import ratings_snapshot
from teams import broadcast, notices, rules, selectors
from teams.models import (
    START_MAX,
    START_MIN,
    Availability,
    Board,
    League,
    Lineup,
    LineupEntry,
    TeamMatch,
    expected_end,
)

User = get_user_model()

POINTS = {  # RULES 16.5 (as RULES 4.6), per game, (white, black)
    GameResult.WHITE_WINS: (rules.WIN, rules.LOSS),
    GameResult.BLACK_WINS: (rules.LOSS, rules.WIN),
    GameResult.DRAW: (rules.DRAW, rules.DRAW),
    GameResult.NOBODY_SCORES: (0, 0),
}


TeamError = events.EventError  # the refusals of every event kind are one class (events.services)


@dataclass(frozen=True)
class MatchData:
    """What the opener chose, already checked field by field by a form (or a test)."""

    name: str
    second_club_id: int
    boards: int
    variant: str
    base_seconds: int
    increment_seconds: int
    starts_at: datetime
    double_games: bool = False
    rated: bool = True
    opening_mode: str = event_options.OpeningMode.FREE.value
    thematic_opening: int | None = None
    description: str = ""


# --- locks and checks ----------------------------------------------------------------------------


def _match_locked(match_id: int) -> TeamMatch:
    try:
        return locks.lock_one(TeamMatch, match_id, locks.Rank.EVENT)
    except (TeamMatch.DoesNotExist, ValueError, TypeError):
        raise TeamError("missing", _("Questo incontro non esiste.")) from None


def _club_playable(club: Club | None) -> Club:
    """RULES 16.1: a club that exists, is not dissolved and not hidden by the staff."""
    if club is None:
        raise TeamError("club_missing", _("Questo circolo non esiste."))
    if club.dissolved_at is not None:
        raise TeamError(
            "club_dissolved", _("Il circolo «%(club)s» è stato sciolto.") % {"club": club}
        )
    if club.hidden:
        # A hidden club is invited by nobody (RULES 12.7, 12.1): named as unknown to outsiders.
        raise TeamError("club_missing", _("Questo circolo non esiste."))
    return club


def _captain(match: TeamMatch, user, side: int | None = None) -> int:
    """RULES 16.2: the side of the match whose line-up `user` saves, as an officer of its club
    (their one club, RULES 12.3). When two teams of their club meet (RULES 16.8) they say which
    (`side`); else it is their club's."""
    membership = clubs.current_membership(user_id=getattr(user, "pk", None))
    sides = match.sides_of_club(getattr(membership, "club_id", None))
    if not sides or membership.role not in OFFICERS:
        raise TeamError(
            "not_captain",
            _("Solo i consiglieri dei due circoli possono schierarne la formazione."),
        )
    if side is None and len(sides) == 1:
        return sides[0]
    if side not in sides:
        raise TeamError(
            "which_side", _("Scegli di quale delle due squadre del circolo è la formazione.")
        )
    return side


def _before_deadline(match: TeamMatch, now: datetime) -> None:
    if match.status != TeamMatch.Status.SCHEDULED:
        raise TeamError(
            "not_scheduled",
            _("L'incontro è già iniziato.")
            if match.status == TeamMatch.Status.RUNNING
            else _("L'incontro è concluso o annullato."),
        )
    if now >= match.lineup_deadline:
        raise TeamError(
            "deadline",
            _("Le formazioni sono chiuse: la scadenza era alle %(time)s.")
            % {"time": timezone.localtime(match.lineup_deadline).strftime("%H:%M")},
        )


def _committed_elsewhere(match: TeamMatch, player_ids: Sequence[int]) -> dict[int, str]:
    """RULES 16.6: for each of these players, the name of an event not over whose time
    overlaps the match's that they are in (registered, entered, in another match's line-up).
    Read from the players' side: each kind's `busy` (events.kinds) and the other matches'
    line-ups, the window (start before the match's end, expected end after its start) in SQL
    by the players' own rows, never every live event."""
    start, end = match.starts_at, match.calendar_end()
    wanted = list(player_ids)
    found: dict[int, str] = {}
    for kind in kinds.all_kinds():
        if kind.busy is not None and kind.model is not TeamMatch:
            for player_id, name in kind.busy(wanted, start, end).items():
                found.setdefault(player_id, name)
    others = (
        LineupEntry.objects.filter(player_id__in=wanted, lineup__match__starts_at__lt=end)
        .exclude(lineup__match=match)
        .exclude(lineup__match__status__in=[TeamMatch.Status.FINISHED, TeamMatch.Status.CANCELLED])
        .alias(match_end=expected_end("lineup__match__"))
        .filter(match_end__gt=start)
        .order_by("lineup__match__starts_at", "lineup__match_id")
        .values_list("player_id", "lineup__match__name")
    )
    for player_id, name in others:
        found.setdefault(player_id, name)
    return found


# --- opening, cancelling ---------------------------------------------------------------------------


def match_create(*, by, first_club_id: int, data: MatchData, now: datetime | None = None):
    """RULES 16.1: an officer of the first-named club opens a match against another club."""
    now = now or timezone.now()
    if data.second_club_id == first_club_id:
        raise TeamError("same_club", _("Un circolo non gioca contro sé stesso."))
    if not rules.BOARDS_MIN <= data.boards <= rules.BOARDS_MAX:
        raise TeamError(
            "boards",
            _("Le scacchiere sono da %(low)d a %(high)d.")
            % {"low": rules.BOARDS_MIN, "high": rules.BOARDS_MAX},
        )
    if not now + START_MIN <= data.starts_at <= now + START_MAX:
        raise TeamError("starts_at", _("L'incontro inizia tra un'ora e trenta giorni da adesso."))
    with locks.atomic():
        rows = {
            c.pk: c
            for c in locks.lock_rows(
                Club.objects.filter(pk__in=[first_club_id, data.second_club_id]), locks.Rank.CLUB
            )
        }
        first = _club_playable(rows.get(first_club_id))
        second = _club_playable(rows.get(data.second_club_id))
        if not clubs.is_officer(club_id=first.pk, user_id=getattr(by, "pk", None)):
            raise TeamError(
                "not_officer",
                _("Solo i consiglieri del circolo «%(club)s» possono aprire questo incontro.")
                % {"club": first.name},
            )
        events.opener_lock_and_check(by)  # RULES 1: one live event per person
        match = TeamMatch(
            opened_by=by,
            first_club=first,
            second_club=second,
            boards=data.boards,
            legs=2 if data.double_games else 1,
            seed=random.SystemRandom().getrandbits(62),
        )
        events.apply_options(
            match,
            events.EventOptions(
                name=data.name,
                description=data.description,
                variant=data.variant,
                base_seconds=data.base_seconds,
                increment_seconds=data.increment_seconds,
                starts_at=data.starts_at,
                opening_mode=data.opening_mode,
                thematic_opening=data.thematic_opening,
                rated=data.rated,
                floor=None,  # RULES 16.1: no floor
                password="",
            ),
            double_games=data.double_games,
        )
        match.full_clean()
        match.save()
    return match


def match_cancel(
    *, match_id: int, by, staff: bool = False, now: datetime | None = None
) -> TeamMatch:
    """RULES 16.1 Decision: before the start, its organizer or an officer of either club; the
    staff (the admin's action) whenever it is live: the games still being played are then
    ended by the event, drawn and not rated, and nothing more is scored."""
    now = now or timezone.now()
    with locks.atomic():
        match = _match_locked(match_id)
        if staff:
            if not match.is_live:
                raise TeamError("closed", _("L'incontro è concluso o annullato."))
            cancelled(match, by_id=getattr(by, "pk", None), now=now)
            end_live_games(match, now=now, rated=False)
            return match
        if match.status != TeamMatch.Status.SCHEDULED:
            raise TeamError("not_scheduled", _("Solo un incontro non ancora iniziato si annulla."))
        if match.league_round_id is not None:
            # RULES 16.8: a league's match is the league's: a team withdraws, the league is
            # cancelled, or the staff cancel it; no captain takes it off the calendar.
            raise TeamError(
                "league_match", _("Un incontro di campionato non si annulla: è del campionato.")
            )
        by_id = getattr(by, "pk", None)
        if by_id != match.opened_by_id and not any(
            clubs.is_officer(club_id=club_id, user_id=by_id) for club_id in match.club_ids()
        ):
            raise TeamError(
                "not_officer", _("Solo i consiglieri dei due circoli possono annullarlo.")
            )
        cancelled(match, by_id=by_id, now=now)
    return match


def cancelled(match: TeamMatch, *, by_id: int | None, now: datetime) -> None:
    """Under the match's lock: the match cancelled, its page told, its players told (RULES
    11.3). Its games still being played are the caller's to end (after every lock of its
    rank: a league cancels all its matches before it ends any game, `teams.leagues`)."""
    match.status = TeamMatch.Status.CANCELLED
    match.cancelled_at = now
    match.next_due_at = None
    broadcast.changed_on_commit(match)
    match.save(update_fields=["status", "cancelled_at", "next_due_at", "version"])
    reminders.event_cancelled(match, by_id=by_id, now=now)


# --- line-ups and availability -------------------------------------------------------------------


def lineup_set(
    *,
    match_id: int,
    by,
    player_ids: Sequence[int],
    side: int | None = None,
    now: datetime | None = None,
) -> Lineup:
    """RULES 16.2: the captain's side's line-up, boards then reserves, replacing any saved
    before (`side`: which, when two teams of the captain's club meet, RULES 16.8). Refused
    whole, with the reason, if anything in it is wrong (RULES 16.7)."""
    now = now or timezone.now()
    player_ids = [int(p) for p in player_ids]
    with locks.atomic():
        match = _match_locked(match_id)
        side = _captain(match, by, side)
        club_id = match.club_of_side(side)
        _before_deadline(match, now)
        if not player_ids:
            raise TeamError("empty", _("La formazione deve nominare almeno un giocatore."))
        if len(player_ids) > 2 * match.boards:
            raise TeamError(
                "too_many",
                _("Al massimo %(boards)d giocatori e altrettante riserve.")
                % {"boards": match.boards},
            )
        if len(set(player_ids)) != len(player_ids):
            twice = next(p for p in player_ids if player_ids.count(p) > 1)
            raise TeamError(
                "twice",
                _("%(name)s è in formazione due volte.") % {"name": _name(twice)},
            )
        club = locks.lock_one(Club, club_id, locks.Rank.CLUB)
        users = {
            u.pk: u
            for u in locks.lock_rows(
                User.objects.filter(pk__in=player_ids).only(
                    "pk", "username", "is_active", "deleted_at"
                ),
                locks.Rank.USER,
            )
        }
        roster = selectors.roster_of(match, side)  # RULES 16.8: a league match's team
        for player_id in player_ids:
            user = users.get(player_id)
            if user is None or not account_open(user):
                raise TeamError("missing_player", _("Uno dei giocatori non esiste più."))
            if not clubs.is_member(club_id=club.pk, user_id=player_id):
                raise TeamError(
                    "not_member",
                    _("%(name)s non è socio di «%(club)s».")
                    % {"name": user.username, "club": club.name},
                )
            if roster is not None and player_id not in roster:
                raise TeamError(
                    "not_on_roster",
                    _("%(name)s non è nella rosa di «%(team)s» per la stagione (regola 16.8).")
                    % {"name": user.username, "team": match.side_name(side)},
                )
        busy = _committed_elsewhere(match, player_ids)
        for player_id in player_ids:
            if player_id in busy:
                raise TeamError(
                    "committed",
                    _(
                        "%(name)s è già impegnato in «%(event)s», che si gioca nelle stesse ore "
                        "(regola 16.6)."
                    )
                    % {"name": users[player_id].username, "event": busy[player_id]},
                )
        ratings = ratings_snapshot(
            player_ids=player_ids, variant=match.variant, cadence=match.cadence
        )
        misplaced = rules.out_of_order([ratings[p] for p in player_ids])
        if misplaced is not None:
            player_id = player_ids[misplaced.index]
            raise TeamError("order", _order_message(users[player_id].username, misplaced, match))
        lineup, _created = Lineup.objects.update_or_create(
            match=match, side=side, defaults={"club": club, "saved_by": by, "saved_at": now}
        )
        before = dict(lineup.entries.values_list("player_id", "place"))
        lineup.entries.all().delete()
        LineupEntry.objects.bulk_create(
            LineupEntry(lineup=lineup, place=place, player_id=player_id, rating=ratings[player_id])
            for place, player_id in enumerate(player_ids, start=1)
        )
        # RULES 11.4: who comes into the line-up is told, in this transaction.
        notices.lineup_saved(
            match=match, before=before, player_ids=player_ids, by_id=by.pk, now=now
        )
    return lineup


def _name(user_id: int) -> str:
    return User.objects.filter(pk=user_id).values_list("username", flat=True).first() or "?"


def _place_label(place: int, boards: int) -> str:
    if place <= boards:
        return _("scacchiera %(n)d") % {"n": place}
    return _("riserva %(n)d") % {"n": place - boards}


def _order_message(name: str, misplaced: rules.Misplaced, match: TeamMatch) -> str:
    """RULES 16.7: the first player more than one board from their place in rating order."""
    place = misplaced.index + 1
    if misplaced.lowest == misplaced.highest:
        allowed = _place_label(misplaced.lowest, match.boards)
    else:
        allowed = _("da %(a)s a %(b)s") % {
            "a": _place_label(misplaced.lowest, match.boards),
            "b": _place_label(misplaced.highest, match.boards),
        }
    return _(
        "Formazione fuori ordine: %(name)s è in %(place)s, più di una scacchiera lontano dal "
        "suo posto per punteggio (%(allowed)s; regola 16.2)."
    ) % {"name": name, "place": _place_label(place, match.boards), "allowed": allowed}


def availability_set(*, match_id: int, user, available: bool, now: datetime | None = None) -> bool:
    """RULES 16.2: a member says they are available (or no longer) until the deadline.
    Returns whether they are available now."""
    now = now or timezone.now()
    with locks.atomic():
        match = _match_locked(match_id)
        _before_deadline(match, now)
        events.player_lock_and_check(user)  # RULES 1: a closed account says nothing
        membership = clubs.current_membership(user_id=user.pk)
        sides = match.sides_of_club(getattr(membership, "club_id", None))
        if not sides:
            raise TeamError(
                "not_member", _("Solo i soci dei due circoli dicono la loro disponibilità.")
            )
        if not available:  # taking it back needs no roster (they may have left it)
            Availability.objects.filter(match=match, player=user).delete()
            return False
        if match.league_round_id is not None:
            # RULES 16.8: for the team whose roster they are on (two teams of one club may meet).
            sides = tuple(s for s in sides if user.pk in selectors.roster_of(match, s))
            if not sides:
                raise TeamError(
                    "not_on_roster",
                    _("Non sei nella rosa della squadra per questa stagione (regola 16.8)."),
                )
        Availability.objects.get_or_create(
            match=match,
            player=user,
            defaults={"club_id": membership.club_id, "side": sides[0], "said_at": now},
        )
    return True


# --- the start -------------------------------------------------------------------------------------


def match_start(*, match_id: int, now: datetime | None = None) -> TeamMatch | None:
    """RULES 16.4: seat each club's line-up, open every board's first game at once, forfeit
    the empty boards. Does nothing before the start or once started (safe twice)."""
    now = now or timezone.now()
    with locks.atomic():
        match = _match_locked(match_id)
        if match.status != TeamMatch.Status.SCHEDULED or now < match.starts_at:
            return None
        orders = {side: selectors.side_order(match, side) for side in TeamMatch.SIDES}
        named = sorted({p for order in orders.values() for p in order})
        users = {
            u.pk: u
            for u in locks.lock_rows(
                User.objects.filter(pk__in=named).only("pk", "is_active", "deleted_at"),
                locks.Rank.USER,
            )
        }
        in_game = _in_live_games(named)
        members = {
            side: set(
                Membership.objects.filter(
                    club_id=match.club_of_side(side), user_id__in=orders[side], left_at__isnull=True
                ).values_list("user_id", flat=True)
            )
            for side in TeamMatch.SIDES
        }
        rosters = {side: selectors.roster_of(match, side) for side in TeamMatch.SIDES}

        def can_play(side: int):
            # RULES 16.4: still a member (16.8: on the team's roster), an open account, not in
            # a live game now.
            return lambda p: (
                p in members[side]
                and (rosters[side] is None or p in rosters[side])
                and p in users
                and account_open(users[p])
                and p not in in_game
            )

        seated = {
            side: rules.seat(orders[side], boards=match.boards, can_play=can_play(side))
            for side in TeamMatch.SIDES
        }
        drawn = draw_opening(
            mode=match.opening_mode,
            variant_code=match.variant,
            thematic=match.thematic_opening,
            rng=random.Random(f"{match.seed}:teams"),
        )
        match.opening_number = drawn.number
        match.opening_moves = list(drawn.moves)
        match.start_fen = drawn.fen
        match.status = TeamMatch.Status.RUNNING
        match.started_at = now
        match.next_due_at = None  # nothing is due until its games end (RULES 16.5)
        boards = [
            Board(
                match=match,
                number=number,
                first_player_id=seated[1][number - 1],
                second_player_id=seated[2][number - 1],
            )
            for number in range(1, match.boards + 1)
        ]
        Board.objects.bulk_create(boards)
        full = [b for b in boards if b.first_player_id and b.second_player_id]
        opened = games.games_open(
            pairs=[(*_colours(b, 1), drawn.fen or None) for b in full],
            openings=[(drawn.number, drawn.moves)] * len(full),
            variant_code=match.variant,
            base_seconds=match.base_seconds,
            increment_seconds=match.increment_seconds,
            rated=match.rated,  # RULES 16.5 Decision: each game rated on its own as it ends
            event=match,
            at_ms=_ms(now),
        )
        for board, game in zip(full, opened, strict=True):
            if game is None:  # cannot happen under the user-row locks: let the tick retry
                raise RuntimeError(f"match {match.pk}: a player became busy under the locks")
            board.game1 = game
            board.save(update_fields=["game1"])
            _game_opened_on_commit(game)
        for board in boards:
            if board.game1_id is None:  # RULES 16.4: an empty board, lost by forfeit
                _forfeit(match, board, first_game=1)
                board.save()
        _total(match)
        broadcast.changed_on_commit(match)
        match.save()
    return match


def _in_live_games(player_ids: Sequence[int]) -> set[int]:
    busy: set[int] = set()
    for white_id, black_id in Game.objects.filter(
        Q(white_id__in=player_ids) | Q(black_id__in=player_ids), status=GameStatus.LIVE
    ).values_list("white_id", "black_id"):
        busy.update((white_id, black_id))
    return busy


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def _colours(board: Board, n: int) -> tuple[int, int]:
    """RULES 16.3: (white, black) of game n of the board."""
    if rules.first_club_white(board.number, n):
        return board.first_player_id, board.second_player_id
    return board.second_player_id, board.first_player_id


def _game_opened_on_commit(game: Game) -> None:
    """After commit, take both players' open pages to the board (RULES 16.4, as a round)."""
    pushes.user_changed_on_commit(
        [game.white_id, game.black_id], messages.What.MYGAME, game=game.pk
    )


def _forfeit(match: TeamMatch, board: Board, *, first_game: int) -> None:
    """RULES 16.4: every game left of a board with a side missing is the other side's;
    both missing: 0-0. Never played, never rated."""
    first, second = rules.forfeit_points(
        board.first_player_id is not None, board.second_player_id is not None
    )
    for n in range(first_game, match.legs + 1):
        board.set_points(n, first, second, played=False)
    board.done = True


def _total(match: TeamMatch) -> None:
    """RULES 16.5: the running board points; match points once every board is done."""
    first = second = 0
    all_done = True
    for board in match.board_rows.all():
        for n in range(1, match.legs + 1):
            a, b = board.points(n)
            first += a or 0
            second += b or 0
        all_done = all_done and board.done
    match.first_points, match.second_points = first, second
    if all_done and match.status == TeamMatch.Status.RUNNING:
        match.first_match_points, match.second_match_points = rules.match_points(first, second)
        match.status = TeamMatch.Status.FINISHED
        match.finished_at = timezone.now()
        if match.league_round_id is not None:
            nudge_league_on_commit(match)


def nudge_league_on_commit(match: TeamMatch) -> None:
    """RULES 16.8: a league match ended; after its commit (without its lock, which ranks below
    the league's) the league is due at once: the tick pairs its next Swiss round or ends it."""
    round_id = match.league_round_id

    def nudge() -> None:
        League.objects.filter(round_rows=round_id, status=League.Status.RUNNING).update(
            next_due_at=timezone.now()
        )

    transaction.on_commit(nudge)


# --- a game's end ----------------------------------------------------------------------------------


def match_game_finished(*, game_id: int, now: datetime | None = None) -> bool:
    """A game of a match ended (the events router, off the move that ended it): its board
    points; with double games the board's second game opens; the match ends with its last
    board (RULES 16.3, 16.5). Safe twice: a scored game is not scored again."""
    now = now or timezone.now()
    board_row = (
        Board.objects.filter(Q(game1_id=game_id) | Q(game2_id=game_id))
        .values_list("pk", "match_id")
        .first()
    )
    if board_row is None:
        return False
    board_id, match_id = board_row
    with locks.atomic():
        match = _match_locked(match_id)
        if match.status != TeamMatch.Status.RUNNING:
            return False  # cancelled by the staff: nothing more is scored or opened
        board = Board.objects.select_related("game1", "game2").get(pk=board_id)
        n = 1 if board.game1_id == game_id else 2
        game = board.game(n)
        if board.points(n)[0] is not None or game.status != GameStatus.FINISHED:
            return False
        white, black = POINTS[GameResult(game.result)]
        first_white = rules.first_club_white(board.number, n)
        first, second = (white, black) if first_white else (black, white)
        # RULES 16.5 (4.7, 3): a game neither player sat at is no game played.
        board.set_points(n, first, second, played=game.reason != GameEndReason.BOTH_ABSENT)
        if n < match.legs:
            _open_second_game(match, board, now)
        else:
            board.done = True
        board.save()
        _total(match)
        broadcast.changed_on_commit(match)
        match.save()
    return True


def _open_second_game(match: TeamMatch, board: Board, now: datetime) -> None:
    """RULES 16.3: colours reversed, same opening; a player busy in another game loses it by
    forfeit (as RULES 4.7), both busy 0-0."""
    white, black = _colours(board, 2)
    try:
        game = games.game_open(
            white_id=white,
            black_id=black,
            variant_code=match.variant,
            base_seconds=match.base_seconds,
            increment_seconds=match.increment_seconds,
            rated=match.rated,
            start_fen=match.start_fen or None,
            opening_number=match.opening_number,
            opening_moves=match.opening_moves,
            event=match,
            at_ms=_ms(now),
        )
    except games.PlayerBusy:
        busy = _in_live_games([white, black])
        first_here = board.first_player_id not in busy
        second_here = board.second_player_id not in busy
        first, second = rules.forfeit_points(first_here, second_here)
        board.set_points(2, first, second, played=False)
        board.done = True
        return
    board.game2 = game
    _game_opened_on_commit(game)


# --- the tick --------------------------------------------------------------------------------------


def matches_due_process(*, now: datetime | None = None) -> list[int]:
    """Tell the captains of the matches whose line-ups closed (RULES 11.4), then start every
    match whose start has come (an indexed query for each)."""
    now = now or timezone.now()
    notices.lineups_closed_due(now=now)
    started = []
    for match_id in list(
        TeamMatch.objects.due(now).order_by("next_due_at", "pk").values_list("pk", flat=True)
    ):
        if match_start(match_id=match_id, now=now) is not None:
            started.append(match_id)
    return started
