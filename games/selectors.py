"""Reading games and challenges for pages (STYLE 2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Q, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import commitments, player_ratings
from games.models import (
    Challenge,
    ChallengeStatus,
    EndReason,
    Game,
    GameResult,
    PoolEntry,
    Status,
)
from games.rules import MoveNode, Result, chess_openings, openings, variant, variants
from games.rules.chess_openings import ChessOpening
from games.rules.export import GameRecord, game_headers
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


# Decision (docs/protocol.md, "Site socket"): a challenge "just came" for this long. A page
# written with its notices in it (the game page) opens its site socket well within it, even when
# a round start queues the pages; a page that fetches its notices as it loads fetches them once
# more when a challenge came in this window.
CHALLENGE_CAME_SECONDS = 30


def challenge_came_to(user_id: int, *, now: datetime | None = None) -> bool:
    """Whether an open challenge was addressed to this user in the last moments (one query)."""
    since = (now or timezone.now()) - timedelta(seconds=CHALLENGE_CAME_SECONDS)
    return Challenge.objects.filter(
        opponent_id=user_id, status=ChallengeStatus.OPEN, created_at__gte=since
    ).exists()


def live_game_id_of(user_id: int) -> int | None:
    return (
        Game.objects.filter(Q(white_id=user_id) | Q(black_id=user_id), status=Status.LIVE)
        .order_by("-id")
        .values_list("pk", flat=True)
        .first()
    )


# Decision (docs/protocol.md, "Site socket"): a game is waiting for a player when it opened less
# than a minute ago, is still live, and no page of theirs has sat at its board yet (their colour's
# `*_sat`, set by their first game socket). The site socket tells each page it opens about such a
# game, so a `mygame` push lost (socket down at that instant, a page opened just after it) does
# not cost the game. Once they have sat, their other pages stay where they are (a second tab, the
# standings looked at between moves); after a minute nothing is pushed unasked (the banner still
# shows the game: RULES 3, the clock runs meanwhile).
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
    """A game being played, as the lists to watch show it."""

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


class Outcome:
    """A game's result for one of its players, as the player page's list says it."""

    WIN, LOSS, DRAW, NIL, LIVE, ABORTED = "win", "loss", "draw", "nil", "live", "aborted"


_OUTCOME_OF = {  # (result, the player's colour) -> outcome
    ("1-0", "white"): Outcome.WIN,
    ("1-0", "black"): Outcome.LOSS,
    ("0-1", "white"): Outcome.LOSS,
    ("0-1", "black"): Outcome.WIN,
    ("1/2-1/2", "white"): Outcome.DRAW,
    ("1/2-1/2", "black"): Outcome.DRAW,
    ("0-0", "white"): Outcome.NIL,  # RULES 3: neither player sat, nobody scores
    ("0-0", "black"): Outcome.NIL,
}


@dataclass(frozen=True)
class PlayerGameRow:
    """One game of a player's recent games, from that player's side."""

    game: Game
    colour: str  # "white" / "black": the colour the player had
    outcome: str  # an Outcome
    opponent: object  # the opponent (a User)
    opponent_rating: int  # before the game when it was rated, else their current rating
    change: int | None  # what this game did to the player's rating; None: unrated, or not known
    rated_with_event: bool  # rated with its tournament as one period: no change of its own
    event: object | None  # the tournament or arena, if any
    event_label: str  # "torneo", "arena"; "" without an event
    from_challenge: bool  # without an event: a challenge ("Sfida"), else quick pairing


def player_game_rows(player_id: int, limit: int = 20) -> list[PlayerGameRow]:
    """The player's recent games, newest first, as their page lists them: outcome, opponent
    and their rating, the rating change of the game, the event. A fixed number of queries
    whatever the number of games: the games (with players and challenge), one per kind of
    event, and the ratings' (two, four with tournament games)."""
    games = list(
        recent_games_of(player_id, limit).select_related("challenge").prefetch_related("event")
    )
    shown = player_ratings.for_games(games)
    rows = []
    for g in games:
        colour = "white" if g.white_id == player_id else "black"
        opponent_id = g.black_id if colour == "white" else g.white_id
        event = g.event if g.event_type_id else None
        rows.append(
            PlayerGameRow(
                game=g,
                colour=colour,
                outcome=_outcome(g, colour),
                opponent=g.black if colour == "white" else g.white,
                opponent_rating=shown[g.pk][opponent_id].rating,
                change=shown[g.pk][player_id].delta if g.rated and not g.is_live else None,
                rated_with_event=g.rated and g.rated_with_event,
                event=event,
                event_label=str(event._meta.verbose_name) if event is not None else "",
                from_challenge=_has_challenge(g),
            )
        )
    return rows


def _outcome(game: Game, colour: str) -> str:
    if game.is_live:
        return Outcome.LIVE
    if game.reason == EndReason.ABORTED:
        return Outcome.ABORTED  # RULES 3: no result
    return _OUTCOME_OF.get((game.result, colour), "")


def _has_challenge(game: Game) -> bool:
    try:
        return game.challenge is not None
    except Challenge.DoesNotExist:
        return False


def game_get(game_id: int) -> Game:
    return Game.objects.select_related("white", "black").get(pk=game_id)


def board_geometry(variant_code: str) -> dict:
    """How the client draws the board: which board ("chessground", or "draughts": our SVG
    board), its size, and for draughts the (row, col) of each numbered square, row 0 at the
    top, White at the bottom (each federation's own numbering)."""
    shown = variants.info(variant_code)
    squares = []
    if shown.board_kind == "draughts":
        squares = [list(rc) for rc in shown.rules.board.coords]
    return {"kind": shown.board_kind, "size": shown.board_size, "squares": squares}


def chess_opening(game: Game) -> ChessOpening | None:
    """The chess game's opening (ECO and name): the last of its positions found in
    the table (`chess_openings.opening_of`), from its start (after the moves an event imposed,
    if any). None for draughts, and while no position has a name. Reads only the columns a
    live move keeps (`positions`, `fen`), so a game remembered by a socket process
    (`services.memory`) loads nothing more for it."""
    if not variants.info(game.variant).eco_openings:
        return None
    return chess_openings.opening_of([*game.positions, game.fen])


def chess_opening_json(game: Game) -> dict[str, str] | None:
    opening = chess_opening(game)
    if opening is None:
        return None
    return {"eco": opening.eco, "name": opening.name, "name_it": opening.name_it}


def _ratings_at_start(games: list[Game]) -> dict[int, dict[int, tuple[int, int | None]]]:
    """game id -> player id -> (rating at the start, what the game changed): the ratings kept
    on the game when it opened, with what a settled rated game changed (None when rated with
    its event as one period, or not settled yet). For a game opened before the ratings were
    kept: the rating a settled rated game changed, or a live game's players' current ratings,
    which are those it started at (RULES 1: one live game at a time). Two queries at most,
    whatever the number of games."""
    kept = {
        g.pk: {g.white_id: (g.white_rating, None), g.black_id: (g.black_rating, None)}
        for g in games
        if g.white_rating is not None and g.black_rating is not None
    }
    live = [g for g in games if g.is_live and g.pk not in kept]
    keys = {
        (g.pk, pid): player_ratings.key(pid, g.variant, g.base_seconds, g.increment_seconds)
        for g in live
        for pid in (g.white_id, g.black_id)
    }
    now = player_ratings.current(set(keys.values())) if keys else {}
    rated = [g.pk for g in games if not g.is_live and g.rated]
    changes = player_ratings.game_changes(rated) if rated else {}
    shown: dict[int, dict[int, tuple[int, int | None]]] = {}
    for (game_id, pid), k in keys.items():
        if k in now:
            shown.setdefault(game_id, {})[pid] = (now[k], None)
    for game_id, by_player in changes.items():
        for pid, (before, after) in by_player.items():
            shown.setdefault(game_id, {})[pid] = (
                before,
                None if after is None else after - before,
            )
    for game_id, by_player in kept.items():  # the ratings kept at the start stand
        for pid, (before, _none) in by_player.items():
            change = shown.get(game_id, {}).get(pid, (None, None))[1]
            shown.setdefault(game_id, {})[pid] = (before, change)
    return shown


def _event_name(game: Game) -> str:
    event = game.event  # a tournament or an arena (generic: games imports neither)
    if event is not None:
        return str(event)
    return _("Partita valutata") if game.rated else _("Partita amichevole")


def games_export(
    games: list[Game],
    *,
    site: str,
    event: str | None = None,
    rounds: dict[int, str] | None = None,
    analysed: Mapping[int, Sequence[str | MoveNode]] | None = None,
) -> str:
    """The games' PGN (chess) or PDN (draughts), one after the other: `games_texts`, joined."""
    return "\n".join(games_texts(games, site=site, event=event, rounds=rounds, analysed=analysed))


def games_texts(
    games: list[Game],
    *,
    site: str,
    event: str | None = None,
    rounds: dict[int, str] | None = None,
    analysed: Mapping[int, Sequence[str | MoveNode]] | None = None,
) -> list[str]:
    """Each game's PGN (chess) or PDN (draughts), in the games' order. `site` is the
    site's absolute root (the game's URL is its Site tag); `event` names every game's event
    (else each game's own); `rounds` gives a tournament game's round ("3", "3.2" for the
    second game of a pairing), else the game's event says it, else "-"; `analysed` gives a
    game's moves with the variations of its analysis (its main line the game's moves: the
    caller checks), written in the file. Every header value is escaped by the rules' export.
    Ratings in two queries whatever the number of games, and each event's rounds in one
    (load the games' events with `prefetch_related("event")`: one query per kind of event)."""
    ratings = _ratings_at_start(games)
    event_rounds: dict[tuple[int, int], dict[int, str]] = {}
    texts = []
    for game in games:
        rules = variant(game.variant)
        game_ratings = ratings.get(game.pk, {})
        white, black = game_ratings.get(game.white_id), game_ratings.get(game.black_id)
        result = None
        if game.result and game.result != GameResult.NOBODY_SCORES:
            result = Result(game.result)  # RULES 3: 0-0 has no PGN spelling: "*"
        if rounds is not None:
            round_ = rounds.get(game.pk, "-")
        else:
            round_ = _event_rounds(game, event_rounds).get(game.pk, "-")
        fid = ""
        if game.opening_number and openings.uses_table(game.variant):
            drawn = openings.by_number(game.opening_number)
            fid = f"F.I.D. {game.opening_number} ({drawn.class_label(game.variant)})"
        record = GameRecord(
            variant=game.variant,
            event=event if event is not None else _event_name(game),
            site=site.rstrip("/") + reverse("games:game", args=[game.pk]),
            started_at=game.created_at,
            white=game.white.username,
            black=game.black.username,
            result=result,
            reason=game.reason,
            over=not game.is_live,
            base_seconds=game.base_seconds,
            increment_seconds=game.increment_seconds,
            round=round_,
            white_rating=white[0] if white else None,
            black_rating=black[0] if black else None,
            white_rating_diff=white[1] if white else None,
            black_rating_diff=black[1] if black else None,
            chess_opening=chess_opening(game),
            fid_opening=fid,
        )
        start = game.start_fen if game.start_fen != rules.start_fen() else None
        line = (analysed or {}).get(game.pk)
        texts.append(
            rules.export(
                game.moves if line is None else line,
                start_fen=start,
                headers=game_headers(record),
                result=result,
                clocks=game.clocks,
                # The moves as the game wrote them when they were played: not worked out again
                # (most of an export's cost, thousands of games in a player's data archive).
                notation=[english for _italian, english in game.notation] if line is None else None,
            )
        )
    return texts


def _event_rounds(game: Game, known: dict[tuple[int, int], dict[int, str]]) -> dict[int, str]:
    """The Round tags of every game of `game`'s event (a tournament says them; an arena has
    none), asked of the event once per export, not once per game: a tournament's rounds are
    one query over all its pairings."""
    if game.event_type_id is None:
        return {}
    key = (game.event_type_id, game.event_id)
    if key not in known:
        game_rounds = getattr(game.event, "game_rounds", None)
        known[key] = game_rounds() if game_rounds is not None else {}
    return known[key]


def game_export(game: Game, *, site: str, analysed: Sequence[str | MoveNode] | None = None) -> str:
    """One game's PGN (chess) or PDN (draughts): `games_export`, with the variations of its
    analysis when `analysed` is given."""
    return games_export(
        [game], site=site, analysed=None if analysed is None else {game.pk: analysed}
    )


def pool_counts(variant_code: str) -> dict[tuple[int, int], int]:
    """How many wait now in each quick-pairing pool of one variant, by (base, increment),
    rated and casual together: one query, for the lobby's grid. A player waits only while a
    lobby page of theirs is open (`games.services.pools`), so this is who waits now."""
    rows = (
        PoolEntry.objects.filter(variant=variant_code)
        .values("base_seconds", "increment_seconds")
        .annotate(n=Count("id"))
    )
    return {(r["base_seconds"], r["increment_seconds"]): r["n"] for r in rows}


def playing_counts(variant_code: str) -> dict[tuple[int, int], int]:
    """How many games of one variant are being played now, by (base, increment): one query,
    for the lobby's grid. Every live game of that time control counts, whatever
    opened it (a pool, a challenge, a tournament round, an arena): it is that game being
    played, as a lichess player reads "in gioco" under a time control."""
    rows = (
        Game.objects.filter(status=Status.LIVE, variant=variant_code)
        .values("base_seconds", "increment_seconds")
        .annotate(n=Count("id"))
    )
    return {(r["base_seconds"], r["increment_seconds"]): r["n"] for r in rows}


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
    first_number = rules.move_number(start)  # a chess FEN says which move it is
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
    """Where a rematch of a finished game stands for one of its players."""

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
