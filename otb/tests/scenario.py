"""The tournament of RULES 13's "done when": a 30-player Swiss of 7 rounds entered from a CSV
(29 players; the 30th a late entry after round 2), with a requested half-point bye, a
withdrawal, a forfeit, a double forfeit and an edited pairing. Results are a fixed function of
the board, so every run plays the same tournament; the browser test types one round of it on
the round sheet, the service test every round through the service."""

from __future__ import annotations

from datetime import date

from otb import services
from otb.models import OtbBoard, OtbPlayer, OtbRound, OtbTournament
from otb.rules import PlayerRow
from otb.services import OtbOptions

SURNAMES = (
    "Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Bruno Gallo Conti "
    "DeLuca Mancini Costa Giordano Rizzo Lombardi Moretti Barbieri Fontana Santoro Mariani "
    "Rinaldi Caruso Ferrara Galli Martini"
).split()

LATE = PlayerRow(line=0, last_name="Verdi", first_name="Luca", sex="m", national_rating=1900)
HALF_BYE = (7, 4)  # pairing number 7 asks for a half-point bye in round 4
WITHDRAWN = (12, 5)  # pairing number 12 withdraws from round 5 on
FORFEIT = (3, 5, "+")  # round 3, board 5: Black did not come
DOUBLE_FORFEIT = (6, 2, "00")  # round 6, board 2: neither came


def rating_of(i: int) -> tuple[str, str]:
    """Elo Italia and FIDE of the i-th line (0-based): a spread field, five without Elo Italia
    (they count 1440, RULES 13.10) and some with a FIDE rating."""
    national = "" if i % 6 == 5 else str(2150 - 23 * i)
    fide = str(2100 - 25 * i) if i % 3 == 0 else ""
    return national, fide


def csv_text() -> str:
    lines = [
        "cognome;nome;sesso;anno_nascita;tessera_fsi;fide_id;circolo;provincia;elo_italia;elo_fide"
    ]
    for i, surname in enumerate(SURNAMES):
        national, fide = rating_of(i)
        fide_id = str(2_000_000 + i) if fide else ""
        sex = "F" if i % 4 == 1 else "M"
        lines.append(
            f"{surname};Nome{i};{sex};{1960 + i};{100000 + i};{fide_id};Circolo {i % 3};MI;{national};{fide}"
        )
    return "\n".join(lines) + "\n"


def typed_for(round_number: int, board: OtbBoard) -> str:
    """The result typed on a board: a fixed function of who plays it and when."""
    for number, at, code in (FORFEIT, DOUBLE_FORFEIT):
        if (round_number, board.board) == (number, at):
            return code
    s = (board.white.number * 7 + board.black.number * 3 + round_number) % 5
    return "1" if s < 2 else ("=" if s == 2 else "0")


def open_tournament(organizer) -> OtbTournament:
    tournament = services.otb_create(
        organizer=organizer,
        data=OtbOptions(
            name="Open del Circolo",
            variant="chess",
            cadence="classical",
            time_control="90'+30\"",
            format_choice="auto",
            rounds_wanted=None,
            venue="Sala del circolo, Milano",
            starts_on=date(2026, 12, 5),
            ends_on=date(2026, 12, 13),
            prohibited_rounds=0,
            prohibit_club=False,
        ),
    )
    count = services.players_import(tournament_id=tournament.pk, by=organizer, text=csv_text())
    assert count == 29
    return tournament


def player(tournament: OtbTournament, number: int) -> OtbPlayer:
    return tournament.players.get(number=number)


def before_round(tournament: OtbTournament, organizer, number: int) -> dict:
    """What happens at the desk before round `number` is paired; returns what it did."""
    done: dict = {}
    if number == 3:
        late = services.player_add(tournament_id=tournament.pk, by=organizer, row=LATE)
        done["late"] = late
    if number == HALF_BYE[1]:
        services.bye_request(
            tournament_id=tournament.pk,
            by=organizer,
            player_id=player(tournament, HALF_BYE[0]).pk,
            round_number=HALF_BYE[1],
            kind="half",
        )
    if number == WITHDRAWN[1]:
        services.player_withdraw(
            tournament_id=tournament.pk,
            by=organizer,
            player_id=player(tournament, WITHDRAWN[0]).pk,
            from_round=WITHDRAWN[1],
        )
    return done


def edit_round_two(tournament: OtbTournament, organizer) -> dict:
    """Round 2's draft: an exchange that would be a rematch is refused (Lim 2), then a legal
    exchange of two Blacks is made; returns both."""
    round_ = tournament.rounds.get(number=2)
    first = tournament.rounds.get(number=1).boards.select_related("white", "black").get(board=1)
    a, b = first.white.number, first.black.number
    boards = list(round_.boards.select_related("white", "black"))
    opponent_of_a = next(
        (x.black if x.white.number == a else x.white) for x in boards if a in _numbers(x)
    )
    refused = services.round_exchange(
        tournament_id=tournament.pk,
        by=organizer,
        number=2,
        first=b,
        second=opponent_of_a.number,
    )
    assert not refused.applied
    legal = None
    games = [x for x in boards if x.black is not None]
    for x, y in zip(games[2::2], games[3::2], strict=False):
        if not services.round_exchange(
            tournament_id=tournament.pk,
            by=organizer,
            number=2,
            first=x.black.number,
            second=y.black.number,
        ).applied:
            continue
        legal = (x.black.number, y.black.number)
        break
    return {"rematch": (b, opponent_of_a.number), "refused": refused, "legal": legal}


def _numbers(board: OtbBoard) -> tuple[int, ...]:
    return (board.white.number, board.black.number if board.black else 0)


def type_round(tournament: OtbTournament, organizer, number: int) -> None:
    round_ = tournament.rounds.get(number=number)
    for board in round_.boards.select_related("white", "black").exclude(black=None):
        services.result_set(
            tournament_id=tournament.pk,
            by=organizer,
            number=number,
            board=board.board,
            typed=typed_for(number, board),
        )


def pair_and_publish(tournament: OtbTournament, organizer, number: int) -> OtbRound:
    before_round(tournament, organizer, number)
    round_ = services.round_pair(tournament_id=tournament.pk, by=organizer)
    assert round_.number == number
    if number == 2:
        edit_round_two(tournament, organizer)
    services.round_publish(tournament_id=tournament.pk, by=organizer, number=number)
    return round_


def play(tournament: OtbTournament, organizer, rounds=range(1, 8), typed_by=None) -> None:
    """Rounds paired, published and typed; `typed_by(number)` types a round itself (the
    browser) and returns True, or returns False to leave it to the service."""
    for number in rounds:
        pair_and_publish(tournament, organizer, number)
        if typed_by is None or not typed_by(number):
            type_round(tournament, organizer, number)
