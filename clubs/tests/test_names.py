"""RULES 12.2: a club's name compared once normalised (pure, no database)."""

from __future__ import annotations

import pytest

from clubs.names import name_key, refused_characters


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Circolo Scacchi Milano", "circolo scacchi milano"),
        ("Circolo Scacchi Milano", "CIRCOLO  SCACCHI   MILANO"),
        ("Società Scacchistica", "Societa Scacchistica"),
        ("Сircolo", "Circolo"),  # a Cyrillic С
        ("Cіrcolo", "Circolo"),  # a Cyrillic і
        ("Dama Ρoma", "Dama Roma".replace("R", "P")),  # a Greek Ρ reads P
        ("ＣＩＲＣＯＬＯ", "circolo"),  # fullwidth, by NFKC
        ("Circolo-Scacchi", "Circolo Scacchi"),
        ("Circolo.Scacchi!", "circolo scacchi"),
    ],
)
def test_names_that_read_the_same_have_one_key(a, b):
    assert name_key(a) == name_key(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [("Circolo 1", "Circolo I"), ("Circolo Roma", "Circolo Rome"), ("Dama Bari", "Dama Bar")],
)
def test_different_names_have_different_keys(a, b):
    assert name_key(a) != name_key(b)


def test_a_name_of_no_letter_has_an_empty_key():
    assert name_key(" --- ") == ""


def test_control_and_invisible_characters_are_named():
    assert refused_characters("Circolo\u202eoloc") == ["U+202E"]
    assert refused_characters("riga\nriga", multiline=True) == []
    assert refused_characters("riga\nriga") == ["U+000A"]
