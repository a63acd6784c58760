"""A club's name as the site compares it (RULES 12.2), pure: two names are one when their
*keys* are equal.

The key is the mailbox key's folding (`mail.mailbox.mailbox_key`: NFKC, then casefold), then
accents dropped (NFD, combining marks removed: «Società» and «Societa» are one club), then the
letters of other scripts that look like Latin ones read as those (a short table of the Cyrillic
and Greek look-alikes of UTS #39's confusables: «Сircolo» with a Cyrillic С is «Circolo»), and
everything that is not a letter or a digit one space. **Decision**: digits stay digits («Circolo
1» and «Circolo I» are two clubs): a number in a club's name is part of its name.
"""

from __future__ import annotations

import unicodedata

# Cyrillic and Greek letters (lower case, after casefold) that look like Latin ones.
LOOK_ALIKES = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "һ": "h",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "ѕ": "s",
        "т": "t",
        "у": "y",
        "х": "x",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "μ": "u",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ϲ": "c",
        "ı": "i",
    }
)


def name_key(name: str) -> str:
    """The key two names are compared by ("" for a name of no letter or digit)."""
    folded = unicodedata.normalize("NFKC", name or "").casefold()
    plain = "".join(c for c in unicodedata.normalize("NFD", folded) if not unicodedata.combining(c))
    plain = plain.translate(LOOK_ALIKES)
    words = "".join(c if c.isalnum() else " " for c in plain).split()
    return " ".join(words)


REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def refused_characters(text: str, *, multiline: bool = False) -> list[str]:
    """The control and invisible characters of `text` (as U+XXXX), refused in a club's texts as
    in an event's (events/text.py): a description keeps its line breaks and tabs."""
    allowed = {"\n", "\r", "\t"} if multiline else set()
    return sorted(
        {
            f"U+{ord(c):04X}"
            for c in text
            if c not in allowed and unicodedata.category(c) in REFUSED_CATEGORIES
        }
    )
