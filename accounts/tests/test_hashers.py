"""The passwords' hasher hashes one at a time on the whole machine (accounts/hashers.py): a
password hashed while another process holds the turn waits for it, and the hashes are Django's
own PBKDF2 ones, read and written alike."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from django.contrib.auth.hashers import PBKDF2PasswordHasher, check_password, make_password

from accounts.hashers import LOCK_NAME, OneAtATimePBKDF2PasswordHasher

HOLDER = r"""
import fcntl, sys
with open(sys.argv[1], "a") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    print("held", flush=True)
    sys.stdin.readline()  # until the test says so
"""


def test_a_hash_waits_for_another_process_turn(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    hasher = OneAtATimePBKDF2PasswordHasher()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path / LOCK_NAME)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        done = threading.Event()
        worker = threading.Thread(
            target=lambda: (hasher.encode("Correct-Horse-42", hasher.salt(), 1000), done.set())
        )
        worker.start()
        # The other process holds the turn: the hash is not made, however long we look.
        assert not done.wait(1.0)
        holder.stdin.write("go\n")
        holder.stdin.flush()
        assert done.wait(10)
        worker.join()
    finally:
        holder.kill()
        holder.wait()


def test_its_hashes_are_djangos_pbkdf2(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    settings.PASSWORD_HASHERS = ["accounts.hashers.OneAtATimePBKDF2PasswordHasher"]
    ours = make_password("Correct-Horse-42")
    assert ours.startswith("pbkdf2_sha256$")
    theirs = PBKDF2PasswordHasher().encode("Correct-Horse-42", "saltsaltsalt", 1000)
    assert check_password("Correct-Horse-42", theirs) and check_password("Correct-Horse-42", ours)
    assert not check_password("wrong", ours)


def test_the_hash_runs_in_a_thread_of_lower_priority(settings, tmp_path):
    """Fails if the hash runs in the caller's thread or at the caller's priority: the thread
    that hashes reports its own nice value, and it is the setting's, not the caller's."""
    settings.VAR_DIR = tmp_path
    settings.PASSWORD_HASHING_NICE = 7
    seen: dict[str, int] = {}

    class Watching(OneAtATimePBKDF2PasswordHasher):
        def _encode_in_turn(self, password, salt, iterations):
            seen["thread"] = threading.get_native_id()
            seen["nice"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
            return super()._encode_in_turn(password, salt, iterations)

    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    encoded = Watching().encode("Correct-Horse-42", "saltsaltsalt", 1000)
    assert encoded == PBKDF2PasswordHasher().encode("Correct-Horse-42", "saltsaltsalt", 1000)
    assert seen["thread"] != threading.get_native_id()
    # The thread is made once per process: its nice value is the one set when it was made
    # (7 if this test made it, else the default 10), never the caller's.
    assert seen["nice"] > mine and seen["nice"] in (7, 10)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine
