"""TRF-16 `013` team lines (a league of team matches, RULES 16.8): written, read back, refused."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.pairing.lim import NoLegalPairing
from events.pairing.model import Entrant, Game, Pairing, Team, Tournament
from events.pairing.trf import TEAM_NAME_COLUMNS, TrfError, read_trf, team_lines, write_trf

from .helpers import play
from .test_trf import normalised


def with_teams(t: Tournament, teams: tuple[Team, ...]) -> Tournament:
    return replace(normalised(t), teams=teams)


def league(players_per_team: int = 4, teams: int = 4, rounds: int = 2) -> Tournament:
    """Teams of consecutive start ranks, board 1 the strongest: 1-4, 5-8, ..."""
    t = play(players_per_team * teams, rounds, 3)
    return with_teams(
        t,
        tuple(
            Team(
                f"Circolo {k}",
                tuple(range(k * players_per_team + 1, (k + 1) * players_per_team + 1)),
            )
            for k in range(teams)
        ),
    )


def test_write_then_read_gives_the_same_teams():
    t = league()
    text = write_trf(t)
    assert [line for line in text.split("\n") if line.startswith("013")] == [
        "013 Circolo 0                          1    2    3    4",
        "013 Circolo 1                          5    6    7    8",
        "013 Circolo 2                          9   10   11   12",
        "013 Circolo 3                         13   14   15   16",
    ]
    assert read_trf(text) == t


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 30),
    seed=st.integers(0, 10**6),
    sizes=st.lists(st.integers(1, 16), max_size=8),
    names=st.lists(st.text(min_size=1, max_size=TEAM_NAME_COLUMNS), min_size=8, max_size=8),
)
def test_any_teams_round_trip(players, seed, sizes, names):
    """Teams of any size (more boards than the 14 the spec draws), players in any board order,
    some players in no team, names of any characters up to 32 columns."""
    try:
        t = play(players, 1, seed)
    except NoLegalPairing:
        return
    rng = random.Random(seed)
    free = [e.number for e in t.entrants]
    rng.shuffle(free)
    teams = []
    for k, size in enumerate(sizes):
        if not free:
            break
        players_of_team, free = tuple(free[:size]), free[size:]
        # one_line keeps a name of printable words; the number keeps the names apart.
        name = f"{k} {' '.join(''.join(c for c in names[k] if c.isprintable()).split())}"
        teams.append(Team(name[:TEAM_NAME_COLUMNS].rstrip(), players_of_team))
    t = with_teams(t, tuple(teams))
    assert read_trf(write_trf(t)) == t


def test_a_hand_written_013_line_is_read_by_its_columns():
    # A team name with digits and inner blanks, 32 columns to the letter, then ranks in columns
    # 37-40, 42-45, 47-50, 52-55: a 4-digit rank touches the name, as the format allows.
    name = "Scacchi Roma 2000 - Squadra B 12"
    assert len(name) == 32
    line = "013 " + name + "   3" + " " + "   1" + " " + "  12" + " " + "   7"
    assert line[36:40] == "   3" and line[41:45] == "   1" and line[51:55] == "   7"
    text = player_lines(12) + line + "\n" + "013 Solo                              11\n"
    t = read_trf(text)
    assert t.teams == (Team(name, (3, 1, 12, 7)), Team("Solo", (11,)))


def player_lines(count: int) -> str:
    return "012 League\n" + "".join(
        f"001 {n:4d}      {f'Player {n}':<33} {2000 - n:4d}{'':28} 0.0 {n:4d}\n"
        for n in range(1, count + 1)
    )


def test_a_four_digit_rank_touching_the_name_is_read():
    text = player_lines(3) + "013 " + "X" * 32 + "   1    2    3\n"
    assert read_trf(text).teams == (Team("X" * 32, (1, 2, 3)),)


def test_teams_survive_a_round_played():
    t = Tournament(
        tuple(Entrant(n, f"P{n}") for n in range(1, 5)),
        3,
        teams=(Team("A", (1, 2)), Team("B", (3, 4))),
    )
    after = t.with_round(
        Pairing((Game(1, 3), Game(4, 2))), {Game(1, 3): (2, 0), Game(4, 2): (1, 1)}, 1
    )
    assert after.teams == t.teams
    assert read_trf(write_trf(after)).teams == t.teams


def test_a_tournament_of_individuals_has_no_013_line():
    t = play(6, 2, 1)
    text = write_trf(t)
    assert "\n013" not in text
    assert read_trf(text).teams == ()


FOUR = player_lines(4)


def t013(name: str, *fields: str) -> str:
    """A 013 line: the name in columns 5-36, then the fields as given, one blank between."""
    return "013 " + name.ljust(TEAM_NAME_COLUMNS) + " ".join(fields) + "\n"


MALFORMED_TEAMS = [
    # A start rank that is not a number: letters, a sign, zero, a name spilling past column 36.
    (FOUR + t013("A", "   1", "  x2"), 6, "board 2 (columns 42-45): 'x2' is not a start rank"),
    (FOUR + t013("A", "  -1"), 6, "board 1 (columns 37-40): '-1' is not a start rank"),
    (FOUR + t013("A", "0000"), 6, "'0000' is not a start rank"),
    (FOUR + t013("A", "   \u0661"), 6, "is not a start rank"),  # an Arabic-Indic one
    (
        FOUR + "013 Circolo Scacchistico Romano Ateneo    1\n",
        6,
        "board 1 (columns 37-40): 'eo' is not a start rank (the team name has columns 5-36",
    ),
    # A start rank that is not a player of the file.
    (FOUR + t013("A", "   1", "   9"), 6, "team 'A', board 2: start rank 9 has no 001 line"),
    # A player in two teams, or twice in one.
    (
        FOUR + t013("A", "   1", "   2") + t013("B", "   3", "   2"),
        7,
        "team 'B', board 2: start rank 2 is already on board 2 of team 'A' (line 6)",
    ),
    (FOUR + t013("A", "   1", "   1"), 6, "start rank 1 is already on board 1 of team 'A'"),
    # Two teams of one name; no name; no player; a gap; a rank off its columns.
    (FOUR + t013("A", "   1") + t013("A", "   2"), 7, "team 'A' is already on line 6"),
    (FOUR + t013("", "   1"), 6, "no team name in columns 5-36"),
    (FOUR + "013 A\n", 6, "team 'A': no player"),
    (FOUR + t013("A", "   1", "    ", "   3"), 6, "board 2 (columns 42-45): blank"),
    (FOUR + t013("A", "   1", "   23"), 6, "board 2 (columns 42-45): column 46 must be blank"),
    (FOUR + t013("A", "   12"), 6, "board 1 (columns 37-40): column 41 must be blank"),
]


@pytest.mark.parametrize(("text", "line", "words"), MALFORMED_TEAMS)
def test_malformed_team_lines_are_refused_naming_the_line(text, line, words):
    with pytest.raises(TrfError) as error:
        read_trf(text)
    assert error.value.line_number == line
    assert words in str(error.value)


@pytest.mark.parametrize(
    ("teams", "words"),
    [
        (
            (Team("N" * 33, (1,)),),
            f"the name has 33 characters, TRF-16 gives it {TEAM_NAME_COLUMNS}",
        ),
        ((Team("Circolo Scacchistico Romano Ateneo", (1, 2)),), "the name has 34 characters"),
        ((Team(" \n\t", (1,)),), "a team needs a name"),
        ((Team("A", ()),), "team 'A' has no player"),
        ((Team("A", (1, 99)),), "team 'A', board 2: start rank 99 is not a player"),
        (
            (Team("A", (1, 2)), Team("B", (3, 2))),
            "team 'B', board 2: player 2 is already in team 'A'",
        ),
        ((Team("A", (1,)), Team("A", (2,))), "two teams are named 'A'"),
    ],
)
def test_teams_that_have_no_013_form_are_refused_on_writing(teams, words):
    t = with_teams(play(4, 1, 3), teams)
    with pytest.raises(ValueError) as error:
        write_trf(t)
    assert words in str(error.value)
    with pytest.raises(ValueError):
        team_lines(t)


def test_a_hostile_team_name_cannot_inject_a_line():
    t = with_teams(play(4, 1, 3), (Team("A\n001    9 Intruso\u2028\u202e", (1, 2)),))
    text = write_trf(t)
    [line] = [line for line in text.split("\n") if line.startswith("013")]
    assert line == "013 A 001 9 Intruso                    1    2"
    assert read_trf(text).teams == (Team("A 001 9 Intruso", (1, 2)),)


@settings(max_examples=150, deadline=None)
@given(
    edits=st.lists(
        st.tuples(st.integers(0, 20_000), st.sampled_from(list("0123456789 -+x\n\t\u0661"))),
        min_size=1,
        max_size=6,
    )
)
def test_corrupted_team_lines_give_teams_or_a_trf_error_never_a_crash(edits):
    text = write_trf(league(players_per_team=3, teams=4, rounds=1))
    start = text.index("\n013") + 1
    end = text.index("\n", text.rindex("\n013") + 1)
    chars = list(text)
    for position, char in edits:
        chars[start + position % (end - start)] = char
    try:
        t = read_trf("".join(chars))
    except TrfError as error:
        assert str(error).startswith("line ")
        return
    placed = [n for team in t.teams for n in team.players]
    assert len(placed) == len(set(placed)) <= len(t.entrants)
