"""API key format and hashing (DESIGN.md "Authenticate").

A key is ``tw_<key id>_<secret>``:

- ``key id``: 12 characters of ``[a-z0-9]``, public (logs, reports, events).
- ``secret``: 32 characters of ``[A-Za-z0-9]`` (~190 bits), shown once at
  creation and stored only as ``HMAC-SHA256(pepper, key_id + ":" + secret)``
  in hex, so a database dump alone cannot be used to call the gateway, and a
  hash cannot be moved to another key id.

Verification compares hashes with :func:`hmac.compare_digest` (constant time).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import string
from dataclasses import dataclass

PREFIX = "tw"
KEY_ID_LENGTH = 12
SECRET_LENGTH = 32
_KEY_ID_ALPHABET = string.ascii_lowercase + string.digits
_SECRET_ALPHABET = string.ascii_letters + string.digits
_KEY_RE = re.compile(rf"^tw_([a-z0-9]{{{KEY_ID_LENGTH}}})_([A-Za-z0-9]{{{SECRET_LENGTH}}})$")


@dataclass(frozen=True, slots=True)
class ParsedKey:
    """A key split into its public id and its secret."""

    key_id: str
    secret: str


def new_key_id() -> str:
    """A fresh random key id (12 chars of ``[a-z0-9]``)."""
    return "".join(secrets.choice(_KEY_ID_ALPHABET) for _ in range(KEY_ID_LENGTH))


def new_key() -> tuple[str, ParsedKey]:
    """Mint a key.

    Returns:
        ``(full_key, parsed)``; the full key is shown to the user once.
    """
    key_id = new_key_id()
    secret = "".join(secrets.choice(_SECRET_ALPHABET) for _ in range(SECRET_LENGTH))
    return f"{PREFIX}_{key_id}_{secret}", ParsedKey(key_id, secret)


def parse_key(raw: str) -> ParsedKey | None:
    """Split a presented key; None if it is not of the ``tw_<id>_<secret>`` form."""
    match = _KEY_RE.match(raw)
    if match is None:
        return None
    return ParsedKey(match.group(1), match.group(2))


def hash_secret(pepper: bytes, key_id: str, secret: str) -> str:
    """HMAC-SHA256 of ``key_id:secret`` under the server-side pepper, hex (64 chars)."""
    return hmac.new(pepper, f"{key_id}:{secret}".encode(), hashlib.sha256).hexdigest()


def verify_secret(pepper: bytes, key_id: str, secret: str, stored_hash: str) -> bool:
    """True when ``secret`` matches ``stored_hash``; constant-time comparison."""
    return hmac.compare_digest(hash_secret(pepper, key_id, secret), stored_hash)


# --- reporting tokens ---------------------------------------------------------
# A reporting token is ``twr_<token id>_<secret>`` with the same id and secret
# alphabets and lengths as an API key, minted by the quota admin API
# (``POST /admin/v1/reporting-tokens``) and stored as :func:`hash_secret` of
# ``token_id:secret``. It grants read access to ONE tenant's reports only; it
# is not an API key (the edge never accepts it: different prefix).

REPORTING_PREFIX = "twr"
_REPORTING_RE = re.compile(rf"^twr_([a-z0-9]{{{KEY_ID_LENGTH}}})_([A-Za-z0-9]{{{SECRET_LENGTH}}})$")


def new_reporting_token() -> tuple[str, ParsedKey]:
    """Mint a reporting token.

    Returns:
        ``(full_token, parsed)``; ``parsed.key_id`` is the public token id. The
        full token is shown to the admin once.
    """
    token_id = new_key_id()
    secret = "".join(secrets.choice(_SECRET_ALPHABET) for _ in range(SECRET_LENGTH))
    return f"{REPORTING_PREFIX}_{token_id}_{secret}", ParsedKey(token_id, secret)


def parse_reporting_token(raw: str) -> ParsedKey | None:
    """Split a presented reporting token; None if it is not ``twr_<id>_<secret>``."""
    match = _REPORTING_RE.match(raw)
    if match is None:
        return None
    return ParsedKey(match.group(1), match.group(2))
