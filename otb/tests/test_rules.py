"""The arbiter's table's pure rules (RULES 13): typed results, the players' CSV, an edit
judged, the rating report. No database."""

from __future__ import annotations

from decimal import Decimal

import pytest

from events.pairing.model import Game, Pairing, PlayerState, RoundSpec
from otb.rules import (
    CSV_COLUMNS,
    UNRATED_ELO_ITALIA,
    CsvError,
    RatedGame,
    csv_template,
    judge_pairing,
    parse_typed,
    prohibited_pairs,
    rating_report,
    read_players_csv,
)


@pytest.mark.parametrize(
    "typed, result",
    [
        ("1", "1-0"),
        ("0", "0-1"),
        ("=", "½-½"),
        ("½", "½-½"),
        (" 1/2 ", "½-½"),
        ("+", "+-"),
        ("-", "-+"),
        ("00", "--"),
        ("", ""),
        ("2", None),
        ("10", None),
        ("x", None),
    ],
)
def test_typed_keys(typed, result):
    assert parse_typed(typed) == result


def test_the_template_reads_back():
    (row,) = read_players_csv(csv_template())
    assert (row.last_name, row.first_name, row.sex, row.national_rating) == (
        "Rossi",
        "Mario",
        "m",
        1650,
    )
    assert csv_template().splitlines()[0].split(";") == list(CSV_COLUMNS)


def test_commas_a_byte_order_mark_and_any_column_order():
    rows = read_players_csv("\ufeffelo_fide,cognome,provincia\n2100,Bianchi,to\n,Neri,\n\n")
    assert [(r.line, r.last_name, r.fide_rating, r.province) for r in rows] == [
        (2, "Bianchi", 2100, "TO"),
        (3, "Neri", None, ""),
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "riga 1: manca l'intestazione"),
        ("nome;elo_italia\nMario;1500\n", "riga 1: manca la colonna «cognome»"),
        ("cognome;punti\nRossi;3\n", "riga 1: colonna sconosciuta «punti»"),
        ("cognome;sesso\nRossi;M\nBianchi;X\n", "riga 3: sesso: «X» (M o F)"),
        ("cognome;nome\nRossi;Mario;extra\n", "riga 2: 3 campi, l'intestazione ne ha 2"),
        ("cognome;nome\nRossi;Mario\n;Anna\n", "riga 3: manca il cognome"),
        ("cognome;anno_nascita\nRossi;1850\n", "riga 2: anno_nascita: 1850 non è tra 1900 e 2100"),
        ("cognome;provincia\nRossi;Milano\n", "riga 2: provincia: «Milano»"),
        ("cognome\n", "riga 2: nessun giocatore"),
    ],
)
def test_a_broken_csv_names_its_line(text, message):
    with pytest.raises(CsvError) as error:
        read_players_csv(text)
    assert str(error.value).startswith(message)


def test_an_edit_is_judged_as_the_checker_words_it():
    states = [
        PlayerState(number=1, score=2, colours="W", opponents=frozenset({2})),
        PlayerState(number=2, score=0, colours="B", opponents=frozenset({1})),
        PlayerState(number=3, score=2, colours="W", opponents=frozenset({4})),
        PlayerState(number=4, score=0, colours="B", opponents=frozenset({3})),
    ]
    spec = RoundSpec(number=2, total_rounds=5)
    assert judge_pairing(states, spec, Pairing((Game(2, 3), Game(4, 1)))) == []
    assert judge_pairing(states, spec, Pairing((Game(2, 1), Game(4, 3)))) == [
        "Lim 2: rematch 2-1",
        "Lim 2: rematch 4-3",
    ]
    prohibited = prohibited_pairs([(2, "", "Alfa"), (3, "", "alfa"), (4, "Rossi", "")], club=True)
    assert prohibited == [(2, 3, "stesso circolo")]
    assert judge_pairing(states, spec, Pairing((Game(2, 3), Game(4, 1))), prohibited) == [
        "regola 13.7: 2-3 stesso circolo"
    ]


def test_the_regulations_worked_example():
    # REI "Esempio di calcolo": 1830 against 1824, 1898, 1830, 1850, 1720, 1800, 1860, 1790,
    # 5 points: the new rating is 1857 (ratings/tests keep the example step by step).
    opponents = (1824, 1898, 1830, 1850, 1720, 1800, 1860, 1790)
    players = [(1, "Esempio", 1830, None)] + [
        (n, f"Avversario {n}", r, None) for n, r in enumerate(opponents, start=2)
    ]
    scores = (2, 2, 2, 1, 1, 2, 0, 0)  # 5 points in half points: 4 wins, 2 draws, 2 losses
    games = [RatedGame(1, n, s) for n, s in zip(range(2, 10), scores, strict=True)]
    line = rating_report(players, games)[0]
    assert (line.games, line.score, line.new_rating) == (8, Decimal(5), 1857)


def test_an_unrated_player_counts_1440():
    # RULES 13.10: the unrated player U counts 1440 against a 1500. Difference 60: the REI
    # table's row "54-61" gives the higher-rated 58 %, the lower 42 %.
    # U: PA = 0,42 -> 0,4 (second decimal 2: down); won, V = 30 x (1 - 0,4) = 18 -> 1458.
    # The 1500: PA = 0,58 -> 0,6 (8: up); lost, V = 30 x (0 - 0,6) = -18 -> 1482.
    assert UNRATED_ELO_ITALIA == 1440
    u, rated = rating_report([(1, "U", None, None), (2, "R", 1500, 1600)], [RatedGame(1, 2, 2)])
    assert (u.rating, u.rating_used, u.expected, u.change, u.new_rating) == (
        None,
        1440,
        Decimal("0.4"),
        Decimal(18),
        1458,
    )
    assert (rated.expected, rated.change, rated.new_rating) == (Decimal("0.6"), Decimal(-18), 1482)
    # FIDE performance only over games against FIDE-rated opponents: U has no FIDE rating.
    assert (u.performance, rated.performance, rated.fide_games) == (None, None, 0)


def test_the_winner_never_loses_points_and_fide_performance():
    # Two FIDE-rated players drawing: p = 0,5, dp = 0, Rp = the opponent's rating.
    a, b = rating_report(
        [(1, "A", 2000, 2100), (2, "B", 1700, 1900)], [RatedGame(1, 2, 1)], first=[1, 2]
    )
    assert (a.performance, b.performance) == (1900, 2100)
    # 2000 vs 1700: difference 300 -> 85 %; A expected 0,85 -> 0,8 (5: down), drew: V = 30 x
    # (0,5 - 0,8) = -9, cancelled by art. 11 (first ex aequo); B expected 0,15 -> 0,1 (5:
    # down) and gains 30 x (0,5 - 0,1) = 12.
    assert (a.change, a.first_protected, a.new_rating) == (Decimal(-9), True, 2000)
    assert (b.change, b.new_rating) == (Decimal(12), 1712)


def test_the_fide_average_and_performance_round_alike():
    # Opponents 2000 and 2001, 1 point of 2: p = 0,5, dp = 0, so the performance is the
    # average, 2000,5, rounded half up to 2001 in both columns (not 2000 and 2001).
    x, *_ = rating_report(
        [(1, "X", 2000, 2000), (2, "A", 2000, 2000), (3, "B", 2000, 2001)],
        [RatedGame(1, 2, 2), RatedGame(3, 1, 2)],
    )
    assert (x.fide_games, x.fide_score, x.fide_average, x.performance) == (2, 1, 2001, 2001)


def test_draughts_without_an_initial_figure_leaves_the_unrated_out():
    lines = rating_report(
        [(1, "A", None, 1800), (2, "B", None, None)], [RatedGame(1, 2, 2)], unrated=None
    )
    assert [(x.games, x.new_rating, x.fide_games) for x in lines] == [(0, None, 0), (0, None, 0)]


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("1234567890123", "riga 2: fide_id: 1234567890123 non è tra 1 e 99999999999"),
        ("²", "riga 2: fide_id: «²» non è un numero"),
        ("１２", "riga 2: fide_id: «１２» non è un numero"),
    ],
)
def test_a_csv_fide_id_fits_the_trf_and_only_ascii_digits_are_numbers(cell, message):
    # RULES 13.3: a broken line is refused naming it; RULES 13.10: the TRF's FIDE id column
    # holds 11 digits, so a longer id is refused rather than cut.
    with pytest.raises(CsvError) as error:
        read_players_csv(f"cognome;fide_id\nRossi;{cell}\n")
    assert str(error.value) == message
