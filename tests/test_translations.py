"""The interface is Italian with English: every string of every English catalogue has its
translation (none empty, none fuzzy), so an English page never shows Italian by accident."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CATALOGUES = sorted(ROOT.glob("*/locale/en/LC_MESSAGES/django.po")) + [
    ROOT / "locale/en/LC_MESSAGES/django.po"
]


@pytest.mark.skipif(shutil.which("msgattrib") is None, reason="gettext is installed by make test")
@pytest.mark.parametrize("catalogue", CATALOGUES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_english_string_is_translated(catalogue):
    for flag in ("--untranslated", "--only-fuzzy"):
        found = subprocess.run(
            ["msgattrib", flag, "--no-obsolete", str(catalogue)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        ids = [
            line for line in found.splitlines() if line.startswith("msgid ") and line != 'msgid ""'
        ]
        assert ids == [], f"{flag} in {catalogue.name}: {ids[:5]}"
