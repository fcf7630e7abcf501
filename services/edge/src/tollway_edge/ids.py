"""Fast ids and timestamps for the hot path (same formats as the contracts)."""

from __future__ import annotations

import os
from datetime import UTC, datetime


def uuid4_str() -> str:
    """A random UUID4 in canonical text form (as ``str(uuid.uuid4())``, cheaper)."""
    b = bytearray(os.urandom(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def now_ts() -> str:
    """Now, UTC, RFC 3339 with microseconds and ``Z`` — the format of
    ``tollway_contracts.events.format_ts``, without strftime."""
    return datetime.now(UTC).isoformat(timespec="microseconds")[:-6] + "Z"
