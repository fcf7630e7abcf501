"""Valkey errors of our own clients (no redis-py import).

redis-py's ``redis.exceptions`` cannot be imported without importing all of
redis-py (its package ``__init__`` loads every client), which is what the edge's
worker processes avoid on single-node URLs. Our clients
(:class:`~tollway_admission.pipelined.PipelinedClient`,
:class:`~tollway_admission.node.NodeClient`) raise these instead::

    ValkeyError
    ├── ValkeyConnectionError   cannot connect, connection lost (pending commands fail)
    ├── ValkeyTimeoutError      no reply within the client's timeout, or connect timed out
    └── ValkeyResponseError     an error reply (``-ERR ...``, ``-WRONGTYPE ...``)
        └── NoScriptError       ``-NOSCRIPT``: the script is not loaded (load it, retry)

Cluster URLs still go through redis-py's ``RedisCluster``, which raises
redis-py's types; :func:`is_unavailable` and :func:`is_noscript` recognise
both families without importing redis-py (its classes are looked up only if
it is already loaded: if it is not, none of its errors can be raised).
"""

from __future__ import annotations

import sys


class ValkeyError(Exception):
    """Any failure of a Valkey command on our clients."""


class ValkeyConnectionError(ValkeyError):
    """Cannot connect to Valkey, or the connection was lost (every pending command fails)."""


class ValkeyTimeoutError(ValkeyError):
    """No reply (or no connection) within the client's timeout; the connection stays usable."""


class ValkeyResponseError(ValkeyError):
    """Valkey answered with an error reply; the message is the server's text."""


class NoScriptError(ValkeyResponseError):
    """``NOSCRIPT``: no script with that SHA1 is loaded (``SCRIPT LOAD`` it, then retry)."""


UNAVAILABLE: tuple[type[Exception], ...] = (ValkeyConnectionError, ValkeyTimeoutError, OSError, TimeoutError)
"""Our own "Valkey cannot answer now" exceptions (plus the OS's); :func:`is_unavailable`
adds redis-py's when it is loaded."""


def _redis_unavailable() -> tuple[type[Exception], ...]:
    """redis-py's "cannot answer now" exceptions, or () when redis-py is not loaded."""
    mod = sys.modules.get("redis.exceptions")
    if mod is None:
        return ()
    return (
        mod.ConnectionError,
        mod.TimeoutError,
        mod.ClusterError,  # CLUSTERDOWN, MASTERDOWN: the slot's node is failing over
        mod.TryAgainError,  # TRYAGAIN: a slot is migrating
        mod.RedisClusterException,  # no reachable node, slot not covered (redis-py's cluster client)
    )


def unavailable_errors() -> tuple[type[Exception], ...]:
    """Every exception class that means "Valkey cannot answer now": ours, the OS's
    and, when redis-py is loaded (cluster mode, or a process that uses it), redis-py's
    connection, timeout and cluster errors. For ``except unavailable_errors():``
    (the expression is evaluated only when an exception reaches the clause)."""
    return UNAVAILABLE + _redis_unavailable()


def is_unavailable(exc: BaseException) -> bool:
    """True if ``exc`` means "Valkey cannot answer now" (:func:`unavailable_errors`)."""
    return isinstance(exc, unavailable_errors())


def is_noscript(exc: BaseException) -> bool:
    """True if ``exc`` is a ``NOSCRIPT`` reply, from our clients or from redis-py's."""
    if isinstance(exc, NoScriptError):
        return True
    mod = sys.modules.get("redis.exceptions")
    return mod is not None and isinstance(exc, mod.NoScriptError)
