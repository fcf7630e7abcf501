"""Process-level helpers: open-file limit, event loop policy."""

from __future__ import annotations

import resource


def raise_nofile_limit() -> tuple[int, int]:
    """Raise the open-file soft limit to the hard limit (a gateway holds two
    sockets per stream; containers often default to 1,024).

    Returns:
        ``(soft, hard)`` after the change.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            pass
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def install_uvloop() -> bool:
    """Use uvloop's event loop policy when uvloop is installed; True if so."""
    try:
        import uvloop
    except ImportError:
        return False
    import asyncio

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return True
