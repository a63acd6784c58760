"""Reading tournaments (RULES 4.1, 4.2, 4.4, 4.10): for pages, and the state the run and the
engine read (STYLE 2: services import selectors, never the other way)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db.models import Count, QuerySet

from events.openings import opening_label
from events.pairing import model
from events.pairing.standings import round_robin_standings, swiss_standings
from games.rules import variants
from ratings.performance import performance
from ratings.selectors import ratings_snapshot, tournament_rating_changes
from tournaments.models import Format, Pairing, Registration, Tournament

# RULES 4.7: a scheduled tournament this close to its start is a commitment (the lobby warns).
SOON = timedelta(hours=2)


def engine_tournament(tournament: Tournament) -> model.Tournament:
    """The tournament as the engine sees it, from the database (two queries), with the
    results of any annulled player annulled (RULES 15.5, `annulled_results`)."""
    participants = list(tournament.participants.select_related("player"))
    number = {p.pk: p.number for p in participants}
    results: list[model.GameResult] = []
    byes: list[model.Bye] = []
    rows = Pairing.objects.filter(round__tournament=tournament).values_list(
        "round__number",
        "white_id",
        "black_id",
        "white_points1",
        "black_points1",
        "played1",
        "white_points2",
        "black_points2",
        "played2",
    )
    for r, white_id, black_id, wp1, bp1, played1, wp2, bp2, played2 in rows:
        if black_id is None:
            if wp1 is not None:
                byes.append(model.Bye(r, number[white_id], points=wp1))
            continue
        white, black = number[white_id], number[black_id]
        if wp1 is not None:
            results.append(model.GameResult(r, white, black, wp1, bp1, played1, 1))
        if wp2 is not None:  # RULES 4.5: colours reversed in the second game
            results.append(model.GameResult(r, black, white, bp2, wp2, played2, 2))
    annulled = {p.number for p in participants if p.annulled}
    if annulled:
        results, byes = annulled_results(results, byes, annulled)
    return model.Tournament(
        entrants=tuple(
            model.Entrant(p.number, p.player.username, p.start_rating) for p in participants
        ),
        total_rounds=tournament.total_rounds or 0,
        games=tuple(results),
        byes=tuple(byes),
        first_colour=tournament.first_colour,
        double_games=tournament.legs == 2,
        name=tournament.name,
    )


def annulled_results(
    results: list[model.GameResult], byes: list[model.Bye], annulled: set[int]
) -> tuple[list[model.GameResult], list[model.Bye]]:
    """RULES 15.5: an annulled player scores nothing, in every game and bye; each opponent
    scores the game as a win. The game stays a game played (`played`): the colours and the
    meetings of the Lim pairing (Lim 2, 10) are those of the board, whatever the score."""
    games = []
    for g in results:
        if g.white in annulled or g.black in annulled:
            white = 0 if g.white in annulled else model.WIN_POINTS
            black = 0 if g.black in annulled else model.WIN_POINTS
            if not g.played and g.white_points == g.black_points == 0:
                white = black = 0  # a 0-0 double absence stays nobody's game (RULES 4.7)
            g = model.GameResult(g.round, g.white, g.black, white, black, g.played, g.leg)
        games.append(g)
    kept = [model.Bye(b.round, b.player, b.kind, 0) if b.player in annulled else b for b in byes]
    return games, kept


def annulled_player_ids(tournament: Tournament) -> set[int]:
    """RULES 15.5: the players whose results the staff annulled."""
    return set(tournament.participants.filter(annulled=True).values_list("player_id", flat=True))


def final_standings(tournament: Tournament, state: model.Tournament | None = None) -> list:
    """RULES 4.10, from the engine: the standings with their tiebreaks."""
    state = state or engine_tournament(tournament)
    if tournament.format == Format.ROUND_ROBIN:
        return round_robin_standings(state)
    return swiss_standings(state)


def game_ids(tournament: Tournament) -> list[int]:
    """Every game opened in the tournament (both games of double pairings)."""
    rows = Pairing.objects.filter(round__tournament=tournament).values_list("game1_id", "game2_id")
    return [game_id for pair in rows for game_id in pair if game_id is not None]


def tournament_list(*, variant: str = "", cadence: str = "") -> dict[str, QuerySet]:
    """Upcoming, running and ended tournaments, filtered. A tournament cancelled (below its
    minimum, by its opener or staff) stays among the ended ones, marked: its players look
    for it."""
    base = Tournament.objects.annotate(players=Count("registrations"))
    if variant:
        base = base.filter(variant=variant)
    if cadence:
        base = base.filter(cadence=cadence)
    ended = (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
    return {
        "upcoming": base.filter(status=Tournament.Status.SCHEDULED).order_by("starts_at", "id"),
        "running": base.filter(status=Tournament.Status.RUNNING).order_by("starts_at", "id"),
        "finished": base.filter(status__in=ended).order_by("-starts_at", "-id")[:50],
    }


@dataclass(frozen=True)
class RegisteredPlayer:
    id: int
    username: str
    rating: int


def registered_players(tournament: Tournament) -> list[RegisteredPlayer]:
    """The registered players with their rating in the tournament's pool, best first."""
    rows = list(
        Registration.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("joined_at", "id")
    )
    ratings = ratings_snapshot(
        player_ids=[r.player_id for r in rows],
        variant=tournament.variant,
        cadence=tournament.cadence,
    )
    players = [RegisteredPlayer(r.player_id, r.player.username, ratings[r.player_id]) for r in rows]
    return sorted(players, key=lambda p: (-p.rating, p.username.lower()))


def is_registered(tournament: Tournament, user) -> bool:
    return user.is_authenticated and tournament.registrations.filter(player=user).exists()


# --- the run (RULES 4.3-4.10) ------------------------------------------------------------------


@dataclass(frozen=True)
class Leg:
    """One game of a pairing, as the pairings table shows it: tournament points (RULES 4.6,
    2/1/0 per game) of the row's two players, left (White of the first game) first."""

    game_id: int | None
    # The game's result as the variant writes one ("1–0", "½–½", "0–1"; International
    # draughts "2–0", "1–1", "0–2"), the row's left player first; "+–−" / "−–+" forfeit;
    # "0–0" unplayed; "…" being played; "". The tournament points are the standings'.
    result: str
    outcome: str  # played, forfeit, unplayed, live, pending


@dataclass(frozen=True)
class PairingRow:
    board: int
    white: str
    black: str | None  # None: the bye
    white_number: int
    black_number: int | None
    white_rating: int
    black_rating: int | None
    white_points: int | None
    black_points: int | None
    legs: tuple[Leg, ...]
    forfeit: bool


@dataclass(frozen=True)
class RoundRow:
    number: int
    opening: str
    ended: bool
    pairings: tuple[PairingRow, ...]
    boards: int = 0  # pairings in the round, also when they were not read
    started_at: datetime | None = None  # when the round was paired (its games opened)


@dataclass(frozen=True)
class Mark:
    """One game in a cell of the cross table: the player's points and how they came."""

    text: str  # "2", "1", "0", "+" (forfeit win), "−" (forfeit loss), "0" unplayed, "R" bye
    outcome: str  # win, draw, loss, forfeit_win, forfeit_loss, unplayed, bye
    colour: str = ""  # "w" / "b": the colour the player had; "" for a bye
    opponent: int | None = None  # the Swiss table names the opponent by number


@dataclass(frozen=True)
class StandingRow:
    rank: int
    number: int
    username: str
    start_rating: int
    points: int
    buchholz_cut1: int
    sonneborn_berger: float
    wins: int
    # The cross table: round robin, one cell per opponent (by number, the player's own cell
    # empty), then one for the byes when there are any; Swiss, one cell per round. A cell
    # holds one mark per game (two with double games) or bye.
    cells: tuple[tuple[Mark, ...], ...] = ()
    player_id: int = 0  # the user (the top boards order games by their players' ranks)
    # Once the tournament is rated (RULES 7.1): the period's change and the FIDE performance
    # over the rated games (None for a player with none); `rated` says to show the columns.
    rated: bool = False
    rating_change: int | None = None
    performance: int | None = None
    annulled: bool = False  # RULES 15.5: the staff annulled this player's results


POINTS_TEXT = {2: "2", 1: "1", 0: "0"}


def _mark(mine: int, theirs: int, played: bool, colour: str, opponent: int | None) -> Mark:
    """RULES 4.6-4.7: a game's points for one player, a forfeit as + / −, 0-0 unplayed."""
    if not played:
        if mine > theirs:
            return Mark("+", "forfeit_win", colour, opponent)
        if theirs > mine:
            return Mark("−", "forfeit_loss", colour, opponent)
        return Mark("0", "unplayed", colour, opponent)
    outcome = "win" if mine > theirs else "loss" if theirs > mine else "draw"
    return Mark(POINTS_TEXT.get(mine, str(mine)), outcome, colour, opponent)


# A game's score as a result line writes it, by the tournament points of each side (RULES 4.6).
GAME_SCORE = {2: "1", 1: "½", 0: "0"}
GAME_SCORE_IN_POINTS = {2: "2", 1: "1", 0: "0"}  # International draughts (FMJD)


def _leg(
    points: tuple[int | None, int | None],
    played: bool,
    game_id: int | None,
    score: dict[int, str] = GAME_SCORE,
) -> Leg:
    left, right = points
    if left is None:
        return Leg(game_id, "…", "live") if game_id is not None else Leg(None, "", "pending")
    if not played and game_id is None:
        if left == right:
            return Leg(None, "0–0", "unplayed")
        return Leg(None, "+–−" if left > right else "−–+", "forfeit")
    if not played:  # a game nobody sat at: 0-0, unplayed (RULES 4.7)
        return Leg(game_id, "0–0", "unplayed")
    return Leg(game_id, f"{score.get(left, left)}–{score.get(right, right)}", "played")


def _opening_label(tournament: Tournament, rnd) -> str:
    return opening_label(rnd.opening_number, rnd.opening_moves, tournament.variant)


def run_rounds(tournament: Tournament, *, pairings_of: int | None = None) -> list[RoundRow]:
    """Every round with its opening and pairings (three queries, whatever the size); with
    `pairings_of`, only that round's pairings are read (the others say how many boards)."""
    from tournaments.models import Round

    rounds = list(
        Round.objects.filter(tournament=tournament)
        .annotate(boards=Count("pairings"))
        .order_by("number")
    )
    pairings = Pairing.objects.filter(round__tournament=tournament)
    if pairings_of is not None:
        pairings = pairings.filter(round__number=pairings_of)
    pairings = pairings.select_related("white__player", "black__player").order_by(
        "round__number", "board"
    )
    by_round: dict[int, list[PairingRow]] = {r.pk: [] for r in rounds}
    rules = variants.info(tournament.variant).rules
    score = GAME_SCORE_IN_POINTS if getattr(rules, "pdn_two_points", False) else GAME_SCORE
    for p in pairings:
        black = p.black.player.username if p.black_id else None
        legs = []
        if black is not None:
            for leg in range(1, tournament.legs + 1):
                points = (getattr(p, f"white_points{leg}"), getattr(p, f"black_points{leg}"))
                legs.append(
                    _leg(points, getattr(p, f"played{leg}"), getattr(p, f"game{leg}_id"), score)
                )
        points = [
            (getattr(p, f"white_points{leg}"), getattr(p, f"black_points{leg}"))
            for leg in range(1, tournament.legs + 1)
        ]
        scored = [pt for pt in points if pt[0] is not None]
        by_round[p.round_id].append(
            PairingRow(
                board=p.board,
                white=p.white.player.username,
                black=black,
                white_number=p.white.number,
                black_number=p.black.number if p.black_id else None,
                white_rating=p.white.start_rating,
                black_rating=p.black.start_rating if p.black_id else None,
                white_points=sum(pt[0] for pt in scored) if scored else None,
                black_points=sum(pt[1] or 0 for pt in scored) if scored else None,
                legs=tuple(legs),
                forfeit=p.white_forfeit or p.black_forfeit,
            )
        )
    return [
        RoundRow(
            r.number,
            _opening_label(tournament, r),
            r.ended_at is not None,
            tuple(by_round[r.pk]),
            r.boards,
            r.started_at,
        )
        for r in rounds
    ]


def round_pairings(tournament: Tournament, number: int) -> RoundRow | None:
    """One round with its pairings (a past round opened on the page)."""
    return next((r for r in run_rounds(tournament, pairings_of=number) if r.number == number), None)


def _cross_cells(tournament: Tournament, state: model.Tournament) -> dict[int, list]:
    """RULES 4.10's cross table: per player, one cell per opponent (round robin) or per round
    (Swiss), each with one mark per game, from the scored games and byes."""
    numbers = [e.number for e in state.entrants]
    round_robin = tournament.format == Format.ROUND_ROBIN
    width = len(numbers) if round_robin else max(state.rounds_played, tournament.current_round)
    cells: dict[int, list[list[Mark]]] = {n: [[] for _ in range(width)] for n in numbers}
    for g in sorted(state.games, key=lambda g: (g.round, g.leg)):
        for me, other, mine, theirs, colour in (
            (g.white, g.black, g.white_points, g.black_points, "w"),
            (g.black, g.white, g.black_points, g.white_points, "b"),
        ):
            index = other - 1 if round_robin else g.round - 1
            cells[me][index].append(_mark(mine, theirs, g.played, colour, other))
    if round_robin and state.byes:  # a column of its own after the opponents' (RULES 4.6)
        for cell in cells.values():
            cell.append([])
    for bye in state.byes:  # in a Swiss the bye takes the round's cell
        cells[bye.player][-1 if round_robin else bye.round - 1].append(Mark("R", "bye"))
    return cells


def run_standings(tournament: Tournament) -> list[StandingRow]:
    """RULES 4.10, live: computed by the engine from the pairings (a fixed number of queries),
    with the cross table."""
    participants = {p.number: p for p in tournament.participants.select_related("player")}
    if not participants:
        return []
    state = engine_tournament(tournament)
    standings = final_standings(tournament, state)
    cells = _cross_cells(tournament, state)
    changes: dict[int, int] = {}
    performances: dict[int, int | None] = {}
    if tournament.status == Tournament.Status.FINISHED:
        changes = tournament_rating_changes(tournament.pk)
        if changes:
            performances = _performances(tournament, participants.values())
    return [
        StandingRow(
            rank=s.rank,
            number=s.player,
            username=participants[s.player].player.username,
            player_id=participants[s.player].player_id,
            start_rating=participants[s.player].start_rating,
            points=s.points,
            buchholz_cut1=s.buchholz_cut1,
            sonneborn_berger=s.sonneborn_berger,
            wins=s.wins,
            cells=tuple(tuple(cell) for cell in cells.get(s.player, ())),
            rated=bool(changes),
            rating_change=changes.get(participants[s.player].player_id),
            performance=performances.get(participants[s.player].player_id),
            annulled=participants[s.player].annulled,
        )
        for s in standings
    ]


# Game points of each side by result (RULES 7.1: ratings use 1 / ½ / 0, not tournament points).
_GAME_POINTS = {"1-0": (2, 0), "0-1": (0, 2), "1/2-1/2": (1, 1)}


def _performances(tournament: Tournament, participants) -> dict[int, int | None]:
    """Player id -> FIDE performance (ratings.performance) over the games the tournament
    rated: both players sat and a result was reached (RULES 7.1), so byes, forfeits and games
    one player never sat at do not count, nor any game of an annulled player, for either side
    (RULES 15.5: rated for neither), who has no performance; opponents at their start
    ratings. One query."""
    from games.models import Game

    # An annulled player's games are left out as the rating leaves them (tournament_rate).
    start = {p.player_id: p.start_rating for p in participants if not p.annulled}
    opponents: dict[int, list[int]] = {pid: [] for pid in start}
    halves: dict[int, int] = dict.fromkeys(start, 0)
    rows = Game.objects.filter(
        event_type__model="tournament",
        event_id=tournament.pk,
        status="finished",
        rated=True,
        white_sat=True,
        black_sat=True,
        result__in=_GAME_POINTS,
    ).values_list("white_id", "black_id", "result")
    for white, black, result in rows:
        if white not in start or black not in start:
            continue
        white_halves, black_halves = _GAME_POINTS[result]
        opponents[white].append(start[black])
        opponents[black].append(start[white])
        halves[white] += white_halves
        halves[black] += black_halves
    return {pid: performance(opponents[pid], Decimal(halves[pid]) / 2) for pid in start}


def live_game_ids(tournament: Tournament) -> dict[int, int]:
    """The game each player of the tournament is playing now, by player id (one query; the
    newest when a player has two): every viewer's "your game" at once."""
    from games.models import Game

    if tournament.status != Tournament.Status.RUNNING:
        return {}
    found: dict[int, int] = {}
    rows = Game.objects.filter(
        event_type__model="tournament", event_id=tournament.pk, status="live"
    ).order_by("pk")
    for pk, white, black in rows.values_list("pk", "white_id", "black_id"):
        found[white] = found[black] = pk
    return found


def _played_by(user_id: int):
    from django.db.models import Q

    return Q(white_id=user_id) | Q(black_id=user_id)


def live_tournament_game(user, *, besides: int | None = None) -> tuple[int, Tournament] | None:
    """The visitor's live tournament game, for the banner on every page (two queries): None
    when it is the game `besides` (the page is that game's own)."""
    from games.models import Game

    if not user.is_authenticated:
        return None
    game = (
        Game.objects.filter(_played_by(user.pk), status="live", event_type__model="tournament")
        .values_list("pk", "event_id")
        .first()
    )
    if game is None or game[0] == besides:
        return None
    return game[0], Tournament.objects.filter(pk=game[1]).first()


def player_pairings(tournament: Tournament, number: int) -> list[tuple[RoundRow, PairingRow]]:
    """One player's rounds: each round with that player's pairing."""
    rows = []
    for rnd in run_rounds(tournament):
        for p in rnd.pairings:
            if number in (p.white_number, p.black_number):
                rows.append((rnd, p))
    return rows


tournament_game_ids = game_ids


def recently_cancelled_for(user) -> Tournament | None:
    """A tournament of the visitor cancelled in the last hour, so the banner tells them why:
    it cancelled itself at the start (below the minimum, RULES 4.3) or staff cancelled it (its
    players and its opener are told), or its opener did before the start (the players are
    told; the opener knows). One query."""
    from datetime import timedelta

    from django.db.models import Q
    from django.utils import timezone

    from tournaments.models import EndReason

    if not user.is_authenticated:
        return None
    not_by_them = Q(end_reason__in=[EndReason.BELOW_MINIMUM, EndReason.BY_STAFF])
    return (
        Tournament.objects.filter(
            status=Tournament.Status.CANCELLED,
            cancelled_at__gte=timezone.now() - timedelta(hours=1),
        )
        .filter(
            (Q(registrations__player=user) & (not_by_them | ~Q(opened_by=user)))
            | (Q(opened_by=user) & not_by_them)
        )
        .order_by("-cancelled_at")
        .distinct()
        .first()
    )


def commitments_of(user_id: int) -> list:
    """RULES 4.7: the tournaments that will pair the player soon, so that the lobby
    and the challenge notices warn before they take on another game. A running tournament they
    play in, with a round still to come and no game of theirs being played in it (between
    rounds); a scheduled one they joined that starts within `SOON`. Two queries."""
    from django.db.models import F, Q
    from django.utils import formats, timezone
    from django.utils.translation import gettext as _

    from games.commitments import Commitment
    from games.models import Game

    now = timezone.now()
    found = []
    playing = Game.objects.filter(
        Q(white_id=user_id) | Q(black_id=user_id), status="live", event_type__model="tournament"
    ).values_list("event_id", flat=True)
    running = (
        Tournament.objects.filter(
            status=Tournament.Status.RUNNING,
            participants__player_id=user_id,
            current_round__lt=F("total_rounds"),
        )
        .exclude(pk__in=playing)
        .distinct()
    )
    for t in running:
        found.append(
            Commitment(
                event=t.name,
                url=t.get_absolute_url(),
                due_at=None,
                warning=_(
                    "Il torneo «%(name)s» accoppia presto il prossimo turno: se allora sei in "
                    "un'altra partita, lo perdi a tavolino (regola 4.7)."
                )
                % {"name": t.name},
            )
        )
    scheduled = Tournament.objects.filter(
        status=Tournament.Status.SCHEDULED,
        registrations__player_id=user_id,
        starts_at__lte=now + SOON,
    ).distinct()
    for t in scheduled:
        at = formats.time_format(timezone.localtime(t.starts_at), "TIME_FORMAT")
        found.append(
            Commitment(
                event=t.name,
                url=t.get_absolute_url(),
                due_at=t.starts_at,
                warning=_(
                    "Il torneo «%(name)s» inizia alle %(time)s: se a quell'ora sei in un'altra "
                    "partita, perdi il primo turno a tavolino (regola 4.7)."
                )
                % {"name": t.name, "time": at},
            )
        )
    return found


def tournaments_of(user) -> list[Tournament]:
    """The visitor's live tournaments, for the home page: running ones they play in, scheduled
    ones they joined. One query."""
    from django.db.models import Q

    if not user.is_authenticated:
        return []
    return list(
        Tournament.objects.filter(
            Q(status=Tournament.Status.RUNNING, participants__player=user)
            | Q(status=Tournament.Status.SCHEDULED, registrations__player=user)
        )
        .distinct()
        .order_by("starts_at", "id")[:5]
    )
