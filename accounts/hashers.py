"""The hasher of the players' passwords: Django's PBKDF2, its algorithm and iterations, with one
bound: the machine hashes one password at a time.

A hash is a quarter of a second of one core by design (a guessed password must cost as much).
The account forms' POSTs run in a lane of their own in each daphne (config/asgi.py PageGate),
but two daphnes still hashed on both cores at once, and every other visitor's page waited for
a core (make attack's mail and deletion scenarios). Hashes take turns through a lock on a file
of VAR_DIR, which every process of one installation shares: at most one core hashes, and a
burst of N passwords takes N quarter seconds (about 240 a minute). The wait happens in the
lane's thread, never in a page's turn; `hashlib` releases the GIL while it hashes.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator

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


class OneAtATimePBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """PBKDF2 as Django's own (the same `pbkdf2_sha256` hashes, read and written), hashed in
    the machine's one turn. `verify` hashes through `encode`, so a check takes its turn too."""

    def encode(self, password, salt, iterations=None):
        with one_at_a_time():
            return super().encode(password, salt, iterations)
