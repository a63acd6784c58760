"""Reading arenas (RULES 8): for pages, and what the pairing pass reads (STYLE 2: services
import selectors, never the other way)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db.models import Count, Max, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from arena.engine import battle, pairing
from arena.engine.sheet import Mark, Outcome, Result, ranks, sheet
from arena.models import Arena, ArenaGame, Entry, EntryState
from clubs.models import Club
from games.models import Game, GameResult, Status
from live import presence
from live.models import Connection
from ratings.models import RatingChange, RatingPeriod
from ratings.selectors import games_rating_changes_summed, ratings_at, ratings_snapshot

PAGE_SIZE = 50


def ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def topic(arena_id: int) -> str:
    """The presence topic of an arena's page (`live.presence`)."""
    return f"arena:{arena_id}"


def arena_list(*, variant: str = "", cadence: str = "") -> dict[str, QuerySet]:
    """Upcoming, running and ended (finished or cancelled) arenas, filtered, like the
    tournaments' list."""
    base = Arena.objects.annotate(players=Count("entries"))
    if variant:
        base = base.filter(variant=variant)
    if cadence:
        base = base.filter(cadence=cadence)
    return {
        "upcoming": base.filter(status=Arena.Status.SCHEDULED).order_by("starts_at", "id"),
        "running": base.filter(status=Arena.Status.RUNNING).order_by("starts_at", "id"),
        # A cancelled arena stays listed, among the ended ones, marked: its players look for it.
        "finished": base.filter(
            status__in=(Arena.Status.FINISHED, Arena.Status.CANCELLED)
        ).order_by("-starts_at", "-id")[:50],
    }


# --- results and sheets --------------------------------------------------------------------


def outcome_for(game_result: str, white: bool) -> Outcome:
    if game_result == GameResult.DRAW:
        return Outcome.DRAW
    if game_result == GameResult.NOBODY_SCORES:
        return Outcome.NIL
    won = game_result == (GameResult.WHITE_WINS if white else GameResult.BLACK_WINS)
    return Outcome.WIN if won else Outcome.LOSS


def results_of(entry_ids: list[int]) -> dict[int, list[Result]]:
    """Each entry's finished (scored) games as sheet results, in the order they were played."""
    rows = (
        ArenaGame.objects.filter(Q(white_id__in=entry_ids) | Q(black_id__in=entry_ids))
        .filter(ended_at__isnull=False)
        .order_by("started_at", "id")
        .values_list(
            "white_id", "black_id", "game__result", "game__white_boosted", "game__black_boosted"
        )
    )
    found: dict[int, list[Result]] = {pk: [] for pk in entry_ids}
    for white_id, black_id, result, white_boost, black_boost in rows:
        if white_id in found:
            found[white_id].append(Result(outcome_for(result, True), white_boost))
        if black_id in found:
            found[black_id].append(Result(outcome_for(result, False), black_boost))
    return found


def entry_ranks(arena: Arena) -> dict[int, int]:
    """Every entry's current rank in the arena (points, then wins; ties share), one query."""
    rows = list(Entry.objects.filter(arena=arena).values_list("pk", "points", "wins"))
    shared = ranks([(points, wins) for _pk, points, wins in rows])
    return {row[0]: rank for row, rank in zip(rows, shared, strict=True)}


def player_ranks(arena: Arena) -> dict[int, int]:
    """Every player's (user id's) current rank in the arena, for its top boards; one query."""
    rows = list(Entry.objects.filter(arena=arena).values_list("player_id", "points", "wins"))
    shared = ranks([(points, wins) for _pk, points, wins in rows])
    return {row[0]: rank for row, rank in zip(rows, shared, strict=True)}


# --- the pairing pass ------------------------------------------------------------------------


@dataclass(frozen=True)
class PassInputs:
    waiting: list[pairing.Waiting]
    history: dict[tuple[int, int], pairing.Together]
    entry_of: dict[int, Entry]  # player id -> entry


def last_game_ids(entry_ids) -> dict[int, int]:
    """Each entry's latest arena game's id (one query, a subquery per entry on its index)."""
    latest = (
        ArenaGame.objects.filter(Q(white=OuterRef("pk")) | Q(black=OuterRef("pk")))
        .order_by("-started_at", "-id")
        .values("game_id")[:1]
    )
    rows = Entry.objects.filter(pk__in=entry_ids).annotate(last=Subquery(latest))
    return {pk: game_id for pk, game_id in rows.values_list("pk", "last") if game_id is not None}


def waiting_entries(arena: Arena, at_ms: int) -> list[Entry]:
    """RULES 8: the players waiting now. In the arena and not paused, with the arena's page — or
    the page of their just-finished game of this arena — open (a live socket), and in no live
    game anywhere (RULES 1, one board at a time).

    A fixed number of queries, reading only the active entries and the open sockets: nothing
    here grows with the arena's history."""
    active = dict(
        Entry.objects.filter(arena=arena, state=EntryState.ACTIVE).values_list("player_id", "pk")
    )
    if not active:
        return []
    stale_before = at_ms - presence.STALE_MS
    here = set(
        Connection.objects.filter(
            topic=topic(arena.pk), user_id__in=active, seen_ms__gte=stale_before
        ).values_list("user_id", flat=True)
    )
    # The others may have the page of their just-finished game of this arena open instead.
    on_game_pages: dict[int, set[int]] = defaultdict(set)
    for user_id, name in Connection.objects.filter(
        topic__startswith="game:", user_id__in=set(active) - here, seen_ms__gte=stale_before
    ).values_list("user_id", "topic"):
        on_game_pages[user_id].add(int(name.split(":", 1)[1]))
    if on_game_pages:
        latest = last_game_ids([active[user_id] for user_id in on_game_pages])
        for user_id, game_ids in on_game_pages.items():
            if latest.get(active[user_id]) in game_ids:
                here.add(user_id)
    busy = set()
    for white_id, black_id in Game.objects.filter(
        Q(white_id__in=here) | Q(black_id__in=here), status=Status.LIVE
    ).values_list("white_id", "black_id"):
        busy.update((white_id, black_id))
    waiting = [active[user_id] for user_id in here - busy]
    return list(Entry.objects.filter(pk__in=waiting).select_related("player").order_by("pk"))


def was_here(arena: Arena, entry: Entry, *, except_key: str, at_ms: int) -> bool:
    """Whether the player already had the arena open (its page, or the page of their
    just-finished game of this arena, RULES 8) through a socket other than `except_key`: then
    opening the page again is not coming back after being away."""
    fresh = Connection.objects.filter(
        user_id=entry.player_id, seen_ms__gte=at_ms - presence.STALE_MS
    ).exclude(key=except_key)
    if fresh.filter(topic=topic(arena.pk)).exists():
        return True
    last = last_game_ids([entry.pk]).get(entry.pk)
    return last is not None and fresh.filter(topic=f"game:{last}").exists()


# How long after an arena's start a page opened anywhere on the site is still taken to it
# (RULES 8.1).
ARENA_CALL_SECONDS = 60


def arenas_just_started(user_id: int, now: datetime | None = None) -> list[int]:
    """The running arenas that started within ARENA_CALL_SECONDS in which the player is
    active (not paused, not left)."""
    now = now or timezone.now()
    return list(
        Entry.objects.filter(
            player_id=user_id,
            state=EntryState.ACTIVE,
            arena__status=Arena.Status.RUNNING,
            arena__started_at__gte=now - timedelta(seconds=ARENA_CALL_SECONDS),
        ).values_list("arena_id", flat=True)
    )


def in_live_game(user_id: int) -> bool:
    return Game.objects.filter(
        Q(white_id=user_id) | Q(black_id=user_id), status=Status.LIVE
    ).exists()


def pass_inputs(arena: Arena, entries: list[Entry], at_ms: int) -> PassInputs:
    """What the pure pairing needs of these waiting entries (a fixed number of queries)."""
    entry_ids = [e.pk for e in entries]
    rank_of = entry_ranks(arena)
    ratings = ratings_snapshot(
        player_ids=[e.player_id for e in entries], variant=arena.variant, cadence=arena.cadence
    )
    whites: dict[int, int] = defaultdict(int)
    blacks: dict[int, int] = defaultdict(int)
    last_colour: dict[int, str] = {}
    history: dict[tuple[int, int], pairing.Together] = {}
    rows = (
        ArenaGame.objects.filter(arena=arena)
        .filter(Q(white_id__in=entry_ids) | Q(black_id__in=entry_ids))
        .order_by("started_at", "id")
        .values_list("white_id", "black_id", "white__player_id", "black__player_id", "ended_at")
    )
    waiting_ids = set(entry_ids)
    for white_id, black_id, white_player, black_player, ended_at in rows:
        whites[white_id] += 1
        blacks[black_id] += 1
        last_colour[white_id], last_colour[black_id] = "white", "black"
        if white_id in waiting_ids and black_id in waiting_ids:
            key = pairing.pair_key(white_player, black_player)
            before = history.get(key)
            end = ms(ended_at) if ended_at else at_ms  # a game still open is "now"
            history[key] = pairing.Together(
                games=(before.games if before else 0) + 1,
                last_end_ms=max(end, before.last_end_ms if before else 0),
            )
    waiting = [
        pairing.Waiting(
            player=e.player_id,
            rank=rank_of.get(e.pk, len(rank_of) + 1),
            rating=ratings[e.player_id],
            whites=whites[e.pk],
            blacks=blacks[e.pk],
            last_colour=last_colour.get(e.pk),
            waiting_since_ms=ms(e.waiting_since) if e.waiting_since else at_ms,
            # RULES 12.7: teammates of a club battle never meet.
            team=(e.club_id or 0) if arena.battle_top_n is not None else 0,
        )
        for e in entries
    ]
    return PassInputs(waiting, history, {e.player_id: e for e in entries})


def next_opponent_at(
    arena: Arena, entry: Entry | None, waiting: list[Entry], at_ms: int
) -> datetime | None:
    """Why the viewer still waits, so the page can say until when: when they are in, somebody else waits, and
    every one of those is in cooldown with them (RULES 8), the instant the first of those
    cooldowns lifts — the pass is due then (`running`). None otherwise (nobody else waits, or
    a pass is about to pair them). One query."""
    # The viewer's own socket may not be recorded yet (this very page load): being in and
    # not paused is enough, the page shows this only to a player not in a game.
    if entry is None or entry.state != EntryState.ACTIVE:
        return None
    others = {e.pk for e in waiting if e.pk != entry.pk}
    if not others:
        return None
    together: dict[int, pairing.Together] = {}
    rows = (
        ArenaGame.objects.filter(arena=arena)
        .filter(Q(white=entry, black_id__in=others) | Q(black=entry, white_id__in=others))
        .values_list("white_id", "black_id", "ended_at")
    )
    for white_id, black_id, ended_at in rows:
        other = black_id if white_id == entry.pk else white_id
        before = together.get(other)
        end = ms(ended_at) if ended_at else at_ms
        together[other] = pairing.Together(
            games=(before.games if before else 0) + 1,
            last_end_ms=max(end, before.last_end_ms if before else 0),
        )
    if len(together) < len(others):
        return None  # somebody waiting may play them now
    first = min(pairing.free_from_ms(t) for t in together.values())
    if first <= at_ms:
        return None
    return datetime.fromtimestamp(first / 1000, tz=UTC)


# --- pages -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    rank: int
    entry: Entry
    rating: int
    marks: tuple[Mark, ...]
    playing_game_id: int | None
    # A finished rated arena: the sum of the changes its games gave (each game is rated on its
    # own, RULES 7.1); None with no rated game, or before the end.
    rating_change: int | None = None


def leaderboard(arena: Arena, page: int = 1) -> tuple[list[Row], int]:
    """One page of the live leaderboard (rank, player, rating, score sheet, points, wins,
    games, playing now), and the number of pages. A fixed number of queries."""
    rank_of = entry_ranks(arena)
    total = len(rank_of)
    pages = max(1, (total + PAGE_SIZE - 1) // PAGE_SIZE)
    page = min(max(1, page), pages)
    entries = list(
        Entry.objects.filter(arena=arena)
        .select_related("player")
        .order_by("-points", "-wins", "id")[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    )
    ids = [e.pk for e in entries]
    results = results_of(ids)
    ratings = shown_ratings(arena, [e.player_id for e in entries])
    playing = {}
    for game_id, white_id, black_id in ArenaGame.objects.filter(
        arena=arena, game__status=Status.LIVE
    ).values_list("game_id", "white_id", "black_id"):
        playing[white_id] = playing[black_id] = game_id
    changes = (
        games_rating_changes_summed(ArenaGame.objects.filter(arena=arena).values("game_id"))
        if arena.status == Arena.Status.FINISHED and arena.rated
        else {}
    )
    rows = [
        Row(
            rank=rank_of[e.pk],
            entry=e,
            rating=ratings[e.player_id],
            marks=sheet(results[e.pk]).marks,
            playing_game_id=playing.get(e.pk),
            rating_change=changes.get(e.player_id),
        )
        for e in entries
    ]
    return rows, pages


def shown_ratings(arena: Arena, player_ids: list[int]) -> dict[int, int]:
    """The ratings beside the names: today's while the arena is live; once it is over, those
    the players held at its end, its own games' changes included."""
    end = arena.finished_at or arena.cancelled_at
    if arena.is_live or end is None:
        return ratings_snapshot(player_ids=player_ids, variant=arena.variant, cadence=arena.cadence)
    # Its last games are rated when they are settled, which may be a moment after the close.
    last_rated = RatingChange.objects.filter(
        period__kind=RatingPeriod.Kind.GAME,
        period__source_id__in=ArenaGame.objects.filter(arena=arena).values("game_id"),
    ).aggregate(last=Max("created_at"))["last"]
    return ratings_at(
        player_ids=player_ids,
        variant=arena.variant,
        cadence=arena.cadence,
        at=max(end, last_rated) if last_rated else end,
    )


def podium(arena: Arena) -> list[Entry]:
    return list(
        Entry.objects.filter(arena=arena, rank__lte=3, games__gt=0)
        .select_related("player")
        .order_by("rank", "-wins", "id")
    )


def live_game_id(arena: Arena, entry: Entry) -> int | None:
    """The player's game in progress in this arena, if any (one query)."""
    return (
        ArenaGame.objects.filter(arena=arena, game__status=Status.LIVE)
        .filter(Q(white=entry) | Q(black=entry))
        .values_list("game_id", flat=True)
        .first()
    )


def live_games(arena: Arena) -> list[ArenaGame]:
    return list(
        ArenaGame.objects.filter(arena=arena, game__status=Status.LIVE)
        .select_related("game", "white__player", "black__player")
        .order_by("-started_at")[:30]
    )


@dataclass(frozen=True)
class Stats:
    games: int
    white_wins: int
    black_wins: int
    draws: int
    boosts: int

    def share(self, part: int) -> int:
        return round(100 * part / self.games) if self.games else 0


def stats(arena: Arena) -> Stats:
    found = ArenaGame.objects.filter(arena=arena, ended_at__isnull=False).aggregate(
        games=Count("pk"),
        white_wins=Count("pk", filter=Q(game__result=GameResult.WHITE_WINS)),
        black_wins=Count("pk", filter=Q(game__result=GameResult.BLACK_WINS)),
        draws=Count("pk", filter=Q(game__result=GameResult.DRAW)),
        white_boosts=Count("pk", filter=Q(game__white_boosted=True)),
        black_boosts=Count("pk", filter=Q(game__black_boosted=True)),
    )
    return Stats(
        games=found["games"],
        white_wins=found["white_wins"],
        black_wins=found["black_wins"],
        draws=found["draws"],
        boosts=found["white_boosts"] + found["black_boosts"],
    )


def my_entry(arena: Arena, user) -> Entry | None:
    if not user.is_authenticated:
        return None
    return Entry.objects.filter(arena=arena, player=user).first()


def player_games(arena: Arena, entry: Entry) -> list[tuple[ArenaGame, Mark | None]]:
    """One player's games in the arena, newest first, with what each was worth to them."""
    games = list(
        ArenaGame.objects.filter(arena=arena)
        .filter(Q(white=entry) | Q(black=entry))
        .select_related("game", "white__player", "black__player")
        .order_by("started_at", "id")
    )
    marks = iter(sheet(results_of([entry.pk])[entry.pk]).marks)
    rows = [(g, next(marks) if g.ended_at else None) for g in games]
    return list(reversed(rows))


def arena_game_of(game_id: int) -> ArenaGame | None:
    return ArenaGame.objects.select_related("arena").filter(game_id=game_id).first()


def active_in_earlier_arena(arena: Arena, player_ids) -> set[int]:
    """Which of these players are active in another running arena that started before this one
    (then the start time's tie broken by id). RULES 8: a player is in at most one running arena;
    when one they entered in advance starts while they are active in another, they are paused
    in the one that starts. The same order settles a race (both made active at once)."""
    if not player_ids or arena.started_at is None:
        return set()
    earlier = Q(arena__started_at__lt=arena.started_at) | Q(
        arena__started_at=arena.started_at, arena__pk__lt=arena.pk
    )
    return set(
        Entry.objects.filter(
            earlier,
            player_id__in=player_ids,
            state=EntryState.ACTIVE,
            arena__status=Arena.Status.RUNNING,
        )
        .exclude(arena=arena)
        .values_list("player_id", flat=True)
    )


def running_entries_of(user_id: int, *, except_arena: int) -> QuerySet[Entry]:
    """The player's active entries in other running arenas (one running arena at a time)."""
    return Entry.objects.filter(
        player_id=user_id, state=EntryState.ACTIVE, arena__status=Arena.Status.RUNNING
    ).exclude(arena_id=except_arena)


def arenas_of(user) -> list[Arena]:
    """The live arenas the visitor is in (not left), for the home page. One query."""
    if not user.is_authenticated:
        return []
    return list(
        Arena.objects.live()
        .filter(entries__player=user)
        .exclude(entries__player=user, entries__state=EntryState.LEFT)
        .distinct()
        .order_by("starts_at", "id")[:5]
    )


# --- club battles (RULES 12.7) ----------------------------------------------------------------


@dataclass(frozen=True)
class BattleRow:
    rank: int
    club: Club
    score: int
    counted: list[tuple[int, str, int]]  # (rank in the arena, username, points) of its N best
    players: int


def battle_standings(arena: Arena) -> list[BattleRow]:
    """The clubs' standings of a battle, each with the N best that count (two queries)."""
    if arena.battle_top_n is None:
        return []
    clubs = {bc.club_id: bc.club for bc in arena.battle_clubs.select_related("club")}
    rows = list(
        Entry.objects.filter(arena=arena, club_id__isnull=False).values_list(
            "pk", "club_id", "player_id", "player__username", "points", "wins"
        )
    )
    names = {player: name for _pk, _club, player, name, _p, _w in rows}
    rank_of = dict(
        zip(
            [r[2] for r in rows],
            ranks([(points, wins) for *_rest, points, wins in rows]),
            strict=True,
        )
    )
    scorers = [
        battle.Scorer(club=club, player=player, points=points, wins=wins, order=pk)
        for pk, club, player, _name, points, wins in rows
        if club in clubs
    ]
    return [
        BattleRow(
            rank=row.rank,
            club=clubs[row.club],
            score=row.score,
            counted=[(rank_of[s.player], names[s.player], s.points) for s in row.counted],
            players=row.players,
        )
        for row in battle.club_standings(list(clubs), scorers, arena.battle_top_n)
    ]


def my_battle_club(arena: Arena, entry: Entry | None) -> dict | None:
    """The viewer's own part in a battle: their club, their points and whether they count
    among its N best now."""
    if arena.battle_top_n is None or entry is None or entry.club_id is None:
        return None
    better = Entry.objects.filter(arena=arena, club_id=entry.club_id).filter(
        Q(points__gt=entry.points)
        | Q(points=entry.points, wins__gt=entry.wins)
        | Q(points=entry.points, wins=entry.wins, pk__lt=entry.pk)
    )
    place = better.count() + 1
    return {"club_id": entry.club_id, "place": place, "counts": place <= arena.battle_top_n}


def battles_of_club(club_id: int) -> list[Arena]:
    return list(
        Arena.objects.filter(battle_clubs__club_id=club_id).order_by("-starts_at", "-id")[:50]
    )
