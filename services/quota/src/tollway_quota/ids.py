"""Principal ids: ``<prefix>_<12 chars of [a-z0-9]>`` (``tn_``, ``tm_``, ``us_``, ``lm_``).

Format defined in :mod:`tollway_contracts.admin`; random, so ids leak
neither counts nor creation order.
"""

from __future__ import annotations

import secrets
import string

from tollway_contracts.admin import ID_RANDOM_LENGTH, LIMIT_PREFIX, TEAM_PREFIX, TENANT_PREFIX, USER_PREFIX

_ALPHABET = string.ascii_lowercase + string.digits


def new_id(prefix: str) -> str:
    """A fresh id ``<prefix>_<12 random [a-z0-9]>``."""
    return f"{prefix}_" + "".join(secrets.choice(_ALPHABET) for _ in range(ID_RANDOM_LENGTH))


def new_tenant_id() -> str:
    """A fresh tenant id, ``tn_...``."""
    return new_id(TENANT_PREFIX)


def new_team_id() -> str:
    """A fresh team id, ``tm_...``."""
    return new_id(TEAM_PREFIX)


def new_user_id() -> str:
    """A fresh user id, ``us_...``."""
    return new_id(USER_PREFIX)


def new_limit_id() -> str:
    """A fresh limit id, ``lm_...``."""
    return new_id(LIMIT_PREFIX)
