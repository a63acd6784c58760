"""The dependency tree is locked whole, with hashes (README "Dependencies").

`requirements.in` and `requirements-dev.in` name what we use, pinned; `make lock` compiles them
into `requirements.txt` and `requirements-dev.txt`, which `make run` and `make test` install
with `uv pip install --require-hashes`, uv itself locked in `requirements-uv.txt` and installed
with `pip install --require-hashes`. These tests fail when an .in file and its lock disagree
(a pin changed by hand without `make lock`), when the lock has an unpinned or unhashed entry,
or when the two locks lock the runtime tree differently. No network: they read files only.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([^\s;\\]+)")


def _name(raw: str) -> str:
    # PEP 503: names compare lower-cased with runs of -, _ and . as one -.
    return re.sub(r"[-_.]+", "-", raw).lower()


def _in_pins(path: Path) -> dict[str, str]:
    """The pins an .in file asks for (its -r includes followed, -c constraints not)."""
    pins: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-c "):
            continue
        if line.startswith("-r "):
            pins.update(_in_pins(path.parent / line[3:].strip()))
            continue
        match = PIN.match(line)
        assert match, f"{path.name}: {line!r} is not pinned with =="
        pins[_name(match.group(1))] = match.group(3)
    return pins


def _locked(path: Path) -> dict[str, tuple[str, list[str]]]:
    """Each locked package: its version and its hashes (pip-compile's continued lines)."""
    entries: dict[str, tuple[str, list[str]]] = {}
    current = None
    for line in path.read_text().splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not line.startswith(" "):
            match = PIN.match(stripped)
            assert match, f"{path.name}: {stripped!r} is not name==version"
            current = _name(match.group(1))
            entries[current] = (match.group(3), [])
        elif stripped.startswith("--hash="):
            assert current is not None
            entries[current][1].append(stripped.removeprefix("--hash=").rstrip(" \\"))
    return entries


def check_hashed(root: Path) -> None:
    for lock in ("requirements-uv.txt", "requirements.txt", "requirements-dev.txt"):
        entries = _locked(root / lock)
        assert entries, lock
        for name, (_, hashes) in entries.items():
            assert hashes, f"{lock}: {name} has no hash"
            assert all(h.startswith("sha256:") and len(h) == 71 for h in hashes), (lock, name)


def check_locks_follow_in_files(root: Path) -> None:
    for source, lock in (
        ("requirements-uv.in", "requirements-uv.txt"),
        ("requirements.in", "requirements.txt"),
        ("requirements-dev.in", "requirements-dev.txt"),
    ):
        asked = _in_pins(root / source)
        locked = _locked(root / lock)
        wrong = {
            name: (version, locked.get(name, ("missing",))[0])
            for name, version in asked.items()
            if locked.get(name, ("missing",))[0] != version
        }
        assert not wrong, f"{source} and {lock} disagree (run make lock): {wrong}"
    runtime = _locked(root / "requirements.txt")
    dev = _locked(root / "requirements-dev.txt")
    differ = {
        name: (version, dev.get(name, ("missing",))[0])
        for name, (version, _) in runtime.items()
        if dev.get(name, ("missing",))[0] != version
    }
    assert not differ, f"requirements-dev.txt locks the runtime tree otherwise: {differ}"


def test_every_locked_package_is_pinned_and_hashed():
    check_hashed(ROOT)


def test_the_locks_say_what_the_in_files_ask_and_agree():
    check_locks_follow_in_files(ROOT)


def test_the_makefile_installs_the_locks_with_hashes():
    makefile = (ROOT / "Makefile").read_text()
    installs = re.findall(r"^\t(.*pip install.*)$", makefile, re.M)
    # uv by pip from its own lock, then each lock by uv.
    assert installs[0].startswith("$(PY) -m pip install") and len(installs) == 3, installs
    assert installs[0].endswith("-r requirements-uv.txt")
    for line in installs[1:]:
        assert line.startswith("$(UV) pip install"), line
        assert re.search(r"-r requirements(-dev)?\.txt$", line), line
    for line in installs:
        assert "--require-hashes" in line, line


def test_the_checks_fail_on_a_pin_changed_by_hand(tmp_path):
    """The checks above can fail: a pin edited in an .in file without `make lock`, a lock entry
    without its hashes, a dev lock that locks a runtime package at another version."""
    for name in (
        "requirements-uv.in",
        "requirements-uv.txt",
        "requirements.in",
        "requirements-dev.in",
        "requirements.txt",
        "requirements-dev.txt",
    ):
        (tmp_path / name).write_text((ROOT / name).read_text())
    check_hashed(tmp_path)
    check_locks_follow_in_files(tmp_path)
    runtime = (ROOT / "requirements.in").read_text()
    django = re.search(r"^Django==(\S+)$", runtime, re.M).group(0)

    (tmp_path / "requirements.in").write_text(runtime.replace(django, "Django==5.2.0"))
    with pytest.raises(AssertionError, match="disagree"):
        check_locks_follow_in_files(tmp_path)
    (tmp_path / "requirements.in").write_text(runtime)

    lock = (ROOT / "requirements.txt").read_text()
    unhashed = re.sub(r"^(django==\S+) \\\n(    --hash=\S+( \\)?\n)+", r"\1\n", lock, flags=re.M)
    assert unhashed != lock
    (tmp_path / "requirements.txt").write_text(unhashed)
    with pytest.raises(AssertionError, match="django has no hash"):
        check_hashed(tmp_path)

    dev = (ROOT / "requirements-dev.txt").read_text()
    (tmp_path / "requirements.txt").write_text(lock)
    (tmp_path / "requirements-dev.txt").write_text(
        re.sub(r"^amqp==\S+", "amqp==1.0", dev, flags=re.M)
    )
    with pytest.raises(AssertionError, match="otherwise"):
        check_locks_follow_in_files(tmp_path)
