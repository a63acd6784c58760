"""Berger schedules against the FSI tables («Regolamento Girone all'Italiana», copied in data/
with its provenance)."""

import re
from pathlib import Path

import pytest

from events.pairing.berger import berger_schedule

TABLES = Path(__file__).parent / "data" / "berger_tables_fsi.txt"

# Rows of the transcription that contradict themselves (a player twice in one round). The
# construction is right there and the copy is wrong: (table, round) -> what the copy says.
COPYING_ERRORS = {
    (8, 7): "6-1 where the construction gives 7-1 (6 appears twice, 7 never)",
    (9, 4): "14-11 where the construction gives 14-10 (11 appears twice, 10 never)",
}


def parse_tables() -> dict[int, tuple[int, list[list[tuple[int, int]]]]]:
    """table number -> (even size, rounds as lists of (white, black)), in board order."""
    tables: dict[int, tuple[int, list[list[tuple[int, int]]]]] = {}
    current: list[list[tuple[int, int]]] | None = None
    for line in TABLES.read_text(encoding="utf-8").splitlines():
        line = line.strip().lstrip("|").strip()
        header = re.match(r"Tabella (\d+) - Giocatori (\d+) e (\d+)", line)
        if header:
            current = []
            tables[int(header[1])] = (int(header[3]), current)
            continue
        if current is None:
            continue
        if re.match(r"^\d+°", line):
            current.append([])
            continue
        pair = re.match(r"^(\d+)-(\d+)", line)
        if pair and current:
            current[-1].append((int(pair[1]), int(pair[2])))
    return tables


def self_contradictory(row: list[tuple[int, int]]) -> bool:
    numbers = [n for pair in row for n in pair]
    return len(numbers) != len(set(numbers))


def test_the_transcription_has_eleven_tables_of_the_right_shape():
    tables = parse_tables()
    assert sorted(tables) == list(range(1, 12))
    for number, (size, rows) in tables.items():
        assert size == 2 * number + 2
        assert len(rows) == size - 1
        assert all(len(row) == size // 2 for row in rows)


@pytest.mark.parametrize("table", range(1, 12))
def test_even_field_matches_every_round_and_colour_of_the_table(table):
    size, rows = parse_tables()[table]
    generated = berger_schedule(size)
    assert [r.number for r in generated] == list(range(1, size))
    mismatches = set()
    for round_index, (made, copied) in enumerate(zip(generated, rows, strict=True), start=1):
        assert made.bye is None
        if list(made.pairs) == copied:
            continue
        mismatches.add((table, round_index))
        # The only tolerated difference is a row the copyist broke, and only in the broken pair.
        assert self_contradictory(copied), f"table {table} round {round_index} differs"
        differing = [i for i, (m, c) in enumerate(zip(made.pairs, copied, strict=True)) if m != c]
        assert len(differing) == 1
    expected = {key for key in COPYING_ERRORS if key[0] == table}
    assert mismatches == expected


@pytest.mark.parametrize("table", range(1, 12))
def test_odd_field_uses_the_next_table_and_the_partner_of_the_missing_number_rests(table):
    size, rows = parse_tables()[table]
    odd = size - 1
    for made, copied in zip(berger_schedule(odd), rows, strict=True):
        if self_contradictory(copied):
            continue  # a copying error, checked above
        resting = [w if b == size else b for w, b in copied if size in (w, b)]
        assert made.bye == resting[0]
        assert list(made.pairs) == [p for p in copied if size not in p]


@pytest.mark.parametrize("players", range(2, 41))
def test_everyone_meets_everyone_once_and_colours_stay_balanced(players):
    schedule = berger_schedule(players)
    met = [frozenset(pair) for r in schedule for pair in r.pairs]
    assert len(met) == len(set(met)) == players * (players - 1) // 2
    for r in schedule:
        present = [n for pair in r.pairs for n in pair] + ([r.bye] if r.bye else [])
        assert sorted(present) == list(range(1, players + 1))
    whites = {
        n: sum(1 for r in schedule for w, _ in r.pairs if w == n) for n in range(1, players + 1)
    }
    games = players - 1
    assert all(abs(2 * w - games) <= 1 for w in whites.values())


def test_rejects_a_field_too_small():
    with pytest.raises(ValueError):
        berger_schedule(1)
