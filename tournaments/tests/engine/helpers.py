"""Small builders shared by the engine tests."""

from tournaments.engine.model import PlayerState


def player(
    number: int,
    score: int = 0,
    colours: str = "",
    met: tuple[int, ...] = (),
    bye: bool = False,
    floated: bool = False,
    rating: int | None = None,
) -> PlayerState:
    return PlayerState(
        number=number,
        score=score,
        colours=colours,
        opponents=frozenset(met),
        had_bye=bye,
        floated_last_round=floated,
        rating=rating,
    )


def symmetric(players: list[PlayerState]) -> list[PlayerState]:
    """Make the 'met' relation symmetric, as a real history would be."""
    met = {p.number: set(p.opponents) for p in players}
    for p in players:
        for q in p.opponents:
            met.setdefault(q, set()).add(p.number)
    return [
        PlayerState(
            number=p.number,
            score=p.score,
            colours=p.colours,
            opponents=frozenset(met[p.number]),
            had_bye=p.had_bye,
            floated_last_round=p.floated_last_round,
            rating=p.rating,
        )
        for p in players
    ]


def unordered(pairing) -> set[frozenset[int]]:
    return {frozenset((g.white, g.black)) for g in pairing.games}


def pairs(*items: str) -> set[frozenset[int]]:
    return {frozenset(int(x) for x in item.split("-")) for item in items}
