"""The Lim engine's own trace of a pairing ("why this pairing"): every kind of decision is
recorded with its rule, and each step says what the pairing itself did (pure, no database)."""

from __future__ import annotations

from collections.abc import Iterator

from events.pairing.checker import _before
from events.pairing.lim import PairingNotes, Step, pair_round
from events.pairing.model import Pairing, PlayerState, RoundSpec
from events.pairing.simulate import simulate

SEEDS = range(40)


def paired_rounds() -> Iterator[tuple[Pairing, list[Step], RoundSpec]]:
    """Every round of forty random 21-player Swiss, paired again with a trace."""
    for seed in SEEDS:
        t = simulate(21, 7, seed, absence_percent=5, forfeit_percent=5).tournament
        for number in range(1, t.rounds_played + 1):
            before = _before(t, number)
            states, spec = before.player_states(), before.next_round_spec()
            notes = PairingNotes(trace=[])
            pairing = pair_round(states, spec, notes=notes)
            assert pairing == pair_round(states, spec)  # the trace changes nothing
            yield pairing, notes.trace, spec


def test_every_kind_of_decision_is_traced_with_its_rule_and_matches_the_pairing():
    seen: set[tuple[str, str, str]] = set()
    for pairing, trace, spec in paired_rounds():
        games = {frozenset((g.white, g.black)) for g in pairing.games}
        traced: set[frozenset[int]] = set()
        for step in trace:
            key = (step.kind, step.rule, step.detail.split()[0] if step.detail else "")
            seen.add(key)
            if step.kind == "bye":
                assert step.players == (pairing.bye,)
            elif step.kind == "pair":
                # A passed-over proposal is named beside the pair made instead.
                assert len(step.players) == (2 if step.detail == "proposed" else 3)
                traced.add(frozenset(step.players[:2]))
            elif step.kind == "crack":  # Lim 9: that group's pairs are undone
                traced = {p for p in traced if p.isdisjoint(step.players)}
            elif step.kind == "colour":
                assert any((g.white, g.black) == step.players for g in pairing.games)
            elif step.kind == "float":
                assert len(step.players) == 1 and step.detail.split()[0] in ("down", "up")
            elif step.kind == "order":
                assert step.rule == "Lim 3" and step.score == spec.median_score
        assert traced == games  # every game of the round, and only those, traced as paired
        colours = [s for s in trace if s.kind == "colour"]
        assert len(colours) == len(pairing.games)  # every game's colour has its reason
    wanted = {
        ("bye", "Lim 1", "lowest"),
        ("bye", "Lim 1", "round-one"),
        ("skip", "Lim 1", "had-bye"),
        ("float", "Lim 4a", "down"),
        ("float", "Lim 5.3", "down"),
        ("float", "Lim 5.3", "up"),
        ("pair", "Lim 7", "proposed"),
        ("pair", "Lim 6", "proposed"),
        ("pair", "Lim 8.1", "transposition"),
        ("pair", "Lim 8.1", "exchange"),
        ("pair", "Lim 10.3", "colour"),
        ("colour", "Lim 10.1", "limits"),
        ("colour", "Lim 10.2", "due"),
        ("colour", "Lim 10.4", "history"),
        ("colour", "Lim 10.5", "lot"),
        ("crack", "Lim 9", ""),
    }
    assert wanted <= seen, wanted - seen


def test_a_float_names_the_rule_that_chose_the_floater_in_the_order_taken():
    # Round 2: 1, 2 and 3 won, 4, 5 and 6 lost; each group is odd and one player leaves it.
    # Down from the winners the lowest-ranked, 3, would float (Lim 5.6), but 3 floated last
    # round: Lim 5.4 makes it 2. Up from the losers nobody floated: the highest-ranked, 4.
    won = [PlayerState(n, 2, "W", frozenset({n + 3})) for n in (1, 2)]
    won.append(PlayerState(3, 2, "W", frozenset({6}), floated_last_round=True))
    lost = [PlayerState(n, 0, "B", frozenset({n - 3})) for n in (4, 5, 6)]
    notes = PairingNotes(trace=[])
    pairing = pair_round(won + lost, RoundSpec(2, 5), notes=notes)
    floats = [(s.rule, s.players) for s in notes.trace if s.kind == "float"]
    assert floats == [("Lim 5.4", (2,)), ("Lim 5.6", (4,))]
    assert {frozenset((g.white, g.black)) for g in pairing.games} >= {frozenset((2, 4))}
