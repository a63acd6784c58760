"""The private site under attack: two daphne processes, a Celery worker and beat on the
PostgreSQL and Redis of scripts/with-services.sh, on loopback only and free ports; what the
fault scenarios do to them (kill -9 and restart, Redis and PostgreSQL stopped and started);
and the tracebacks in their logs.

The processes are the process harness's (harness/): the units' command lines, each writing to
its own log in the run's directory (appended across restarts).
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.live import server_environment
from harness import ROOT, Processes, free_port, wait_listening

TRACEBACK = "Traceback (most recent call last)"
DAPHNES = ("daphne-a", "daphne-b")


def site_environment(run_dir: Path) -> dict[str, str]:
    """What every process of the site (and the attacker's own Django, which writes the
    sessions it presents) shares: one secret key, a var directory of the run's own."""
    env = server_environment()
    env.setdefault("SECRET_KEY", secrets.token_urlsafe(40))
    env["VAR_DIR"] = str(run_dir / "var")
    env["DEBUG"] = "0"
    env.setdefault("LOG_LEVEL", "INFO")
    return env


@dataclass
class Site:
    run_dir: Path
    env: dict[str, str]
    ports: dict[str, int] = field(default_factory=dict)  # daphne name -> port
    procs: Processes = field(init=False)

    def __post_init__(self) -> None:
        self.procs = Processes(self.log_dir, self.env)

    @property
    def log_dir(self) -> Path:
        return self.run_dir / "logs"

    # --- processes -----------------------------------------------------------------------------

    def start_daphne(self, name: str, env: dict[str, str] | None = None) -> None:
        """Daphne `name` on its port (a free one the first time, the same one after)."""
        port = self.ports.setdefault(name, free_port())
        self.procs.start_daphne(port, name, env=env)

    def restart_daphnes(self, **extra: str) -> None:
        """Both daphne processes stopped and started again with `extra` in their environment
        (nothing: the site's own), on the same ports."""
        for name in DAPHNES:
            self.procs.stop(name, timeout=15)
        for name in DAPHNES:
            self.start_daphne(name, {**self.env, **extra})
        self.wait_up()

    def start_all(self) -> None:
        for name in DAPHNES:
            self.start_daphne(name)
        self.procs.start_worker(node=f"attack-{os.getpid()}")
        self.procs.start_beat()
        self.wait_up()

    def wait_up(self) -> None:
        """Every daphne listening, and /healthz 200 (the worker and beat beating)."""
        for port in self.ports.values():
            wait_listening(port, 60)
        self.procs.wait_healthy(f"http://127.0.0.1:{next(iter(self.ports.values()))}", 90)

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        self.procs.stop(name, sig, timeout=15)

    def restart(self, name: str) -> None:
        """Started again as it was last started (its port, its environment)."""
        self.procs.restart(name)
        if name in self.ports:
            wait_listening(self.ports[name], 60)

    def stop_all(self) -> None:
        self.procs.stop_all()

    # --- the services (scripts/test-services.sh) ----------------------------------------------

    @property
    def services_dir(self) -> Path | None:
        data = os.environ.get("TEST_PG_DATA")
        return Path(data).parent if data else None

    def can_stop_services(self) -> bool:
        return bool(os.environ.get("TEST_PG_DATA") and os.environ.get("TEST_REDIS_PORT"))

    def redis_stop(self) -> None:
        """`redis-cli shutdown nosave`: Redis goes away with everything it held (queued tasks,
        heartbeats, throttle counters, pub/sub subscriptions), as in a crash and restart."""
        port = os.environ["TEST_REDIS_PORT"]
        subprocess.run(
            ["redis-cli", "-p", port, "shutdown", "nosave"], capture_output=True, timeout=20
        )
        for _ in range(100):
            if subprocess.run(["redis-cli", "-p", port, "ping"], capture_output=True).returncode:
                return
            time.sleep(0.1)

    def redis_start(self) -> None:
        """The same command line as scripts/test-services.sh."""
        port, where = os.environ["TEST_REDIS_PORT"], self.services_dir
        subprocess.run(
            [
                "redis-server",
                "--port",
                port,
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(where),
                "--daemonize",
                "yes",
                "--pidfile",
                str(where / "redis.pid"),
                "--logfile",
                str(where / "redis.log"),
            ],
            check=True,
            timeout=20,
        )
        for _ in range(100):
            ping = subprocess.run(["redis-cli", "-p", port, "ping"], capture_output=True)
            if ping.stdout.strip() == b"PONG":
                return
            time.sleep(0.1)

    def _as_postgres(self, argv: list[str]) -> list[str]:
        # scripts/test-services.sh runs PostgreSQL as the 'postgres' user when root.
        return ["runuser", "-u", "postgres", "--", *argv] if os.getuid() == 0 else argv

    def pg_stop(self) -> None:
        """`pg_ctl stop -m fast`: every connection is cut, new ones are refused."""
        pg_ctl = str(Path(os.environ["TEST_PG_BIN"]) / "pg_ctl")
        data = os.environ["TEST_PG_DATA"]
        # The options it was started with, to start it again the same way.
        self._pg_opts = (Path(data) / "postmaster.opts").read_text()
        subprocess.run(
            self._as_postgres([pg_ctl, "-D", data, "-m", "fast", "-w", "stop"]),
            capture_output=True,
            timeout=60,
        )

    def pg_start(self) -> None:
        """`pg_ctl start` on the same data directory with the options of its first start
        (postmaster.opts, written by PostgreSQL: the port, the socket directory, fsync=off…)."""
        pg_ctl = str(Path(os.environ["TEST_PG_BIN"]) / "pg_ctl")
        data = os.environ["TEST_PG_DATA"]
        words = shlex.split(self._pg_opts)[1:]  # without the postgres binary
        options = []
        while words:
            word = words.pop(0)
            if word == "-D":  # pg_ctl gives the data directory itself
                words.pop(0)
                continue
            options.append(shlex.quote(word))
        subprocess.run(
            self._as_postgres(
                [
                    pg_ctl,
                    "-D",
                    data,
                    "-l",
                    str(self.services_dir / "pg.log"),
                    "-w",
                    "-t",
                    "60",
                    "-o",
                    " ".join(options),
                    "start",
                ]
            ),
            capture_output=True,
            timeout=90,
            check=True,
        )

    def keep_service_logs(self) -> None:
        """Copy PostgreSQL's and Redis's logs beside the site's (their directory is removed when
        scripts/with-services.sh exits)."""
        where = self.services_dir
        if where is None:
            return
        for name in ("pg.log", "redis.log"):
            if (where / name).exists():
                shutil.copy(where / name, self.log_dir / name)

    # --- logs ----------------------------------------------------------------------------------

    def mark(self, text: str) -> None:
        """A line in every log, so a reader finds where a scenario or a fault began."""
        line = f"=== bench.attack {time.strftime('%H:%M:%S')}: {text} ===\n".encode()
        for path in sorted(self.log_dir.glob("*.log")):
            with path.open("ab") as f:
                f.write(line)

    def log_sizes(self) -> dict[str, int]:
        return {p.name: p.stat().st_size for p in sorted(self.log_dir.glob("*.log"))}

    def tracebacks_between(
        self, start: dict[str, int], end: dict[str, int] | None = None
    ) -> list[Traceback]:
        """The tracebacks written to the logs between two `log_sizes()` (end None: until now)."""
        found = []
        for path in sorted(self.log_dir.glob("*.log")):
            with path.open("rb") as f:
                f.seek(start.get(path.name, 0))
                size = None if end is None else end.get(path.name, 0) - start.get(path.name, 0)
                text = f.read(size if size is None or size >= 0 else 0).decode(errors="replace")
            found.extend(parse_tracebacks(path.name, text))
        return found


@dataclass(frozen=True)
class Traceback:
    log: str
    message: str  # the log line just before it ("Internal Server Error: /x", "push … failed")
    exception: str  # its last line ("ValueError: …")
    where: str = ""  # its deepest frame in the project's code ("games/views.py:83 cancel")


_ADDRESSES = re.compile(r"\[[0-9a-f-]{36}\]|0x[0-9a-f]+|\b\d+\b")
_LOG_PREFIX = re.compile(r"^\[\d{4}-\d\d-\d\d [^\]]*\]\s*")
_FRAME = re.compile(r'\s+File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<function>.+)')


def parse_tracebacks(log: str, text: str) -> list[Traceback]:
    """One entry per "Traceback (most recent call last)" line (a chained exception makes two),
    each with the log line that announced it (for a chain, the one before its first
    traceback), its deepest frame in the project and the exception it ended with."""
    found: list[Traceback] = []
    message = chain_message = ""
    state, current = "normal", None
    for line in text.splitlines():
        if TRACEBACK in line:
            if current is not None:
                found.append(current)
            if state != "chained":
                chain_message = message
            current, state = Traceback(log, chain_message[:160], ""), "frames"
            continue
        indented = not line.strip() or line[:1] in (" ", "\t")
        if state == "frames":
            frame = _FRAME.match(line)
            if frame and frame["path"].startswith(str(ROOT)) and ".venv" not in frame["path"]:
                path = frame["path"].removeprefix(str(ROOT) + "/")
                where = f"{path}:{frame['line']} {frame['function']}"
                current = Traceback(log, current.message, "", where)
            if not indented:  # the exception that ended it
                current = Traceback(log, current.message, line.strip()[:200], current.where)
                found.append(current)
                current, state = None, "after"
            continue
        if line.startswith(("During handling", "The above exception")):
            state = "chained"
            continue
        if state == "chained" or indented or line.startswith("['  File"):
            continue  # the rest of an exception's message; celery's stack dump
        state = "normal"
        message = _LOG_PREFIX.sub("", line.strip())
    if current is not None:
        found.append(current)
    return found


def describe(tb: Traceback) -> tuple[str, str]:
    """A traceback as (what it is, its exception in full): the process, the log line that
    announced it, the exception's type and our deepest frame, ids and addresses folded, so
    that alike ones count together; the exception's message, which may hold the hostile
    value, is the example."""
    process = tb.log.removesuffix(".log").removesuffix("-a").removesuffix("-b")
    kind = tb.exception.split(":", 1)[0]
    where = f" at {tb.where}" if tb.where else ""
    message = _ADDRESSES.sub("N", tb.message)
    if len(message) > 110:
        message = message[:110] + "…"
    return f"{process}: {message} -> {kind}{where}", tb.exception[:160]


def summarize(tracebacks: list[Traceback], limit: int = 12) -> list[str]:
    """The distinct tracebacks, most frequent first (numbers and addresses folded together)."""
    counts: Counter[tuple[str, str, str]] = Counter()
    example: dict[tuple[str, str, str], Traceback] = {}
    for tb in tracebacks:
        key = (tb.log, _ADDRESSES.sub("N", tb.message), _ADDRESSES.sub("N", tb.exception))
        counts[key] += 1
        example.setdefault(key, tb)
    lines = []
    for key, n in counts.most_common(limit):
        tb = example[key]
        lines.append(f"{n:5d} x {tb.log}: {tb.message!s} -> {tb.exception}")
    if len(counts) > limit:
        lines.append(f"      … and {len(counts) - limit} other kinds")
    return lines
