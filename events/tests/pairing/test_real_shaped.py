"""An arbiter's file as a desktop program writes it, over 200 players (the arbiter's desk
review: "the checker reads the points column and files over 200 players"). The file is built
from a Swiss played by our engine, then written the way Swiss-Manager and Vega write TRF-16:
FIDE's default 1/0.5/0 points (no point-system line), every column of the 001 line filled
(sex, title, federation, FIDE id, birth date, rank), the header lines, CRLF line ends, a
requested half-point bye written `H`. The reader takes it whole, its points column is checked
against the results (a wrong one refused, naming the line), and the checker judges every
round."""

from __future__ import annotations

from dataclasses import replace

import pytest

from events.pairing.checker import check_tournament
from events.pairing.model import BYE_HALF, Bye
from events.pairing.simulate import simulate
from events.pairing.trf import TrfError, read_trf

PLAYERS, ROUNDS = 240, 5


def desktop_file(tournament) -> str:
    """`tournament` as a desktop program's TRF-16 (module docstring)."""
    scores = tournament.scores_after(tournament.rounds_played)
    rank = {
        e.number: i
        for i, e in enumerate(
            sorted(tournament.entrants, key=lambda e: (-scores[e.number], e.number)), start=1
        )
    }
    blocks: dict[tuple[int, int], str] = {}
    code = {2: "1", 1: "=", 0: "0"}
    for g in tournament.games:
        w, b = (
            (code[g.white_points], code[g.black_points])
            if g.played
            else (
                "+" if g.white_points else "-",
                "+" if g.black_points else "-",
            )
        )
        blocks[(g.white, g.round)] = f"{g.black:4d} w {w}"
        blocks[(g.black, g.round)] = f"{g.white:4d} b {b}"
    for bye in tournament.byes:
        blocks[(bye.player, bye.round)] = "0000 - " + ("H" if bye.kind == BYE_HALF else "U")
    lines = [
        "012 Open Internazionale Citta di Prova",
        "022 Prova",
        "032 ITA",
        "042 2026/08/01",
        "052 2026/08/05",
        f"062 {PLAYERS}",
        f"072 {PLAYERS}",
        "092 Individual: Swiss-System",
        "102 IA Arbitro Capo",
        "122 90 min + 30 sec",
    ]
    for e in tournament.entrants:
        n = e.number
        points = scores[n] / 2  # FIDE's 1 / 0.5 / 0
        head = (
            f"001 {n:4d} {'mw'[n % 2]}{'FM ' if n < 4 else '   '} "
            f"{f'Giocatore{n:04d}, Nome':<33} {e.rating or 0:4d} ITA {800000 + n:>11d} "
            f"{1950 + n % 50:04d}/01/01 {points:4.1f} {rank[n]:4d}"
        )
        rounds = "".join(f"  {blocks.get((n, r), ''):<8}" for r in range(1, ROUNDS + 1))
        lines.append((head + rounds).rstrip())
    lines.append("XXR 5")
    return "\r\n".join(lines) + "\r\n"


@pytest.fixture(scope="module")
def played():
    report = simulate(PLAYERS, ROUNDS, seed=7, absence_percent=1.0, forfeit_percent=1.0)
    tournament = report.tournament
    # An announced absence of the last round becomes a requested half-point bye, as arbiters
    # give them (in the last round, so no later pairing was made without knowing of it).
    absent = next(
        (e.number, r)
        for r in (ROUNDS,)
        for e in tournament.entrants
        if all(e.number not in (g.white, g.black) for g in tournament.games if g.round == r)
        and all(b.player != e.number for b in tournament.byes if b.round == r)
    )
    byes = (*tournament.byes, Bye(absent[1], absent[0], BYE_HALF, 1))
    return replace(tournament, byes=tuple(sorted(byes, key=lambda b: (b.round, b.player))))


def test_a_desktop_programs_file_of_240_players_is_read_and_judged(played):
    text = desktop_file(played)
    read = read_trf(text)
    assert len(read.entrants) == PLAYERS
    assert sorted(read.games, key=str) == sorted(played.games, key=str)
    assert sorted(read.byes, key=str) == sorted(played.byes, key=str)
    assert read.scores_after(ROUNDS) == played.scores_after(ROUNDS)
    findings = check_tournament(read)
    assert [f.agrees for f in findings] == [True] * ROUNDS


def test_a_points_column_that_contradicts_the_results_is_refused(played):
    lines = desktop_file(played).split("\r\n")
    index = next(i for i, line in enumerate(lines) if line.startswith("001  150"))
    line = lines[index]
    wrong = float(line[80:84]) + 0.5
    lines[index] = line[:80] + f"{wrong:4.1f}" + line[84:]
    with pytest.raises(TrfError) as error:
        read_trf("\r\n".join(lines))
    assert error.value.line_number == index + 1
    assert "player 150: the points column (columns 81-84) says" in str(error.value)
