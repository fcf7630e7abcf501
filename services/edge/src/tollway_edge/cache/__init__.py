"""The exact response cache (issue 13): a provider's answer kept in Valkey and
served again for the same request of the same tenant.

Opt-in: only a key whose effective policy sets ``response_cache_ttl_seconds``
(the key's, else its team's: quota migration 0005) uses it; every other call
touches no cache and costs no Valkey round trip. Per request,
``Cache-Control: no-cache`` skips the lookup (the fresh answer is still
stored) and ``no-store`` does not store the answer.

What is cached (:func:`cacheable`): chat completions asking for one choice
(``n`` absent or 1) and offering no tools or functions (a tool call acts on
the world; replaying it is not the caller's intent). Sampling settings are
part of the key, not a reason to skip: a tenant opting in accepts that the
same request gets the same answer for the TTL.

Key: ``tw:rc:v1:{tenant}:{sha256}`` where the hash covers the tenant id,
the endpoint path and the normalised body (sorted keys; ``stream`` and
``stream_options`` removed, so a streamed and a non-streamed request share
an entry) *after redaction*: the entry holds the provider's answer to the
redacted body, before the call's own values are restored, so it holds no
text a redaction policy removed; a hit is restored with the hitting call's
own mapping. Never shared across tenants: the tenant is in the key and in
the hash.

Residency: the entry names the regions of the deployment that answered; a
hit whose regions are not all within the caller's ``allowed_regions`` is
not served (a miss). Valkey errors and timeouts are misses (logged): the
cache never fails a call.

Modules: ``store`` (keys, entries, the Valkey store), ``streams`` (a hit
replayed as a stream, a streamed miss collected).
"""

from tollway_edge.cache.store import (
    KEY_PREFIX,
    CacheDirectives,
    CacheUse,
    Entry,
    ResponseCache,
    cache_key,
    cacheable,
    directives,
)
from tollway_edge.cache.streams import StreamCollector, replay_stream

__all__ = [
    "KEY_PREFIX",
    "CacheDirectives",
    "CacheUse",
    "Entry",
    "ResponseCache",
    "StreamCollector",
    "cache_key",
    "cacheable",
    "directives",
    "replay_stream",
]
