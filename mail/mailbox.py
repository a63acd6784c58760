"""A mailbox's key: the one normalisation of an address, used wherever the site asks "is this
the same mailbox?" (RULES 10.1): the outbox's daily count, the reset request's counter, the
password-reset lookup, and the uniqueness of a verified address (accounts.User.email_key, its
digest).

NFKC then casefold, as Django's password-reset lookup compares addresses
(`django.contrib.auth.forms._unicode_ci_compare`): `ſissa@example.org`, `SISSA@example.org`
and `ｓｉｓｓａ@ｅｘａｍｐｌｅ.org` are one mailbox. The subaddress of RFC 5233 (what follows a
`+` in the local part) is dropped too: `sissa+club@…` and `sissa+@…` reach the mailbox of
`sissa@…` at most providers, and a fresh tag must not be a fresh mailbox."""

from __future__ import annotations

import hashlib
import unicodedata


def mailbox_key(address: str) -> str:
    """The mailbox `address` reaches, as one string ("" for no address)."""
    folded = unicodedata.normalize("NFKC", (address or "").strip()).casefold()
    if not folded:
        return ""
    local, at, domain = folded.rpartition("@")
    if not at:
        return folded
    base = local.split("+", 1)[0]
    return f"{base or local}@{domain}"


def mailbox_digest(address: str) -> str:
    """The key as a fixed-length digest ("" for no address): what the counters and the accounts
    store, not a second copy of the address, and of a bounded length however NFKC expands it
    (one character may become eighteen)."""
    key = mailbox_key(address)
    return hashlib.sha256(key.encode()).hexdigest()[:32] if key else ""
