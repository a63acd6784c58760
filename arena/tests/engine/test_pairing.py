"""The arena pairing (RULES 8) as pure rules: hand cases and properties over random arenas."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine.pairing import (
    COOLDOWN_MS_PER_GAME,
    Pair,
    Together,
    Waiting,
    may_meet,
    pair_key,
    pair_waiting,
)
from events.matching import maximum_matching_size

MIN = 60_000
NOW = 10_000 * MIN


def waiting(n: int, **kw) -> list[Waiting]:
    return [Waiting(player=i, rank=i, rating=1500, **kw) for i in range(1, n + 1)]


def test_the_cooldown_is_five_minutes_per_game_together():
    history = {pair_key(1, 2): Together(games=2, last_end_ms=NOW - 9 * MIN)}
    assert not may_meet(1, 2, history, NOW)  # 2 games: 10 minutes
    assert may_meet(1, 2, history, NOW + MIN)
    assert may_meet(1, 3, history, NOW)
    result = pair_waiting(waiting(2), history, NOW, seed=1)
    assert result.pairs == () and result.waiting == (1, 2)
    result = pair_waiting(waiting(2), history, NOW + MIN, seed=1)
    assert len(result.pairs) == 1


def test_closest_in_rank_then_in_rating():
    players = [
        Waiting(1, rank=1, rating=1500),
        Waiting(2, rank=2, rating=1900),
        Waiting(3, rank=2, rating=1510),
        Waiting(4, rank=4, rating=1890),
    ]
    pairs = {frozenset((p.white, p.black)) for p in pair_waiting(players, {}, NOW, 7).pairs}
    # 1's nearest in rank are 2 and 3 (rank 2): the closer rating is 3's.
    assert pairs == {frozenset((1, 3)), frozenset((2, 4))}


def test_an_odd_player_out_is_the_one_who_waited_least():
    players = [
        Waiting(i, rank=i, rating=1500, waiting_since_ms=NOW - i * 1000) for i in range(1, 6)
    ]
    result = pair_waiting(players, {}, NOW, 3)
    assert result.waiting == (1,)  # player 1 came last (waiting since NOW - 1 s)


def test_but_everybody_is_considered_when_the_others_cannot_all_play():
    # 2-3 and 2-4 and 3-4 just played: without 1 only one pair is possible; with 1, two.
    players = [
        Waiting(i, rank=i, rating=1500, waiting_since_ms=NOW - 1000 * i) for i in (1, 2, 3, 4, 5)
    ]
    recent = Together(games=1, last_end_ms=NOW - MIN)
    history = {pair_key(a, b): recent for a, b in ((2, 3), (2, 4), (3, 4), (2, 5), (3, 5))}
    result = pair_waiting(players, history, NOW, 3)
    assert len(result.pairs) == 2


def test_colours_fewer_whites_then_black_last_then_lot():
    a = Waiting(1, rank=1, rating=1500, whites=3, blacks=1)
    b = Waiting(2, rank=2, rating=1500, whites=1, blacks=3)
    assert pair_waiting([a, b], {}, NOW, 1).pairs == (Pair(white=2, black=1),)
    a = Waiting(1, rank=1, rating=1500, whites=2, last_colour="black")
    b = Waiting(2, rank=2, rating=1500, whites=2, last_colour="white")
    assert pair_waiting([a, b], {}, NOW, 1).pairs == (Pair(white=1, black=2),)
    even = [Waiting(1, rank=1, rating=1500), Waiting(2, rank=2, rating=1500)]
    whites = {pair_waiting(even, {}, NOW, seed).pairs[0].white for seed in range(40)}
    assert whites == {1, 2}  # by lot: both happen over seeds


def test_deterministic_for_its_inputs_and_seed():
    players = waiting(30)
    history = {pair_key(i, i + 1): Together(1, NOW - MIN) for i in range(1, 30, 3)}
    first = pair_waiting(players, history, NOW, 42)
    assert pair_waiting(list(reversed(players)), dict(reversed(history.items())), NOW, 42) == first


def test_a_player_waiting_twice_is_refused():
    import pytest

    with pytest.raises(ValueError):
        pair_waiting([Waiting(1, 1, 1500), Waiting(1, 1, 1500)], {}, NOW, 1)


@st.composite
def arenas(draw):
    n = draw(st.integers(min_value=0, max_value=14))
    players = [
        Waiting(
            player=i,
            rank=draw(st.integers(min_value=1, max_value=n or 1)),
            rating=draw(st.integers(min_value=1000, max_value=2400)),
            whites=draw(st.integers(min_value=0, max_value=5)),
            blacks=draw(st.integers(min_value=0, max_value=5)),
            last_colour=draw(st.sampled_from([None, "white", "black"])),
            waiting_since_ms=NOW - draw(st.integers(min_value=0, max_value=600_000)),
        )
        for i in range(1, n + 1)
    ]
    history = {}
    for a in range(1, n + 1):
        for b in range(a + 1, n + 1):
            if draw(st.booleans()):
                games = draw(st.integers(min_value=1, max_value=6))
                ago = draw(st.integers(min_value=0, max_value=40)) * MIN
                history[(a, b)] = Together(games, NOW - ago)
    return players, history


@settings(max_examples=400, deadline=None)
@given(arenas(), st.integers(min_value=0, max_value=2**32))
def test_properties_cooldown_once_each_and_as_many_pairs_as_allowed(arena, seed):
    players, history = arena
    result = pair_waiting(players, history, NOW, seed)
    seen = [p for pair in result.pairs for p in (pair.white, pair.black)] + list(result.waiting)
    assert sorted(seen) == sorted(w.player for w in players)  # nobody twice, nobody lost
    for pair in result.pairs:
        together = history.get(pair_key(pair.white, pair.black))
        if together is not None:  # the cooldown is never broken
            assert NOW >= together.last_end_ms + together.games * COOLDOWN_MS_PER_GAME
    index = {w.player: i for i, w in enumerate(players)}
    edges = [
        (index[a.player], index[b.player])
        for a in players
        for b in players
        if a.player < b.player and may_meet(a.player, b.player, history, NOW)
    ]
    assert len(result.pairs) == maximum_matching_size(len(players), edges)
    assert pair_waiting(players, history, NOW, seed) == result  # deterministic


def test_a_thousand_waiting_players_are_paired_at_once():
    players = [Waiting(i, rank=1 + i // 7, rating=1000 + (i * 37) % 1400) for i in range(1000)]
    history = {pair_key(i, i + 1): Together(1, NOW - MIN) for i in range(0, 999, 2)}
    result = pair_waiting(players, history, NOW, 5)
    assert len(result.pairs) == 500 and result.waiting == ()
