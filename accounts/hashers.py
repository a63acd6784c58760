"""The hasher of the players' passwords: Django's PBKDF2, its algorithm and iterations, with one
bound: the machine hashes one password at a time.

A hash is a quarter of a second of one core by design (a guessed password must cost as much).
The account forms' POSTs run in a lane of their own in each daphne (config/asgi.py PageGate),
but two daphnes still hashed on both cores at once, and every other visitor's page waited for
a core (make attack's mail and deletion scenarios). Hashes take turns through a lock on a file
of VAR_DIR, which every process of one installation shares: at most one core hashes, and a
burst of N passwords takes N quarter seconds (about 240 a minute). The wait happens in the
lane's thread, never in a page's turn; `hashlib` releases the GIL while it hashes.

The hash itself runs in one thread of each process kept for it, at a lower scheduling priority
(`PASSWORD_HASHING_NICE`, Linux's per-thread nice value): on an idle machine it takes its quarter
second as before, but while pages wait for a core the scheduler gives them the core first, so a
burst of sign-ups or resets no longer sets every other visitor's page behind a hash.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher

LOCK_NAME = "password-hashing.lock"


@contextlib.contextmanager
def one_at_a_time() -> Iterator[None]:
    """The machine's one hashing turn (a POSIX lock on a file of VAR_DIR: released by the
    system if the process dies holding it)."""
    path = settings.VAR_DIR / LOCK_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _lower_priority() -> None:
    """The hashing thread's own nice value (setpriority(2) on a thread id acts on that thread
    only, on Linux). Raising one's own nice value needs no privilege; where the call is refused
    the hash simply runs at the process's priority."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), settings.PASSWORD_HASHING_NICE)


# One thread per process, made at the first hash: the hashes of a process queue behind each
# other here as they would behind the machine's lock anyway.
_hashing = ThreadPoolExecutor(
    max_workers=1, thread_name_prefix="password-hashing", initializer=_lower_priority
)


class OneAtATimePBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """PBKDF2 as Django's own (the same `pbkdf2_sha256` hashes, read and written), hashed in
    the machine's one turn. `verify` hashes through `encode`, so a check takes its turn too."""

    def encode(self, password, salt, iterations=None):
        return _hashing.submit(self._encode_in_turn, password, salt, iterations).result()

    def _encode_in_turn(self, password, salt, iterations):
        with one_at_a_time():
            return super().encode(password, salt, iterations)
