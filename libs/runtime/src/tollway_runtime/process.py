"""Process-level helpers: open-file limit, event loop policy, memory after start."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import resource
import sys
from collections.abc import Callable, Iterable, Iterator


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


@contextlib.contextmanager
def without_optional_modules(names: Iterable[str]) -> Iterator[None]:
    """Inside the block, importing any of ``names`` raises ``ImportError``, as if
    it were not installed (a ``None`` entry in ``sys.modules``, Python's documented
    way); afterwards they import normally again.

    For optional integrations that libraries load merely because the package
    is present in the environment and that the process never uses: a library
    imported inside the block takes its "not installed" path for good (e.g.
    structlog without ``rich``), the rest of the process is unaffected. A name
    already imported is left alone.
    """
    blocked = [name for name in names if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        for name in blocked:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]


def _libc_malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim  # glibc only; musl has none
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def settle_memory(*, freeze: bool = True, gen0_threshold: int | None = None) -> None:
    """Call once a long-running process has started: collect garbage, move
    every surviving object to the permanent generation (``gc.freeze``: later
    collections, including the full ones, no longer walk the modules, classes
    and startup state, which shortens the pauses they cause on the event loop),
    and give the C heap's free pages back to the OS (glibc's ``malloc_trim``:
    importing and starting leave megabytes of freed memory inside the heap,
    counted in the process's RSS until trimmed). Safe to call again later
    (objects created since are frozen too).

    Args:
        freeze: False only collects and trims.
        gen0_threshold: when given, the collector's first threshold (net
            allocations of tracked objects between young collections; CPython's
            default 700); the other two thresholds are kept. Larger means fewer
            young collections and fewer objects promoted while still in use.
    """
    gc.collect()
    if freeze:
        gc.freeze()
    if gen0_threshold is not None:
        _, gen1, gen2 = gc.get_threshold()
        gc.set_threshold(gen0_threshold, gen1, gen2)
    trim = _libc_malloc_trim()
    if trim is not None:
        trim(0)
