"""Real processes of the site: daphne, the Celery worker and beat (or any command), each
started in a process group of its own with its output in a log file of its name, waited for,
stopped, restarted, their logs read.

Each process is started with its unit's command line (harness.units); the environment is the
caller's (`environment` builds the usual one) with the unit's own Environment= values on top,
as systemd gives them.
"""

from __future__ import annotations

import itertools
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.units import (
    ANALYSIS,
    BEAT,
    DAPHNE,
    ROOT,
    WORKER,
    UnitError,
    exec_start,
    set_option,
    unit_environment,
)

# The virtual environment's bin/ of the interpreter running the harness: the units'
# /srv/circolo/.venv/bin/ stands for it.
BIN = Path(sys.executable).parent
ASGI_APP = "config.asgi:application"
# A stop waits this long after SIGTERM before SIGKILL: daphne's and beat's TimeoutStopSec
# (deploy/systemd/). The worker's is 60 s, for tasks in hand; here none is worth the wait.
STOP_SECONDS = 20.0
_nodes = itertools.count(1)


def free_port() -> int:
    """A TCP port on loopback that nothing listens on now (the kernel's pick)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.1):
    """The predicate's first true value, asked every `interval` seconds; TimeoutError after
    `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")


def listening(port: int, host: str = "127.0.0.1") -> bool:
    try:
        socket.create_connection((host, port), timeout=0.2).close()
    except OSError:
        return False
    return True


def wait_listening(port: int, timeout: float, host: str = "127.0.0.1") -> None:
    wait_until(lambda: listening(port, host), timeout, f"something to listen on port {port}")


def http_get(url: str, timeout: float = 5) -> tuple[int, str]:
    """(status, body) of a GET; (0, the error) when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")
    except OSError as error:
        return 0, str(error)


def http_status(url: str) -> int | None:
    """The status of a GET, None when nothing answers."""
    return http_get(url, timeout=2)[0] or None


def environment(base: Mapping[str, str] | None = None, /, **values: str) -> dict[str, str]:
    """A site process's environment: `base` (this process's own by default), the site's
    settings module, then `values`."""
    env = dict(os.environ if base is None else base)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env.update(values)
    return env


def daphne_argv(port: int, app: str = ASGI_APP) -> list[str]:
    """The daphne unit's command (`python -m config.serve -b 127.0.0.1 -p PORT APP`: daphne
    on uvloop, config/serve.py) on `port`, serving `app`."""
    argv = exec_start(DAPHNE, str(port), BIN)
    if argv[-1] != ASGI_APP:
        raise UnitError(f"{DAPHNE}: ExecStart does not end with {ASGI_APP}")
    return [*argv[:-1], app]


def worker_argv(node: str, loglevel: str | None = None, include: Iterable[str] = ()) -> list[str]:
    """The worker unit's command (`--without-gossip --without-mingle`, two processes), named
    `node@%h` (Celery's host name placeholder; two workers of one host need two names), at
    `loglevel` if given, loading the `include` modules too."""
    argv = set_option(exec_start(WORKER, bin_dir=BIN), "-n", f"{node}@%h")
    if loglevel:
        argv = set_option(argv, "--loglevel", loglevel)
    for module in include:
        argv += ["--include", module]
    return argv


def analysis_worker_argv(node: str, include: Iterable[str] = ()) -> list[str]:
    """The analysis worker unit's command (one process, the analysis queue only: the unit's
    ANALYSIS_WORKER=1), named `node@%h`, loading the `include` modules too."""
    argv = set_option(exec_start(ANALYSIS, bin_dir=BIN), "-n", f"{node}@%h")
    for module in include:
        argv += ["--include", module]
    return argv


def beat_argv(loglevel: str | None = None) -> list[str]:
    """The beat unit's command (`--scheduler config.beat:HeartbeatScheduler`, no pid file)."""
    argv = exec_start(BEAT, bin_dir=BIN)
    return set_option(argv, "--loglevel", loglevel) if loglevel else argv


@dataclass
class Command:
    """How a process was last started: what `Processes.restart` starts again."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    stdout: bool


@dataclass
class Processes:
    """Processes by name, each logging to `log_dir`/<name>.log (appended to across restarts).
    Each runs in a session of its own, so a signal reaches its children too (the worker's
    pool). As a context manager, every one is stopped on the way out."""

    log_dir: Path
    env: dict[str, str] = field(default_factory=environment)
    running: dict[str, subprocess.Popen] = field(default_factory=dict)
    commands: dict[str, Command] = field(default_factory=dict)

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, *_exc) -> None:
        self.stop_all()

    # --- starting ---------------------------------------------------------------------------

    def start(
        self,
        name: str,
        argv: list[str],
        env: Mapping[str, str] | None = None,
        *,
        cwd: Path = ROOT,
        stdout: bool = True,
    ) -> subprocess.Popen:
        """`argv` as process `name`, in `env` (this set's own by default). Its stderr goes to the
        log, and its stdout too unless `stdout` is false (daphne's access log, a line per
        request)."""
        command = Command(list(argv), dict(self.env if env is None else env), cwd, stdout)
        self.commands[name] = command
        return self._launch(name, command)

    def _launch(self, name: str, command: Command) -> subprocess.Popen:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path(name), "ab") as log:
            proc = subprocess.Popen(
                command.argv,
                cwd=command.cwd,
                env=command.env,
                stdout=log if command.stdout else subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )
        self.running[name] = proc
        return proc

    def start_daphne(
        self,
        port: int,
        name: str = "daphne",
        app: str = ASGI_APP,
        env: Mapping[str, str] | None = None,
        *,
        stdout: bool = True,
    ) -> subprocess.Popen:
        return self.start(name, daphne_argv(port, app), self._unit_env(DAPHNE, env), stdout=stdout)

    def start_worker(
        self,
        name: str = "worker",
        node: str | None = None,
        loglevel: str | None = None,
        include: Iterable[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> subprocess.Popen:
        node = node or f"harness-{os.getpid()}-{next(_nodes)}"
        argv = worker_argv(node, loglevel, include)
        return self.start(name, argv, self._unit_env(WORKER, env))

    def start_analysis_worker(
        self,
        name: str = "analysis",
        node: str | None = None,
        include: Iterable[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> subprocess.Popen:
        node = node or f"harness-analysis-{os.getpid()}-{next(_nodes)}"
        argv = analysis_worker_argv(node, include)
        return self.start(name, argv, self._unit_env(ANALYSIS, env))

    def start_beat(
        self, name: str = "beat", loglevel: str | None = None, env: Mapping[str, str] | None = None
    ) -> subprocess.Popen:
        return self.start(name, beat_argv(loglevel), self._unit_env(BEAT, env))

    def _unit_env(self, unit: str, env: Mapping[str, str] | None) -> dict[str, str]:
        return {**(self.env if env is None else env), **unit_environment(unit)}

    def restart(self, name: str) -> subprocess.Popen:
        """Process `name` started again as it was last started (stopped first if it runs)."""
        self.stop(name)
        return self._launch(name, self.commands[name])

    # --- stopping ---------------------------------------------------------------------------

    def stop(self, name: str, sig: int = signal.SIGTERM, timeout: float = STOP_SECONDS) -> None:
        """`sig` to the process's group, then wait; SIGKILL after `timeout` seconds."""
        proc = self.running.pop(name, None)
        if proc is not None:
            self._end([(name, proc)], sig, timeout)

    def stop_all(self, timeout: float = STOP_SECONDS) -> None:
        """Every process told to stop at once, then waited for: a Celery worker takes seconds
        to shut down, and one after the other their times add up."""
        procs = list(self.running.items())
        self.running.clear()
        self._end(procs, signal.SIGTERM, timeout)

    @staticmethod
    def _end(procs: list[tuple[str, subprocess.Popen]], sig: int, timeout: float) -> None:
        for name, proc in procs:
            if proc.poll() is None:  # a reaped process's id may be another's by now
                if name.startswith("worker") and sig == signal.SIGTERM:
                    # A Celery worker's SIGTERM goes to its main process only, which lets its
                    # children finish the tasks in hand (systemd's KillMode=mixed, as the
                    # deployment's unit has it); to all of them, each child dies mid-task
                    # ("WorkerLostError") and the task in hand is lost.
                    proc.send_signal(sig)
                else:
                    _signal_group(proc, sig)
        deadline = time.monotonic() + timeout
        for _name, proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(timeout=10)

    # --- reading ----------------------------------------------------------------------------

    def pid(self, name: str) -> int:
        return self.running[name].pid

    def log_path(self, name: str) -> Path:
        return self.log_dir / f"{name}.log"

    def log(self, name: str) -> str:
        path = self.log_path(name)
        return path.read_text(errors="replace") if path.exists() else ""

    def tails(self, *names: str, chars: int = 4000) -> str:
        """The end of each named log (every log when none is named), for a failure's message."""
        names = names or tuple(self.commands)
        return "\n".join(
            f"--- {self.log_path(name)} ---\n{self.log(name)[-chars:]}" for name in names
        )

    # --- waiting ----------------------------------------------------------------------------

    def wait_for(self, predicate: Callable[[], Any], timeout: float, what: str, *logs: str) -> Any:
        """`wait_until`, its TimeoutError carrying the end of the named logs (all when none)."""
        try:
            return wait_until(predicate, timeout, what)
        except TimeoutError as error:
            raise TimeoutError(f"{error}\n{self.tails(*logs)}") from None

    def wait_healthy(self, url: str, timeout: float = 60, *logs: str) -> None:
        """Until `url`/healthz answers 200: the database, Redis, and the worker's and beat's
        heartbeats all fresh (config/health.py)."""
        healthz = url.rstrip("/") + "/healthz"
        self.wait_for(lambda: http_status(healthz) == 200, timeout, f"{healthz} 200", *logs)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass
