"""`python -m config.serve` (config/serve.py): daphne on uvloop's event loop as `make run`,
the tests' and the benchmarks' servers start it; on asyncio's own with DAPHNE_UVLOOP=0; a
SIGTERM stops it as it stops daphne."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request

import pytest

from tests.processes import BIN, ROOT, free_port, wait_until


def served_on(**env: str) -> str:
    port = free_port()
    proc = subprocess.Popen(
        [str(BIN / "python"), "-m", "config.serve", "-b", "127.0.0.1", "-p", str(port)]
        + ["tests.loop_app:application"],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        answer = {}

        def answered() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as reply:
                    answer["loop"] = reply.read().decode()
            except OSError:
                return False
            return True

        wait_until(answered, timeout=30, what="daphne answering")
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        assert time.monotonic() - started < 5
        return answer["loop"]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


@pytest.mark.parametrize(
    ("env", "loop"),
    [({}, "uvloop.Loop"), ({"DAPHNE_UVLOOP": "0"}, "asyncio.unix_events._UnixSelectorEventLoop")],
    ids=["uvloop", "asyncio"],
)
def test_daphne_runs_on_the_loop_chosen_and_stops_on_sigterm(env, loop):
    assert served_on(**env) == loop
