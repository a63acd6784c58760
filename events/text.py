"""What the text an opener types may contain: names and descriptions are shown on pages and
written into exports (PGN/PDN headers, TRF), so control characters, line and paragraph
separators and invisible formatting characters (bidirectional overrides among them) are
refused at input; a description may keep its line breaks and tabs."""

from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy as _

NAME_MAX = 80
DESCRIPTION_MAX = 2000
REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


@deconstructible
class PlainText:
    """Refuse control and invisible formatting characters (`multiline` keeps \\n, \\r, \\t)."""

    def __init__(self, multiline: bool = False) -> None:
        self.multiline = multiline

    def __call__(self, value: str) -> None:
        allowed = {"\n", "\r", "\t"} if self.multiline else set()
        bad = sorted(
            {
                f"U+{ord(c):04X}"
                for c in value
                if c not in allowed and unicodedata.category(c) in REFUSED_CATEGORIES
            }
        )
        if bad:
            raise ValidationError(
                _("Caratteri non ammessi (di controllo o invisibili): %(chars)s."),
                code="control_characters",
                params={"chars": ", ".join(bad[:5])},
            )

    def __eq__(self, other) -> bool:
        return isinstance(other, PlainText) and other.multiline == self.multiline


plain_name = PlainText(multiline=False)
plain_description = PlainText(multiline=True)
