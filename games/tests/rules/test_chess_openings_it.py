"""Chess opening names in Italian where established (pure)."""

from __future__ import annotations

import pytest

from games.rules import chess_openings
from games.rules.chess_openings_it import FAMILIES, italian


@pytest.mark.parametrize(
    ("english", "expected"),
    [
        ("Sicilian Defense: Najdorf Variation", "Difesa siciliana: variante Najdorf"),
        ("Ruy Lopez: Marshall Attack", "Partita spagnola: attacco Marshall"),
        ("French Defense: Advance Variation", "Difesa francese: variante di spinta"),
        (
            "Queen's Gambit Declined: Exchange Variation",
            "Gambetto di donna rifiutato: variante di cambio",
        ),
        (
            "Italian Game: Two Knights Defense, Fried Liver Attack",
            "Partita italiana: difesa dei due cavalli, attacco Fegatello",
        ),
        (
            "Queen's Gambit Declined: Orthodox Defense, Main Line",
            "Gambetto di donna rifiutato: difesa ortodossa, linea principale",
        ),
        ("Ruy Lopez: Morphy Defense, Classical Defense", "Partita spagnola: difesa Morphy, difesa classica"),
        (
            "Sicilian Defense: Smith-Morra Gambit Accepted",
            "Difesa siciliana: gambetto Smith-Morra accettato",
        ),
        ("Ruy Lopez: Closed", "Partita spagnola: chiusa"),
        ("Italian Game: Giuoco Pianissimo", "Partita italiana: Giuoco pianissimo"),
        ("Petrov's Defense", "Difesa Petrov"),
        # A descriptive English name has no Italian of its own here: it stays as it is.
        ("English Opening: King's English Variation", "Apertura inglese: King's English Variation"),
        ("King's Indian Defense: Six Pawns Attack", "Difesa est-indiana: Six Pawns Attack"),
        # The families of the common first moves, and those named after a person or a place.
        ("King's Knight Opening", "Partita di cavallo di re"),
        ("King's Knight Opening: Normal Variation", "Partita di cavallo di re: variante normale"),
        ("London System", "Sistema Londra"),
        ("Van Geet Opening", "Apertura Van Geet"),
        # A family with a move or a line after it.
        ("Queen's Indian Defense, with e3", "Difesa ovest-indiana, con e3"),
        ("Vienna Gambit, with Max Lange Defense", "Gambetto viennese, con difesa Max Lange"),
        # A nickname with no established Italian name: the English name, whole.
        ("Rat Defense", None),
        ("Pterodactyl Defense: Fianchetto, Queen Pterodactyl", None),
    ],
)  # fmt: skip
def test_italian_names(english, expected):
    assert italian(english) == expected


def test_every_opening_of_the_table_has_a_name_for_each_language():
    table = [chess_openings.named(fen) for fen in _every_position()]
    assert table and all(o.name and o.name_it for o in table)
    families = {o.name.partition(": ")[0] for o in table}
    bases = {family.partition(", with ")[0] for family in families}
    assert set(FAMILIES) <= bases  # no family spelt differently from the table
    translated = [o for o in table if o.name_it != o.name]
    assert len(translated) > 0.95 * len(table)  # all but a few nicknames
    assert all(
        o.name_it.split(": ")[0].partition(", con ")[0] in FAMILIES.values()
        or o.name.startswith("Vienna Gambit, with")
        for o in translated
    )


def _every_position():
    from games.rules.chess_openings import TABLE_PATH

    rows = TABLE_PATH.read_text(encoding="utf-8").splitlines()[1:]
    return [row.split("\t")[3] + " 0 1" for row in rows]
