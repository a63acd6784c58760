"""`python -m config.serve` (config/serve.py): daphne on uvloop's event loop as `make run`,
the tests' and the benchmarks' servers start it; on asyncio's own with DAPHNE_UVLOOP=0; a
SIGTERM stops it as it stops daphne."""

from __future__ import annotations

import time

import pytest

from harness import Processes, environment, free_port, http_get


def served_on(log_dir, **env: str) -> str:
    port = free_port()
    with Processes(log_dir, environment(**env)) as procs:
        procs.start_daphne(port, app="tests.loop_app:application")
        status, loop = procs.wait_for(
            lambda: (answer := http_get(f"http://127.0.0.1:{port}/", timeout=1))[0] and answer,
            30,
            "daphne answering",
        )
        started = time.monotonic()
        procs.stop("daphne", timeout=10)  # SIGTERM; SIGKILL only after 10 s
        assert time.monotonic() - started < 5
        assert status == 200, loop
        return loop


@pytest.mark.parametrize(
    ("env", "loop"),
    [({}, "uvloop.Loop"), ({"DAPHNE_UVLOOP": "0"}, "asyncio.unix_events._UnixSelectorEventLoop")],
    ids=["uvloop", "asyncio"],
)
def test_daphne_runs_on_the_loop_chosen_and_stops_on_sigterm(tmp_path, env, loop):
    assert served_on(tmp_path, **env) == loop
