"""One process harness for the tests (tests/processes.py, tests/conftest.py), the benchmarks
(bench/) and `make deploy-check` (deploy/check.py): daphne, the Celery worker and beat started
with the command lines of their systemd units (harness.units), each in a process group of its
own logging to a file, waited for, stopped, restarted, their logs read (harness.processes);
free ports and the processes' environment.

Not part of the site: no module of the site imports it (the "harness-apart" contract of
pyproject.toml [tool.importlinter]).
"""

from harness.processes import (
    ASGI_APP,
    BIN,
    Processes,
    beat_argv,
    daphne_argv,
    environment,
    free_port,
    http_get,
    http_status,
    listening,
    wait_listening,
    wait_until,
    worker_argv,
)
from harness.units import ROOT, UnitError

__all__ = [
    "ASGI_APP",
    "BIN",
    "ROOT",
    "Processes",
    "UnitError",
    "beat_argv",
    "daphne_argv",
    "environment",
    "free_port",
    "http_get",
    "http_status",
    "listening",
    "wait_listening",
    "wait_until",
    "worker_argv",
]
