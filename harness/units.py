"""The systemd units of deploy/systemd/ as the harness reads them. Every daphne, Celery worker
and beat the harness starts runs its unit's ExecStart, so the tests, the benchmarks and
`make deploy-check` start the processes with the command line a deployment runs; what a caller
changes (a port, the worker's name, its log level, a module it also loads) is changed in that
command line, never written out again."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNITS = ROOT / "deploy" / "systemd"
# Where deploy/README.md installs the checkout: the units name their paths under it.
INSTALL_ROOT = "/srv/circolo"
DAPHNE = "circolo-daphne@.service"
WORKER = "circolo-worker.service"
ANALYSIS = "circolo-analysis.service"  # the computer analysis's worker (RULES 14.5)
BEAT = "circolo-beat.service"


class UnitError(ValueError):
    """A unit, or a command line taken from one, is not shaped as the harness expects."""


def read_unit(name: str) -> dict[str, list[str]]:
    """The [Service] settings of a unit of deploy/systemd/, each key with its values."""
    settings: dict[str, list[str]] = {}
    section = ""
    for raw in (UNITS / name).read_text().splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]":
            key, _, value = line.partition("=")
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def specifiers(text: str, instance: str | None) -> str:
    """systemd's %i (the instance) and %% (a percent sign); any other specifier is not
    expected in these units."""

    def one(match: re.Match) -> str:
        if match.group(1) == "%":
            return "%"
        if match.group(1) == "i" and instance is not None:
            return instance
        raise UnitError(f"unexpected systemd specifier %{match.group(1)} in {text!r}")

    return re.sub(r"%(.)", one, text)


def exec_start(name: str, instance: str | None = None, bin_dir: Path | None = None) -> list[str]:
    """The unit's ExecStart as argv, its specifiers resolved and /srv/circolo mapped to this
    checkout; with `bin_dir`, /srv/circolo/.venv/bin/ mapped there instead (the virtual
    environment of the interpreter running the harness)."""
    (command,) = read_unit(name)["ExecStart"]
    venv_bin = f"{INSTALL_ROOT}/.venv/bin/"
    argv = []
    for arg in shlex.split(specifiers(command, instance)):
        if bin_dir is not None and arg.startswith(venv_bin):
            arg = str(bin_dir / arg[len(venv_bin) :])
        elif arg.startswith(INSTALL_ROOT + "/"):
            arg = str(ROOT) + arg[len(INSTALL_ROOT) :]
        argv.append(arg)
    return argv


def unit_environment(name: str) -> dict[str, str]:
    """The unit's own Environment= values (the EnvironmentFile aside)."""
    values = {}
    for value in read_unit(name).get("Environment", []):
        for pair in shlex.split(value):
            key, _, val = pair.partition("=")
            values[key] = val
    return values


def set_option(argv: list[str], option: str, value: str) -> list[str]:
    """argv with `option`'s value replaced, written `--option=value` or `-o value` as it is in
    argv. An option argv does not have is an error: the unit changed shape under the caller."""
    changed = list(argv)
    for i, arg in enumerate(changed):
        if arg.startswith(option + "="):
            changed[i] = f"{option}={value}"
            return changed
        if arg == option and i + 1 < len(changed):
            changed[i + 1] = value
            return changed
    raise UnitError(f"{option} is not in {shlex.join(argv)}")
