"""Reading games and challenges for pages (STYLE 2)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import commitments, player_ratings
from games.models import Challenge, ChallengeStatus, Game, PoolEntry, Status
from games.rules import openings, variant
from games.rules.timecontrol import Cadence, TimeControl


def open_challenges() -> QuerySet[Challenge]:
    """Open challenges everyone may see in the lobby (open ones, not those addressed to one)."""
    return Challenge.objects.filter(
        status=ChallengeStatus.OPEN, opponent__isnull=True
    ).select_related("challenger")


def challenges_of(user_id: int) -> QuerySet[Challenge]:
    """Open challenges the user posted or that are addressed to them."""
    return Challenge.objects.filter(
        Q(challenger_id=user_id) | Q(opponent_id=user_id), status=ChallengeStatus.OPEN
    ).select_related("challenger", "opponent")


def challenges_addressed_to(user_id: int) -> QuerySet[Challenge]:
    return Challenge.objects.filter(
        opponent_id=user_id, status=ChallengeStatus.OPEN
    ).select_related("challenger")


def live_game_id_of(user_id: int) -> int | None:
    return (
        Game.objects.filter(Q(white_id=user_id) | Q(black_id=user_id), status=Status.LIVE)
        .order_by("-id")
        .values_list("pk", flat=True)
        .first()
    )


# Issue 24 Decision: a game is waiting for a player when it opened less than a minute ago, is
# still live, and no page of theirs has sat at its board yet (their colour's `*_sat`, set by
# their first game socket). The site socket tells each page it opens about such a game, so a
# `mygame` push lost (socket down at that instant, a page opened just after it) does not cost
# the game. Once they have sat, their other pages stay where they are (a second tab, the
# standings looked at between moves); after a minute nothing is pushed unasked (the banner
# still shows the game: RULES 3, the clock runs meanwhile).
WAITING_FOR_SECONDS = 60


def game_waiting_for(user_id: int, *, now: datetime | None = None) -> int | None:
    """The id of the game just opened for this user that they have not sat at yet, or None."""
    since = (now or timezone.now()) - timedelta(seconds=WAITING_FOR_SECONDS)
    return (
        Game.objects.filter(
            Q(white_id=user_id, white_sat=False) | Q(black_id=user_id, black_sat=False),
            status=Status.LIVE,
            created_at__gte=since,
        )
        .order_by("-id")
        .values_list("pk", flat=True)
        .first()
    )


def live_games(limit: int = 20) -> QuerySet[Game]:
    return Game.objects.filter(status=Status.LIVE).select_related("white", "black")[:limit]


@dataclass(frozen=True)
class WatchRow:
    """A game being played, as the lists to watch show it (issue 16)."""

    game: Game
    white_rating: int
    black_rating: int
    event: object | None  # the tournament or arena, if any


def watch_rows(games) -> list[WatchRow]:
    """Rows for live games with their players' ratings and event: a fixed number of queries
    (the games, the ratings, one per kind of event)."""
    games = list(games)
    shown = player_ratings.for_games(games)
    return [
        WatchRow(
            game=g,
            white_rating=shown[g.pk][g.white_id].rating,
            black_rating=shown[g.pk][g.black_id].rating,
            event=g.event if g.event_type_id else None,
        )
        for g in games
    ]


def games_being_played(*, variant: str = "") -> QuerySet[Game]:
    """Games being played now, newest first, with what their rows show."""
    games = Game.objects.filter(status=Status.LIVE).select_related("white", "black", "challenge")
    if variant:
        games = games.filter(variant=variant)
    return games.prefetch_related("event").order_by("-created_at", "-id")


def live_count() -> int:
    return Game.objects.filter(status=Status.LIVE).count()


def recent_games_of(player_id: int, limit: int = 20) -> QuerySet[Game]:
    return Game.objects.filter(Q(white_id=player_id) | Q(black_id=player_id)).select_related(
        "white", "black"
    )[:limit]


def game_get(game_id: int) -> Game:
    return Game.objects.select_related("white", "black").get(pk=game_id)


def board_geometry(variant_code: str) -> dict:
    """How the client draws a draughts board: size and (row, col) of each numbered square,
    row 0 at the top, White at the bottom (each federation's own numbering)."""
    rules = variant(variant_code)
    board = getattr(rules, "board", None)
    if board is None:
        return {"size": 8, "squares": []}
    return {"size": board.size, "squares": [list(rc) for rc in board.coords]}


def game_export(game: Game, *, event: str = "Circolo") -> str:
    """The game's PGN (chess) or PDN (draughts); `event` names its event in the headers (every
    header value is escaped by the rules' export)."""
    rules = variant(game.variant)
    headers = {
        "Event": event,
        "White": game.white.username,
        "Black": game.black.username,
        "Date": game.created_at.strftime("%Y.%m.%d"),
        "TimeControl": f"{game.base_seconds}+{game.increment_seconds}",
    }
    result = None
    if game.result and game.result != "0-0":
        from games.rules import Result

        result = Result(game.result)
    start = game.start_fen if game.start_fen != rules.start_fen() else None
    return rules.export(game.moves, start_fen=start, headers=headers, result=result)


def pool_counts() -> dict[tuple[str, int, int], int]:
    """How many wait in each quick-pairing pool (variant, base, increment; rated and casual
    together): one query, for the lobby's grid."""
    rows = PoolEntry.objects.values("variant", "base_seconds", "increment_seconds").annotate(
        n=Count("id")
    )
    return {(r["variant"], r["base_seconds"], r["increment_seconds"]): r["n"] for r in rows}


def pool_entry_of(user_id: int) -> PoolEntry | None:
    return PoolEntry.objects.filter(player_id=user_id).first()


@dataclass(frozen=True)
class OpeningShown:
    """The opening an event imposed (RULES 6), as the game page shows it: named, its moves
    written as the move list writes moves ([Italian, English] each), and how the list
    numbers what follows."""

    name: str
    notation: list[list[str]]
    # The move number of the first ply shown, and whether that ply is the second mover's
    # (a position given with the other side to move): "1. … 6-11".
    first_number: int
    offset: int


def opening_shown(game: Game) -> OpeningShown:
    rules = variant(game.variant)
    notation: list[list[str]] = []
    if game.opening_moves:
        fen = rules.start_fen()
        for move in game.opening_moves:
            notation.append([rules.notation(fen, move, "it"), rules.notation(fen, move, "en")])
            fen = rules.apply(fen, move)
        start = rules.start_fen()
    else:
        start = game.start_fen
    offset = 0 if rules.side_to_move(start) is rules.first_to_move else 1
    first_number = 1
    fields = start.split()
    if game.variant == "chess" and len(fields) == 6 and fields[5].isdigit():
        first_number = max(1, int(fields[5]))  # a chess FEN says which move it is
    if game.opening_number:
        drawn = openings.by_number(game.opening_number)
        name = _("Apertura n. %(number)d della tabella F.I.D., classe %(cls)s") % {
            "number": game.opening_number,
            "cls": drawn.class_label(game.variant),
        }
    elif game.opening_moves:
        n = len(game.opening_moves)
        name = ngettext("%(n)d mossa a caso", "%(n)d mosse a caso", n) % {"n": n}
    else:
        name = ""
    return OpeningShown(name, notation, first_number, offset)


def game_positions(game: Game) -> list[str]:
    """Every position of the game, the start first: what move-list navigation shows."""
    return variant(game.variant).replay(game.moves, game.start_fen)


@dataclass(frozen=True)
class RematchState:
    """Where a rematch of a finished game stands for one of its players (issue 16)."""

    mine: Challenge | None  # my offer, still open
    theirs: Challenge | None  # the opponent's offer, waiting for my answer
    declined: bool  # my last offer was declined
    next_game_id: int | None  # the rematch was accepted: its game


def rematch_state(game: Game, user_id: int) -> RematchState:
    offers = list(Challenge.objects.filter(rematch_of=game).order_by("-created_at", "-id")[:5])
    accepted = next((c for c in offers if c.status == ChallengeStatus.ACCEPTED), None)
    mine = next(
        (c for c in offers if c.status == ChallengeStatus.OPEN and c.challenger_id == user_id),
        None,
    )
    theirs = next(
        (c for c in offers if c.status == ChallengeStatus.OPEN and c.opponent_id == user_id),
        None,
    )
    last_mine = next((c for c in offers if c.challenger_id == user_id), None)
    return RematchState(
        mine=mine,
        theirs=theirs,
        declined=last_mine is not None and last_mine.status == ChallengeStatus.DECLINED,
        next_game_id=accepted.game_id if accepted else None,
    )


# RULES 2: the cadences' names, as the lobby's grid shows them.
CADENCE_LABELS = {
    Cadence.BULLET: gettext_lazy("Bullet"),
    Cadence.BLITZ: gettext_lazy("Lampo"),
    Cadence.RAPID: gettext_lazy("Rapido"),
    Cadence.CLASSICAL: gettext_lazy("Classica"),
}


def cadence_label(base_seconds: int, increment_seconds: int) -> str:
    return str(CADENCE_LABELS[TimeControl(base_seconds, increment_seconds).cadence])


def commitments_of(user_id: int) -> list[commitments.Commitment]:
    """RULES 4.7: the events that will pair the player soon (warned before a challenge)."""
    return commitments.of(user_id)


def with_challenger_ratings(challenges) -> list[Challenge]:
    """The challenges with `challenger_rating` set (their variant and cadence): one query."""
    challenges = list(challenges)
    now = player_ratings.current(
        player_ratings.key(c.challenger_id, c.variant, c.base_seconds, c.increment_seconds)
        for c in challenges
    )
    for c in challenges:
        c.challenger_rating = now.get(
            player_ratings.key(c.challenger_id, c.variant, c.base_seconds, c.increment_seconds)
        )
    return challenges
