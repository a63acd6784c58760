"""What one socket, one player and one address may ask of a daphne process (docs/protocol.md,
"Budgets").

Pure: no Django, no asyncio; every function takes the time it is at, so the rules are tested
without a clock. `live.sockets` applies them where a client's frames arrive: a task of each
socket reads daphne's queue as fast as frames come and asks `SocketGate.admit` of each one before
anything is parsed or queued for the consumer. A frame over budget costs a few microseconds and
is dropped; a consumer can fall behind (its handlers wait for the database) without the frames
it has not read piling up in memory.

The decisions:
- Every socket has a token bucket (`Budget`: a burst, then a steady rate), and every frame also
  takes a token from its owner's bucket, shared by all of the owner's sockets in this process and
  outliving them: the owner is the signed-in player, or the address for a guest. A flooder that
  reconnects finds its owner's bucket as empty as it left it, so a fresh socket is no fresh burst.
  Players are not charged to their address: a club behind one router, its guests included, is
  not slowed down by one of them (sign-ups are throttled per address, so accounts are scarce).
- A socket holds at most `queue` client frames waiting for its consumer; past that a frame is
  refused as if over budget.
- Refused frames fill an abuse bucket (`abuse`: its capacity is how many refusals in a row are
  forgiven, its rate how fast they are forgotten). Full, the socket is closed (close code 4429)
  and its owner is refused new sockets (4429) for `cooldown` seconds. A client a little over its
  rate is only slowed down; one flooding is cut off after a few dozen frames.
- The refusals are answered, but at most once a `reply_every` seconds per socket (an `error`
  `rate_limited`, built without reading anything): a flooder is never answered at its own rate.
- Frames whose answer only depends on the present (`sync`, `ping`) are coalesced: while one is
  waiting for the consumer, another is dropped, its answer being the waiting one's.
- Open sockets are capped per owner in this process (`user_cap` for a player, `address_cap` for
  every socket of an address, players' included); the new socket is refused (4409).
Budgets, caps and buckets are per daphne process: with N processes behind nginx a client gets at
most N times as much, and nginx's `limit_conn` / `limit_req` (deploy/nginx/) bound the whole.
"""

from __future__ import annotations

import enum
import ipaddress
from dataclasses import dataclass, field

# Close codes (docs/protocol.md): the client waits before it comes back (live/static/live/socket.js).
CLOSE_TOO_MANY_MESSAGES = 4429
CLOSE_TOO_MANY_SOCKETS = 4409


@dataclass(frozen=True, slots=True)
class Budget:
    """A token bucket's shape: `burst` tokens at most, given back at `rate` a second."""

    burst: float
    rate: float


@dataclass(slots=True)
class TokenBucket:
    budget: Budget
    tokens: float
    at: float

    @classmethod
    def full(cls, budget: Budget, now: float) -> TokenBucket:
        return cls(budget, budget.burst, now)

    def _refill(self, now: float) -> None:
        if now > self.at:
            self.tokens = min(self.budget.burst, self.tokens + (now - self.at) * self.budget.rate)
            self.at = now

    def can_take(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= 1

    def take(self, now: float, cost: float = 1) -> bool:
        """`cost` tokens (one by default), if there are as many; else none is taken."""
        self._refill(now)
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True

    def is_full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.budget.burst


@dataclass(frozen=True, slots=True)
class Limits:
    """Everything `SocketGate` and `Owners` need (the settings, `config/settings.py`)."""

    socket: Budget  # each socket of this kind
    player: Budget  # all the sockets of one signed-in player
    guest: Budget  # all the guests' sockets of one address
    queue: int  # client frames waiting for the consumer, at most
    abuse: Budget  # refusals forgiven (burst), forgotten per second (rate)
    cooldown: float  # seconds an owner whose socket was closed for abuse is refused
    reply_every: float  # seconds between two `rate_limited` replies on one socket
    user_cap: int  # open sockets of one player
    address_cap: int  # open sockets of one address


class Verdict(enum.Enum):
    ADMIT = "admit"
    DROP = "drop"  # coalesced, or refused with the reply already sent this second
    REFUSE = "refuse"  # refused: answer `rate_limited`
    CLOSE = "close"  # abuse: close the socket (4429)


def forwarded_address(remote: str, forwarded_for: str) -> str:
    """Behind a trusted proxy, the client is the right-most X-Forwarded-For entry (the one the
    proxy appended); what the client wrote to its left is not believed. `remote` when there is
    no such entry or it is not an address."""
    last = forwarded_for.rsplit(",", 1)[-1].strip()
    try:
        return str(ipaddress.ip_address(last))
    except ValueError:
        return remote


def owner_key(user_id: int | None, address: str) -> str:
    """Whose bucket a socket's frames are charged to: the player, or a guest's address."""
    return f"user:{user_id}" if user_id is not None else f"addr:{address}"


@dataclass
class Owners:
    """One process's shared buckets, cool-downs and open-socket counts (the event loop's only:
    no lock). A bucket that has filled up again is forgotten, being no different from a new
    one, so the tables hold only the owners active lately."""

    limits: Limits
    buckets: dict[str, TokenBucket] = field(default_factory=dict)
    cooling: dict[str, float] = field(default_factory=dict)  # owner -> until
    open_sockets: dict[str, int] = field(default_factory=dict)  # owner or address -> count
    _made: int = 0  # buckets made since the last `forget_idle`

    def bucket(self, owner: str, now: float) -> TokenBucket:
        bucket = self.buckets.get(owner)
        if bucket is None:
            budget = self.limits.player if owner.startswith("user:") else self.limits.guest
            bucket = self.buckets[owner] = TokenBucket.full(budget, now)
            self._made += 1
            if self._made >= 1000:
                self._made = 0
                self.forget_idle(now)
        return bucket

    def forget_idle(self, now: float) -> None:
        for owner in [o for o, b in self.buckets.items() if b.is_full(now)]:
            del self.buckets[owner]
        for owner in [o for o, until in self.cooling.items() if until <= now]:
            del self.cooling[owner]

    def cool_down(self, owner: str, now: float) -> None:
        self.cooling[owner] = now + self.limits.cooldown

    def is_cooling(self, owner: str, now: float) -> bool:
        until = self.cooling.get(owner)
        if until is None:
            return False
        if until <= now:
            del self.cooling[owner]
            return False
        return True

    def open(self, user_id: int | None, address: str) -> bool:
        """Count a new socket in, unless its player or address has all the sockets it may
        have open."""
        player = owner_key(user_id, address) if user_id is not None else None
        place = f"addr:{address}"
        if player is not None and self.open_sockets.get(player, 0) >= self.limits.user_cap:
            return False
        if self.open_sockets.get(place, 0) >= self.limits.address_cap:
            return False
        for key in (player, place):
            if key is not None:
                self.open_sockets[key] = self.open_sockets.get(key, 0) + 1
        return True

    def close(self, user_id: int | None, address: str) -> None:
        """A socket `open` counted in has closed."""
        player = owner_key(user_id, address) if user_id is not None else None
        for key in (player, f"addr:{address}"):
            if key is None:
                continue
            left = self.open_sockets.get(key, 0) - 1
            if left > 0:
                self.open_sockets[key] = left
            else:
                self.open_sockets.pop(key, None)


class SocketGate:
    """The budget of one socket: `admit` for every client frame as it arrives, `taken` when the
    consumer takes one from its queue."""

    def __init__(self, owners: Owners, owner: str, now: float, socket: Budget | None = None):
        limits = owners.limits
        self.owners = owners
        self.owner = owner
        self.bucket = TokenBucket.full(socket or limits.socket, now)
        self.abuse = TokenBucket.full(limits.abuse, now)
        self.waiting = 0  # client frames queued for the consumer
        self.waiting_kinds: dict[str, int] = {}  # of those, the coalesced kinds
        self.replied_at = -limits.reply_every
        self.closed = False
        self.refused = 0  # frames refused on this socket (figures, tests)

    def admit(self, now: float) -> Verdict:
        """Whether a frame that has just arrived may go to the consumer (charged to the socket
        and its owner), or what to do instead."""
        if self.closed:
            return Verdict.DROP
        shared = self.owners.bucket(self.owner, now)
        if (
            self.waiting < self.owners.limits.queue
            and self.bucket.can_take(now)
            and shared.can_take(now)
        ):
            self.bucket.take(now)
            shared.take(now)
            return Verdict.ADMIT
        self.refused += 1
        if not self.abuse.take(now):
            self.closed = True
            self.owners.cool_down(self.owner, now)
            return Verdict.CLOSE
        if now - self.replied_at >= self.owners.limits.reply_every:
            self.replied_at = now
            return Verdict.REFUSE
        return Verdict.DROP

    def queued(self, kind: str | None, coalesced: bool) -> bool:
        """An admitted frame of `kind` about to be queued: False when one of the same coalesced
        kind is already waiting (drop this one)."""
        if coalesced and kind is not None:
            if self.waiting_kinds.get(kind):
                return False
            self.waiting_kinds[kind] = 1
        self.waiting += 1
        return True

    def taken(self, kind: str | None) -> None:
        """The consumer took a queued frame of `kind`."""
        self.waiting = max(0, self.waiting - 1)
        if kind is not None:
            self.waiting_kinds.pop(kind, None)
