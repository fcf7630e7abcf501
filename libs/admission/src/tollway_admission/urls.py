"""Valkey URLs: what admission accepts, and the clients it builds from them.

Accepted forms (redis-py's, plus a cluster marker):

==========================================  =====================================================
URL                                         meaning
==========================================  =====================================================
``redis://[[user]:password@]host[:port][/db]``   plain TCP (port 6379, db 0 by default)
``rediss://...``                            TLS; redis-py's ``ssl_*`` query options apply
                                            (``ssl_cert_reqs=none|optional|required``,
                                            ``ssl_ca_certs=<path>``, ``ssl_certfile``,
                                            ``ssl_keyfile``, ``ssl_check_hostname``, ...)
``unix://[[user]:password@]/path/to.sock[?db=N]``  a unix socket
``redis+cluster://[[user]:password@]host:port``    Valkey/Redis Cluster, any node as the seed
``rediss+cluster://...``                    Cluster over TLS
==========================================  =====================================================

Other redis-py query options are accepted as redis-py accepts them
(``client_name``, ``socket_timeout``, ...); anything redis-py refuses, any
other scheme, ``protocol=3`` (RESP3) for the pipelined client, and a
non-zero db on a cluster are refused at start with a ``ValueError`` that
names the problem and shows the URL with its password masked.

Cluster mode: scripts route by their keys' hash slot, ``CRC16(tag) mod
16384`` where the tag is the part between the first ``{`` and the next ``}``
(Redis Cluster specification, "Key distribution model" and "Hash tags",
https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/).
Every key of one script shares the ``{tenant}`` tag (DESIGN.md), so a script
runs whole on one node. Routing is redis-py's asyncio ``RedisCluster`` (slot
map from ``CLUSTER SLOTS``, ``MOVED``/``ASK`` redirections, reconnect after a
failover); load the scripts (:meth:`~tollway_admission.Admission.load`)
before traffic, which also loads the slot map (README, "Known limitation"). The one-connection
:class:`~tollway_admission.pipelined.PipelinedClient` serves single nodes only.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from redis.asyncio import BlockingConnectionPool, Redis, RedisCluster
from redis.asyncio.connection import (
    AbstractConnection,
    Connection,
    SSLConnection,
    UnixDomainSocketConnection,
    parse_url,
)
from redis.exceptions import ClusterError, RedisClusterException, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from tollway_admission.roundtrips import count_round_trips

SCHEMES = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")
"""URL schemes admission accepts."""

_POOL_OPTIONS = ("max_connections", "timeout")  # options of the pool, not of a connection

ValkeyClient = Redis | RedisCluster
"""What :func:`valkey_client` returns: one node's pooled client, or a cluster client."""

VALKEY_UNAVAILABLE: tuple[type[Exception], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    OSError,
    TimeoutError,
    ClusterError,  # CLUSTERDOWN, MASTERDOWN: the slot's node is failing over
    TryAgainError,  # TRYAGAIN: a slot is migrating
    RedisClusterException,  # no reachable node, slot not covered (redis-py's cluster client)
)
"""The exceptions that mean "Valkey cannot answer now" on one node or a
cluster (redis-py's cluster client raises its own types besides
``ConnectionError``); callers fail closed or degrade on them."""


def mask_url(url: str) -> str:
    """``url`` with the password (if any) replaced by ``***``; safe to log."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


@dataclass(frozen=True, slots=True)
class ValkeyTarget:
    """A parsed, validated Valkey URL.

    Attributes:
        url: the URL in redis-py's form (the ``+cluster`` marker removed).
        masked: the original URL with its password masked (for messages).
        cluster: a ``*+cluster://`` URL.
        host, port: the node (cluster: the seed node); ``""``/0 for a unix socket.
        path: the unix socket's path, else None.
        db: the logical database (``SELECT``), 0 on a cluster.
        username, password: ``AUTH`` credentials (username needs a password).
        client_name: ``CLIENT SETNAME`` value, if given.
        protocol: the RESP version asked for (2 or 3; None = server default, 2).
        ssl_context: the TLS context (``rediss``), built as redis-py builds it.
        check_hostname: whether TLS verifies the server's name against ``host``.
    """

    url: str
    masked: str
    cluster: bool
    host: str
    port: int
    path: str | None
    db: int
    username: str | None
    password: str | None
    client_name: str | None
    protocol: int | None
    ssl_context: ssl.SSLContext | None
    check_hostname: bool


def parse_valkey_url(url: str) -> ValkeyTarget:
    """Parse and validate a Valkey URL (forms in the module doc).

    Validation is redis-py's own: the URL is parsed with ``parse_url`` and its
    options are given to redis-py's connection class, so exactly the URLs
    redis-py accepts are accepted (plus the cluster marker).

    Raises:
        ValueError: an unknown scheme, an option redis-py refuses, a unix
            socket or a db other than 0 with ``+cluster``; the message names
            the scheme or option and shows the URL with the password masked.
    """
    masked = mask_url(url)
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in SCHEMES:
        raise ValueError(
            f"unsupported Valkey URL scheme {scheme or '(none)'!r} in {masked}; "
            f"use one of {', '.join(s + '://' for s in SCHEMES)}"
        )
    cluster = scheme.endswith("+cluster")
    plain = url[len(scheme) + 3 :]
    redis_url = f"{scheme.removesuffix('+cluster')}://{plain}"
    try:
        opts: dict[str, Any] = dict(parse_url(redis_url))
    except ValueError as exc:
        raise ValueError(f"invalid Valkey URL {masked}: {exc}") from None
    conn_cls: type[AbstractConnection] = opts.pop("connection_class", Connection)
    for name in _POOL_OPTIONS:
        opts.pop(name, None)
    try:
        conn = conn_cls(**opts)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"invalid option in Valkey URL {masked}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - redis-py raises RedisError for bad ssl_* values
        raise ValueError(f"invalid Valkey URL {masked}: {exc}") from None
    db = int(opts.get("db") or 0)
    if cluster and db:
        raise ValueError(f"a cluster has only db 0; remove the db from {masked}")
    ctx: ssl.SSLContext | None = None
    check_hostname = False
    if isinstance(conn, SSLConnection):
        try:
            ctx = conn.ssl_context.get()
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(f"cannot build the TLS context of Valkey URL {masked}: {exc}") from None
        check_hostname = ctx.check_hostname
    path = conn.path if isinstance(conn, UnixDomainSocketConnection) else None
    return ValkeyTarget(
        url=redis_url,
        masked=masked,
        cluster=cluster,
        host="" if path is not None else str(opts.get("host") or "localhost"),
        port=0 if path is not None else int(opts.get("port") or 6379),
        path=path,
        db=db,
        username=opts.get("username"),
        password=opts.get("password"),
        client_name=opts.get("client_name"),
        protocol=int(opts["protocol"]) if opts.get("protocol") is not None else None,
        ssl_context=ctx,
        check_hostname=check_hostname,
    )


def valkey_client(
    url: str, *, max_connections: int = 512, timeout: float = 5.0, service: str | None = None
) -> ValkeyClient:
    """A redis-py asyncio client for ``url``: a cluster client for
    ``*+cluster://``, else a client on a blocking pool of ``max_connections``.

    Args:
        url: a Valkey URL (forms in the module doc).
        max_connections: pool size (cluster: per node).
        timeout: socket connect and reply timeout, s; the pool waits
            ``max(timeout, 2)`` s for a free connection.
        service: when given, the client counts its round trips under this
            ``service`` label (:func:`tollway_admission.roundtrips.count_round_trips`).

    Raises:
        ValueError: the URL is refused (:func:`parse_valkey_url`).
    """
    target = parse_valkey_url(url)
    client: ValkeyClient
    if target.cluster:
        client = RedisCluster.from_url(
            target.url,
            max_connections=max_connections,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
        )
    else:
        pool = BlockingConnectionPool.from_url(
            target.url,
            max_connections=max_connections,
            timeout=max(timeout, 2.0),
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
        )
        client = Redis(connection_pool=pool)
    if service is not None:
        count_round_trips(client, service)
    return client


async def drop_idle_connections(client: ValkeyClient) -> None:
    """Close idle connections (after an outage they are dead); busy ones stay.
    A cluster client closes every node connection and reloads the slot map
    on its next command."""
    if isinstance(client, RedisCluster):
        await client.aclose()
    else:
        await client.connection_pool.disconnect(inuse_connections=False)


def node_url(url: str) -> str:
    """The URL of ``url``'s (seed) node in redis-py's form, for a plain client
    (e.g. pub/sub, which a cluster relays to every node).

    Raises:
        ValueError: the URL is refused (:func:`parse_valkey_url`).
    """
    return parse_valkey_url(url).url
