"""Reads of over-the-board tournaments (STYLE 2): the engine's view of one, its standings, the
pages' tables and the federations' figures (RULES 13)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from events.pairing.model import (
    BLACK,
    BYE_HALF,
    BYE_PAIRING_ALLOCATED,
    BYE_ZERO,
    WHITE,
    WIN_POINTS,
    Bye,
    Entrant,
    GameResult,
    Tournament,
)
from events.pairing.standings import round_robin_standings, swiss_standings
from otb.models import OtbBoard, OtbBye, OtbPlayer, OtbRound, OtbTournament
from otb.rules import POINTS, RatedGame, prohibited_pairs, rating_report

BYE_KINDS = {OtbBye.HALF: (BYE_HALF, 1), OtbBye.ZERO: (BYE_ZERO, 0)}


def tournaments_of(user) -> list[OtbTournament]:
    """The tournaments a user organizes or arbitrates."""
    return list(OtbTournament.objects.filter(Q(organizer=user) | Q(arbiters=user)).distinct())


def may_arbitrate(tournament: OtbTournament, user) -> bool:
    """RULES 13.1: the organizer and the co-arbiters may do everything."""
    if not user.is_authenticated:
        return False
    return tournament.organizer_id == user.pk or tournament.arbiters.filter(pk=user.pk).exists()


def pairing_rating(player: OtbPlayer) -> int | None:
    """RULES 13.3: the rating that orders the pairing numbers and goes into the TRF's rating
    column: the FIDE rating in chess if any, else the national one (F.I.D. in draughts)."""
    if player.tournament.is_draughts:
        return player.national_rating or None
    return player.fide_rating or player.national_rating or None


def last_round(tournament: OtbTournament) -> OtbRound | None:
    return tournament.rounds.order_by("-number").first()


def round_complete(round_: OtbRound) -> bool:
    return (
        round_.status == OtbRound.Status.PUBLISHED
        and not round_.boards.filter(result="").exclude(black=None).exists()
    )


def numbered_players(tournament: OtbTournament) -> list[OtbPlayer]:
    return list(tournament.players.filter(number__gt=0).order_by("number"))


def engine_tournament(tournament: OtbTournament, *, before_round: int | None = None) -> Tournament:
    """The tournament as the engine sees it (events/pairing/model.py): the rounds before
    `before_round` (every published round when None: a draft is in no standings nor TRF,
    RULES 13.6, 13.10; the rounds before one being paired are all published), with the
    players who will not be paired in `before_round` announced absent (late entries not yet
    in, withdrawals, requested byes).

    Byes: the pairing-allocated one is a board without Black (worth a win, Lim 1); a requested
    bye is half a point or nothing (TRF H / Z, RULES 13.4); a late entrant's rounds before
    entering are zero-point byes (TRF Z, RULES 13.3); a withdrawn player has nothing."""
    players = numbered_players(tournament)
    rounds = list(tournament.rounds.all())
    if before_round is not None:
        rounds = [r for r in rounds if r.number < before_round]
    else:
        rounds = [r for r in rounds if r.status == OtbRound.Status.PUBLISHED]
    held = max((r.number for r in rounds), default=0)
    numbers = {p.pk: p.number for p in players}
    games: list[GameResult] = []
    byes: list[Bye] = []
    boards = OtbBoard.objects.filter(round__in=rounds).select_related("round")
    for b in boards:
        n = b.round.number
        if b.black_id is None:
            byes.append(Bye(n, numbers[b.white_id], BYE_PAIRING_ALLOCATED, WIN_POINTS))
            continue
        if not b.result:
            continue  # a result not typed yet scores nothing so far
        white_points, black_points, played = POINTS[b.result]
        games.append(
            GameResult(
                n, numbers[b.white_id], numbers[b.black_id], white_points, black_points, played
            )
        )
    requested = {
        (bye.player_id, bye.round_number): bye.kind
        for bye in OtbBye.objects.filter(player__tournament=tournament)
    }
    for p in players:
        for n in range(1, held + 1):
            # RULES 13.4, 13.5: a requested bye is for a player taking part in its round; a
            # withdrawal from an earlier round holds to the end, and its bye scores nothing.
            kind = requested.get((p.pk, n)) if p.plays_in(n) else None
            if kind:
                bye_kind, points = BYE_KINDS[kind]
                byes.append(Bye(n, p.number, bye_kind, points))
            elif n < p.entered_round:
                byes.append(Bye(n, p.number, BYE_ZERO, 0))
    absent: frozenset[int] = frozenset()
    if before_round is not None:
        absent = frozenset(
            p.number
            for p in players
            if not p.plays_in(before_round) or (p.pk, before_round) in requested
        )
    return Tournament(
        entrants=tuple(Entrant(p.number, p.full_name, pairing_rating(p)) for p in players),
        total_rounds=tournament.total_rounds or max(held, 1),
        games=tuple(sorted(games, key=lambda g: (g.round, g.white))),
        byes=tuple(sorted(byes, key=lambda b: (b.round, b.player))),
        first_colour=WHITE if tournament.first_colour == "W" else BLACK,
        absent_next=absent,
        name=tournament.name,
        rounds_held=held,
    )


def prohibited_for(tournament: OtbTournament, round_number: int) -> list[tuple[int, int, str]]:
    """RULES 13.7: the pairs that may not meet in this round."""
    if round_number > tournament.prohibited_rounds:
        return []
    return prohibited_pairs(
        ((p.number, p.family, p.club) for p in numbered_players(tournament)),
        club=tournament.prohibit_club,
    )


@dataclass(frozen=True)
class StandingRow:
    rank: int
    player: OtbPlayer
    points: str
    buchholz: str
    sonneborn: str
    wins: int
    withdrawn: bool


def _points(units: float) -> str:
    """Platform units (win 2) as the venue reads them: 1 a win, ½ a draw."""
    whole, half = divmod(int(round(units)), 2)
    if half:
        return f"{whole}½" if whole else "½"
    return str(whole)


def standings(tournament: OtbTournament) -> list[StandingRow]:
    """RULES 4.10 through the engine, every result typed so far in the published rounds."""
    if not tournament.format:
        return []
    engine = engine_tournament(tournament)
    table = (
        round_robin_standings(engine)
        if tournament.format == "round_robin"
        else swiss_standings(engine)
    )
    by_number = {p.number: p for p in numbered_players(tournament)}
    return [
        StandingRow(
            rank=s.rank,
            player=by_number[s.player],
            points=_points(s.points),
            buchholz=_points(s.buchholz_cut1),
            sonneborn=f"{s.sonneborn_berger / 2:g}".replace(".", ","),
            wins=s.wins,
            withdrawn=by_number[s.player].withdrawn_from is not None,
        )
        for s in table
    ]


@dataclass(frozen=True)
class BoardRow:
    board: int
    white: OtbPlayer
    black: OtbPlayer | None
    result: str
    white_points: str
    black_points: str
    white_before: str = ""  # points before the round
    black_before: str = ""


def board_rows(round_: OtbRound) -> list[BoardRow]:
    """The round's boards, each player with their points before it."""
    before = points_before(round_.tournament, round_.number)
    rows = []
    for b in round_.boards.select_related("white", "black"):
        if b.black is None:
            rows.append(
                BoardRow(b.board, b.white, None, "bye", "1", "", before.get(b.white.number, ""))
            )
            continue
        wp, bp, _ = POINTS.get(b.result, (None, None, None))
        rows.append(
            BoardRow(
                b.board,
                b.white,
                b.black,
                b.result,
                _points(wp) if wp is not None else "",
                _points(bp) if bp is not None else "",
                before.get(b.white.number, ""),
                before.get(b.black.number, ""),
            )
        )
    return rows


def round_record(round_: OtbRound) -> list[dict]:
    """The round's record for its page: each entry's moment, kept as UTC ISO text in the JSON,
    as an aware datetime the template shows in the site's time zone."""
    return [{**entry, "at": datetime.fromisoformat(entry["at"])} for entry in round_.record]


def points_before(tournament: OtbTournament, round_number: int) -> dict[int, str]:
    """Each player's points before a round (the pairings' sheet shows them)."""
    engine = engine_tournament(tournament, before_round=round_number)
    return {n: _points(v) for n, v in engine.scores_after(round_number - 1).items()}


def not_playing(tournament: OtbTournament, round_number: int) -> list[tuple[OtbPlayer, str]]:
    """Who is not paired in a round and why (the pairings' sheet lists them)."""
    requested = {
        b.player_id: b.kind
        for b in OtbBye.objects.filter(player__tournament=tournament, round_number=round_number)
    }
    out = []
    for p in numbered_players(tournament):
        if not p.plays_in(round_number):
            out.append((p, "—"))  # RULES 13.5: withdrawn, their requested bye void
        elif p.pk in requested:
            out.append((p, "½" if requested[p.pk] == OtbBye.HALF else "0"))
    return out


@dataclass(frozen=True)
class CrossCell:
    text: str  # the result: 1, ½, 0, + or −
    colour: str = ""  # "w" or "b" for a game
    opponent: int | str = ""  # the opponent's rank


def cross_table(
    tournament: OtbTournament,
) -> tuple[list[int], list[tuple[StandingRow, list[CrossCell]]]]:
    """The wall chart: per player in standings order, per round, the opponent's rank, the
    colour and the result ("12b1", "+", "½H")."""
    rows = standings(tournament)
    rank_of = {r.player.number: r.rank for r in rows}
    # RULES 13.6: the public printouts show only published rounds.
    rounds = list(tournament.rounds.filter(status=OtbRound.Status.PUBLISHED).order_by("number"))
    cells: dict[tuple[int, int], CrossCell] = {}
    mine = {
        "1-0": ("1", "0"),
        "0-1": ("0", "1"),
        "½-½": ("½", "½"),
        "+-": ("+", "−"),
        "-+": ("−", "+"),
        "--": ("−", "−"),
        "": ("…", "…"),
    }
    for b in OtbBoard.objects.filter(round__in=rounds).select_related("white", "black", "round"):
        n = b.round.number
        if b.black is None:
            cells[(b.white.number, n)] = CrossCell("+")
            continue
        w, bl = mine[b.result]
        cells[(b.white.number, n)] = CrossCell(w, "w", rank_of.get(b.black.number, ""))
        cells[(b.black.number, n)] = CrossCell(bl, "b", rank_of.get(b.white.number, ""))
    for bye in OtbBye.objects.filter(player__tournament=tournament).select_related("player"):
        if bye.player.number and bye.player.plays_in(bye.round_number):  # RULES 13.5
            cells[(bye.player.number, bye.round_number)] = CrossCell(
                "½" if bye.kind == OtbBye.HALF else "0", ""
            )
    numbers = [r.number for r in rounds]
    return numbers, [
        (row, [cells.get((row.player.number, n), CrossCell("")) for n in numbers]) for row in rows
    ]


def rating_lines(tournament: OtbTournament):
    """RULES 13.10: the report of each player's rating figures over the games played."""
    engine = engine_tournament(tournament)
    players = numbered_players(tournament)
    games = [
        RatedGame(g.white, g.black, g.white_points)  # platform units = half points
        for g in engine.games
        if g.played
    ]
    table = standings(tournament)
    top = table[0].points if table else None
    first = [r.player.number for r in table if r.points == top]
    if tournament.is_draughts:
        # F.I.D.: the national rating is the F.I.D. one; its own variation (Elo-Rubele) is
        # not computed, as its regulation is not among our sources (RULES 13.10 Decision);
        # the performance is, by FIDE's table.
        rows = [(p.number, p.full_name, None, p.national_rating) for p in players]
        return rating_report(rows, games, first, unrated=None)
    rows = [(p.number, p.full_name, p.national_rating, p.fide_rating) for p in players]
    return rating_report(rows, games, first)
