"""The process harness (harness/): the command lines it starts are the systemd units', with
only what a caller asks changed; a stop reaches every process of the group."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import BIN, Processes, UnitError, beat_argv, daphne_argv, wait_until, worker_argv
from harness.processes import analysis_worker_argv
from harness.units import ANALYSIS, BEAT, DAPHNE, WORKER, exec_start, set_option, unit_environment


def test_daphne_is_the_units_command_on_the_port_asked():
    unit = exec_start(DAPHNE, "8123", BIN)
    assert daphne_argv(8123) == unit
    assert unit == [str(BIN / "python"), "-m", "config.serve", "-b", "127.0.0.1", "-p", "8123"] + [
        "config.asgi:application"
    ]
    assert daphne_argv(8123, "tests.loop_app:application")[-1] == "tests.loop_app:application"


def test_the_worker_and_beat_are_the_units_commands_with_only_the_asked_changes():
    unit = exec_start(WORKER, bin_dir=BIN)
    assert {"--without-gossip", "--without-mingle"} <= set(unit)
    argv = worker_argv("bench-1", "INFO", ["tests.celery_hooks"])
    changed = [(a, b) for a, b in zip(unit, argv, strict=False) if a != b]
    assert changed == [
        ("--loglevel=WARNING", "--loglevel=INFO"),
        ("circolo-worker@%h", "bench-1@%h"),
    ]
    assert argv[len(unit) :] == ["--include", "tests.celery_hooks"]
    beat = exec_start(BEAT, bin_dir=BIN)
    assert beat_argv() == beat and "config.beat:HeartbeatScheduler" in beat
    assert beat_argv("INFO") == [a.replace("=WARNING", "=INFO") for a in beat]


def test_the_analysis_worker_takes_its_queue_alone_one_engine_at_a_time():
    """RULES 14.5: the unit's own environment makes it the analysis worker (config/celery.py),
    with one process; the harness changes only its name."""
    unit = exec_start(ANALYSIS, bin_dir=BIN)
    assert "--concurrency=1" in unit and {"--without-gossip", "--without-mingle"} <= set(unit)
    assert unit_environment(ANALYSIS)["ANALYSIS_WORKER"] == "1"
    argv = analysis_worker_argv("bench-a", ["tests.celery_hooks"])
    changed = [(a, b) for a, b in zip(unit, argv, strict=False) if a != b]
    assert changed == [("circolo-analysis@%h", "bench-a@%h")]
    assert "ANALYSIS_WORKER" not in unit_environment(WORKER)


def test_an_option_the_unit_lacks_is_an_error():
    with pytest.raises(UnitError):
        set_option(["celery", "worker"], "--loglevel", "INFO")


def test_a_stop_reaches_the_whole_group(tmp_path):
    """The shell's child, a process the harness did not start itself, ends with it (as the
    worker's pool does with the worker)."""
    pid_file = tmp_path / "child"
    with Processes(tmp_path) as procs:
        procs.start("shell", ["sh", "-c", f"sleep 60 & echo $! > {pid_file}; wait"])
        child = int(wait_until(lambda: pid_file.exists() and pid_file.read_text(), 10, "the child"))
        procs.stop("shell", timeout=5)
    wait_until(lambda: not alive(child), 5, "the child to end")


def alive(pid: int) -> bool:
    """Running, not a zombie left for a reaper."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
