"""The socket budgets' rules (`live.budget`), pure: every time is given."""

from __future__ import annotations

import pytest

from config.env import ConfigError, env_rate
from live.budget import (
    Budget,
    Limits,
    Owners,
    SocketGate,
    TokenBucket,
    Verdict,
    forwarded_address,
    owner_key,
)

LIMITS = Limits(
    socket=Budget(5, 1),
    player=Budget(8, 2),
    guest=Budget(8, 2),
    queue=4,
    abuse=Budget(10, 1),
    cooldown=30,
    reply_every=1.0,
    user_cap=3,
    address_cap=5,
)


def admitted(gate: SocketGate, now: float, frames: int) -> list[Verdict]:
    verdicts = []
    for _ in range(frames):
        verdict = gate.admit(now)
        if verdict is Verdict.ADMIT:
            gate.queued("move", coalesced=False)
            gate.taken("move")  # the consumer keeps up: only the buckets count
        verdicts.append(verdict)
    return verdicts


def test_a_bucket_gives_its_burst_then_its_rate():
    bucket = TokenBucket.full(Budget(3, 2), now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.5) and not bucket.take(0.5)  # 2 a second: one every half second
    assert not bucket.is_full(1.0)
    assert bucket.is_full(10.0) and bucket.tokens == 3  # never more than the burst


def test_a_bucket_takes_a_cost_whole_or_not_at_all():
    """A request charged by its cost (the analysis board's): taken only when all of it is
    there, and a refusal takes nothing."""
    bucket = TokenBucket.full(Budget(10, 2), now=0.0)
    assert bucket.take(0.0, 7) and bucket.tokens == 3
    assert not bucket.take(0.0, 4) and bucket.tokens == 3
    assert bucket.take(0.5, 4) and bucket.tokens == 0  # one more given back meanwhile


def test_a_socket_gets_its_burst_then_is_refused_and_answered_once_a_second():
    gate = SocketGate(Owners(LIMITS), "addr:1.2.3.4", now=0.0)
    verdicts = admitted(gate, 0.0, 8)
    assert verdicts[:5] == [Verdict.ADMIT] * 5
    assert verdicts[5:] == [Verdict.REFUSE, Verdict.DROP, Verdict.DROP]
    assert gate.admit(0.5) is Verdict.DROP  # no token yet, no second reply within the second
    assert gate.admit(1.0) is Verdict.ADMIT  # a token back after a second
    assert gate.admit(1.0) is Verdict.REFUSE  # and a reply again


def test_a_flooding_socket_is_closed_and_its_owner_cools_down():
    owners = Owners(LIMITS)
    gate = SocketGate(owners, "addr:1.2.3.4", now=0.0)
    verdicts = admitted(gate, 0.0, 100)
    # 5 admitted, then 10 refusals forgiven, the 11th closes; nothing after that is read.
    assert verdicts.count(Verdict.ADMIT) == 5
    assert verdicts[15] is Verdict.CLOSE
    assert set(verdicts[16:]) == {Verdict.DROP}
    assert owners.is_cooling("addr:1.2.3.4", 29.9)
    assert not owners.is_cooling("addr:5.6.7.8", 1.0)
    assert not owners.is_cooling("addr:1.2.3.4", 30.0)


def test_a_client_a_little_over_its_rate_is_slowed_not_closed():
    gate = SocketGate(Owners(LIMITS), "user:1", now=0.0)
    verdicts = []
    for tick in range(600):  # 2 frames a second against 1 for ten minutes
        verdicts += admitted(gate, tick / 2, 1)
    assert Verdict.CLOSE not in verdicts
    assert 290 <= verdicts.count(Verdict.ADMIT) <= 310


def test_reconnecting_gives_no_fresh_burst():
    owners = Owners(LIMITS)
    first = SocketGate(owners, "addr:1.2.3.4", now=0.0)
    assert admitted(first, 0.0, 5) == [Verdict.ADMIT] * 5
    second = SocketGate(owners, "addr:1.2.3.4", now=0.0)  # the same address, a new socket
    assert admitted(second, 0.0, 5).count(Verdict.ADMIT) == 3  # the address had 8
    other = SocketGate(owners, "addr:5.6.7.8", now=0.0)
    assert admitted(other, 0.0, 5) == [Verdict.ADMIT] * 5


def test_a_player_is_not_charged_to_the_address_of_guests():
    owners = Owners(LIMITS)
    guest = SocketGate(owners, owner_key(None, "1.2.3.4"), now=0.0)
    admitted(guest, 0.0, 100)  # the guest floods and is closed
    player = SocketGate(owners, owner_key(7, "1.2.3.4"), now=0.0)
    assert admitted(player, 0.0, 5) == [Verdict.ADMIT] * 5
    assert not owners.is_cooling(owner_key(7, "1.2.3.4"), 1.0)


def test_frames_waiting_for_the_consumer_are_bounded():
    gate = SocketGate(Owners(LIMITS), "user:1", now=0.0)
    verdicts = []
    for _ in range(5):  # the consumer takes none of them
        verdict = gate.admit(0.0)
        if verdict is Verdict.ADMIT:
            gate.queued("move", coalesced=False)
        verdicts.append(verdict)
    assert verdicts == [Verdict.ADMIT] * 4 + [Verdict.REFUSE]
    gate.taken("move")
    assert gate.admit(0.0) is Verdict.ADMIT


def test_a_sync_waiting_for_the_consumer_takes_the_place_of_the_next():
    gate = SocketGate(Owners(LIMITS), "user:1", now=0.0)
    assert gate.queued("sync", coalesced=True)
    assert not gate.queued("sync", coalesced=True)
    assert gate.queued("move", coalesced=False)
    assert gate.waiting == 2
    gate.taken("sync")
    assert gate.queued("sync", coalesced=True)


def test_open_sockets_are_capped_per_player_and_per_address():
    owners = Owners(LIMITS)
    assert all(owners.open(1, "1.2.3.4") for _ in range(3))
    assert not owners.open(1, "1.2.3.4")  # the player's fourth
    assert not owners.open(1, "5.6.7.8")  # from anywhere
    assert owners.open(2, "1.2.3.4") and owners.open(None, "1.2.3.4")
    assert not owners.open(None, "1.2.3.4")  # the address's sixth
    owners.close(1, "1.2.3.4")
    assert owners.open(1, "5.6.7.8")
    for _ in range(10):
        owners.close(None, "9.9.9.9")  # never opened: nothing goes below zero
    assert "addr:9.9.9.9" not in owners.open_sockets


def test_buckets_filled_again_are_forgotten():
    owners = Owners(LIMITS)
    for n in range(50):
        SocketGate(owners, f"addr:10.0.0.{n}", now=0.0).admit(0.0)
    owners.cool_down("addr:10.0.0.1", 0.0)
    owners.forget_idle(100.0)
    assert owners.buckets == {} and owners.cooling == {}


@pytest.mark.parametrize(
    ("remote", "header", "address"),
    [
        ("127.0.0.1", "203.0.113.9", "203.0.113.9"),
        ("127.0.0.1", "1.1.1.1, 203.0.113.9", "203.0.113.9"),  # the left one is the client's word
        ("127.0.0.1", "not an address", "127.0.0.1"),
        ("127.0.0.1", "", "127.0.0.1"),
    ],
)
def test_the_address_behind_a_proxy_is_the_one_it_appended(remote, header, address):
    assert forwarded_address(remote, header) == address


@pytest.mark.parametrize("raw", ["20", "x/10", "0/10", "20/0", "20/-1", "20/ten"])
def test_a_budget_setting_is_checked(raw):
    with pytest.raises(ConfigError):
        env_rate({"B": raw}, "B", "20/10")


def test_a_budget_setting_is_read():
    assert env_rate({}, "B", "20/10") == (20.0, 10.0)
    assert env_rate({"B": " 5/0.5 "}, "B", "20/10") == (5.0, 0.5)
