"""The deployment's environment-file template names every variable of the README's
"Configuration" table: `make deploy-check` checks it too, but only CI's second command runs
that, and a variable added without its line went unseen for a whole session."""

from __future__ import annotations

import re
from pathlib import Path

from deploy.check import DEPLOY, readme_variables


def test_every_readme_variable_is_in_the_env_file_template():
    names = readme_variables()
    example = Path(DEPLOY / "circolo.env.example").read_text()
    missing = [n for n in names if not re.search(rf"^#?{n}=", example, re.M)]
    assert len(names) > 40
    assert missing == []
