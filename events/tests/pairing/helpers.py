"""Small builders shared by the engine tests."""

import random
from dataclasses import replace

from events.pairing.lim import pair_round
from events.pairing.model import Entrant, GameResult, PlayerState, Tournament
from events.pairing.simulate import random_result


def player(
    number: int,
    score: int = 0,
    colours: str = "",
    met: tuple[int, ...] = (),
    bye: bool = False,
    floated: bool = False,
    rating: int | None = None,
    rounds: tuple[int, ...] = (),
    forfeit_win: bool = False,
) -> PlayerState:
    return PlayerState(
        number=number,
        score=score,
        colours=colours,
        opponents=frozenset(met),
        had_bye=bye,
        floated_last_round=floated,
        rating=rating,
        colour_rounds=rounds,
        won_by_forfeit=forfeit_win,
    )


def symmetric(players: list[PlayerState]) -> list[PlayerState]:
    """Make the 'met' relation symmetric, as a real history would be."""
    met = {p.number: set(p.opponents) for p in players}
    for p in players:
        for q in p.opponents:
            met.setdefault(q, set()).add(p.number)
    return [replace(p, opponents=frozenset(met[p.number])) for p in players]


def unordered(pairing) -> set[frozenset[int]]:
    return {frozenset((g.white, g.black)) for g in pairing.games}


def pairs(*items: str) -> set[frozenset[int]]:
    return {frozenset(int(x) for x in item.split("-")) for item in items}


def play(players: int, rounds: int, seed: int) -> Tournament:
    """A random Swiss with forfeits, double absences, half and zero byes."""
    rng = random.Random(seed)
    entrants = tuple(Entrant(i, f"Player {i}", 2400 - 7 * i) for i in range(1, players + 1))
    t = Tournament(entrants, rounds + 1, first_colour=rng.choice("WB"), name="Round trip")
    for number in range(1, rounds + 1):
        pairing = pair_round(t.player_states(), t.next_round_spec())
        results = {g: random_result(rng, 2000, 2000, 0.2) for g in pairing.games}
        t = t.with_round(pairing, results, number)
    games = list(t.games)
    # Turn a few games into forfeits and a 0-0 double absence (RULES 4.7).
    for k in range(0, len(games), 7):
        g = games[k]
        points = [(2, 0), (0, 2), (0, 0)][k % 3]
        games[k] = GameResult(g.round, g.white, g.black, *points, played=False)
    return Tournament(
        t.entrants,
        t.total_rounds,
        tuple(games),
        t.byes,
        t.first_colour,
        name=t.name,
    )
