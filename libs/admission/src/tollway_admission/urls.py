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
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, cast
from urllib.parse import ParseResult, parse_qs, unquote, urlparse, urlsplit, urlunsplit

if TYPE_CHECKING:  # redis-py is imported at run time only for a cluster URL
    from redis.asyncio import Redis, RedisCluster

    from tollway_admission.node import NodeClient

SCHEMES = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")
"""URL schemes admission accepts."""

_FALSE_STRINGS = ("0", "F", "FALSE", "N", "NO")


def _to_bool(value: str) -> bool | None:
    """redis-py's ``to_bool`` for URL values."""
    if value == "":
        return None
    return value.upper() not in _FALSE_STRINGS


def _verify_flags(value: str) -> list[ssl.VerifyFlags]:
    """redis-py's ``parse_ssl_verify_flags``: ``[VERIFY_X509_STRICT, ...]``."""
    flags = []
    for raw in value.replace("[", "").replace("]", "").split(","):
        flag = raw.strip()
        if not hasattr(ssl.VerifyFlags, flag):
            raise ValueError(f"Invalid ssl verify flag: {flag}")
        flags.append(getattr(ssl.VerifyFlags, flag))
    return flags


_PARSERS: dict[str, Any] = {
    "db": int,
    "socket_timeout": float,
    "socket_connect_timeout": float,
    "socket_read_size": int,
    "socket_keepalive": _to_bool,
    "retry_on_timeout": _to_bool,
    "max_connections": int,
    "health_check_interval": int,
    "ssl_check_hostname": _to_bool,
    "ssl_include_verify_flags": _verify_flags,
    "ssl_exclude_verify_flags": _verify_flags,
    "ssl_min_version": int,
    "timeout": float,
    "protocol": int,
    "legacy_responses": _to_bool,
}
"""redis-py's ``URL_QUERY_ARGUMENT_PARSERS`` (redis 8.1): the query options it converts."""

_POOL_OPTIONS = ("max_connections", "timeout")  # options of the pool, not of a connection

_CONN_OPTIONS = frozenset(
    {
        "db",
        "password",
        "username",
        "socket_timeout",
        "socket_connect_timeout",
        "retry_on_timeout",
        "encoding",
        "encoding_errors",
        "decode_responses",
        "socket_read_size",
        "health_check_interval",
        "client_name",
        "lib_name",
        "lib_version",
        "protocol",
        "legacy_responses",
    }
)
"""Keyword options of redis-py's ``AbstractConnection`` that a URL can carry (strings or
parsed by :data:`_PARSERS`); the client options among them (timeouts, encoding, health
checks) shape redis-py's clients and are accepted and ignored by ours."""

_TCP_OPTIONS = frozenset({"host", "port", "socket_keepalive"})
_SSL_OPTIONS = frozenset(
    {
        "ssl_keyfile",
        "ssl_certfile",
        "ssl_cert_reqs",
        "ssl_include_verify_flags",
        "ssl_exclude_verify_flags",
        "ssl_ca_certs",
        "ssl_ca_data",
        "ssl_ca_path",
        "ssl_check_hostname",
        "ssl_min_version",
        "ssl_ciphers",
        "ssl_password",
    }
)
_UNIX_OPTIONS = frozenset({"path"})
_OBJECT_OPTIONS = frozenset(
    {
        "retry",
        "retry_on_error",
        "parser_class",
        "encoder_class",
        "redis_connect_func",
        "credential_provider",
        "event_dispatcher",
        "driver_info",
        "socket_keepalive_options",
        "socket_type",
        "connection_class",
    }
)
"""redis-py connection options that take a Python object: a URL can only give them a
string, which redis-py stores and fails on at the first command; refused at start here."""

_CERT_REQS = {"none": ssl.CERT_NONE, "optional": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}

if TYPE_CHECKING:
    ValkeyClient: TypeAlias = "NodeClient | Redis | RedisCluster"
else:  # redis-py is not imported for a type
    ValkeyClient = object
"""A client admission takes: one node's :class:`~tollway_admission.node.NodeClient` (what
:func:`valkey_client` builds for a single node), redis-py's ``Redis`` (quota) or its cluster client."""


def __getattr__(name: str) -> Any:
    """``VALKEY_UNAVAILABLE`` (the tuple with redis-py's classes) imports redis-py;
    computed on first access so that importing this module does not."""
    if name == "VALKEY_UNAVAILABLE":
        import redis.exceptions  # noqa: F401 - makes errors.unavailable_errors() include redis-py's

        from tollway_admission.errors import unavailable_errors

        return unavailable_errors()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def _parse_url(url: str) -> tuple[str, dict[str, Any]]:
    """redis-py's ``redis.asyncio.connection.parse_url`` (redis 8.1), without the
    connection class: ``(scheme, options)``.

    Raises:
        ValueError: a query value its parser refuses, or a scheme other than
            ``redis``, ``rediss``, ``unix``.
    """
    parsed: ParseResult = urlparse(url)
    kwargs: dict[str, Any] = {}
    for name, values in parse_qs(parsed.query).items():
        if values:
            value = values[0]  # parse_qs already percent-decoded it
            parser = _PARSERS.get(name)
            if parser:
                try:
                    kwargs[name] = parser(value)
                except (TypeError, ValueError):
                    raise ValueError(f"Invalid value for '{name}' in connection URL.") from None
            else:
                kwargs[name] = value
    if parsed.username:
        kwargs["username"] = unquote(parsed.username)
    if parsed.password:
        kwargs["password"] = unquote(parsed.password)
    if parsed.scheme == "unix":
        if parsed.path:
            kwargs["path"] = unquote(parsed.path)
    elif parsed.scheme in ("redis", "rediss"):
        if parsed.hostname:
            kwargs["host"] = unquote(parsed.hostname)
        if parsed.port:
            kwargs["port"] = int(parsed.port)
        if parsed.path and "db" not in kwargs:
            try:
                kwargs["db"] = int(unquote(parsed.path).replace("/", ""))
            except (AttributeError, ValueError):
                pass
    else:
        raise ValueError("Redis URL must specify one of the following schemes (redis://, rediss://, unix://)")
    return parsed.scheme, kwargs


def _ssl_context(opts: dict[str, Any]) -> ssl.SSLContext:
    """The TLS context redis-py's ``SSLConnection`` builds from its ``ssl_*`` options
    (``RedisSSLContext.get``): verification required and host names checked by default.

    Raises:
        ValueError: an unknown ``ssl_cert_reqs``.
        OSError, ssl.SSLError: a certificate, key or CA file that cannot be loaded.
    """
    reqs: Any = opts.get("ssl_cert_reqs", "required")
    if reqs is None:
        reqs = ssl.CERT_NONE
    elif isinstance(reqs, str):
        if reqs not in _CERT_REQS:
            raise ValueError(f"Invalid SSL Certificate Requirements Flag: {reqs}")
        reqs = _CERT_REQS[reqs]
    check_hostname = opts.get("ssl_check_hostname", True)
    ctx = ssl.create_default_context()
    ctx.check_hostname = bool(check_hostname) if reqs != ssl.CERT_NONE else False
    ctx.verify_mode = reqs
    for flag in opts.get("ssl_include_verify_flags") or ():
        ctx.verify_flags |= flag
    for flag in opts.get("ssl_exclude_verify_flags") or ():
        ctx.verify_flags &= ~flag
    certfile, keyfile = opts.get("ssl_certfile"), opts.get("ssl_keyfile")
    if certfile or keyfile:
        # a key without a certificate: TypeError, as with redis-py
        ctx.load_cert_chain(certfile=cast(str, certfile), keyfile=keyfile, password=opts.get("ssl_password"))
    ca_certs, ca_data, ca_path = opts.get("ssl_ca_certs"), opts.get("ssl_ca_data"), opts.get("ssl_ca_path")
    if ca_certs or ca_data or ca_path:
        ctx.load_verify_locations(cafile=ca_certs, capath=ca_path, cadata=ca_data)
    if opts.get("ssl_min_version") is not None:
        ctx.minimum_version = opts["ssl_min_version"]
    if opts.get("ssl_ciphers") is not None:
        ctx.set_ciphers(opts["ssl_ciphers"])
    return ctx


def parse_valkey_url(url: str) -> ValkeyTarget:
    """Parse and validate a Valkey URL (forms in the module doc), without redis-py.

    The rules are redis-py's (8.1): its ``parse_url`` (query values converted
    by the same parsers, path as db, percent-decoded credentials) and the
    keyword options its connection class for the scheme accepts; options that
    need a Python object (``retry``, ``credential_provider``, ...) are refused
    (a URL can only give them a string). A unit test checks the
    verdicts against redis-py's own parser and connection classes.

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
        kind, opts = _parse_url(redis_url)
    except ValueError as exc:
        raise ValueError(f"invalid Valkey URL {masked}: {exc}") from None
    for name in _POOL_OPTIONS:
        opts.pop(name, None)
    allowed = _CONN_OPTIONS | (_UNIX_OPTIONS if kind == "unix" else _TCP_OPTIONS)
    if kind == "rediss":
        allowed |= _SSL_OPTIONS
    for name in opts:
        if name in _OBJECT_OPTIONS:
            raise ValueError(
                f"invalid option in Valkey URL {masked}: {name!r} needs a Python object, not a URL value"
            )
        if name not in allowed:
            raise ValueError(f"invalid option in Valkey URL {masked}: unexpected keyword argument {name!r}")
    protocol: int | None = None
    if opts.get("protocol") is not None:
        try:
            protocol = int(opts["protocol"])
        except (TypeError, ValueError):
            raise ValueError(f"invalid Valkey URL {masked}: protocol must be an integer") from None
        if protocol < 2 or protocol > 3:
            raise ValueError(f"invalid Valkey URL {masked}: protocol must be either 2 or 3")
    try:
        db = int(opts.get("db") or 0)
    except (TypeError, ValueError):
        raise ValueError(f"invalid Valkey URL {masked}: db must be an integer") from None
    if cluster and db:
        raise ValueError(f"a cluster has only db 0; remove the db from {masked}")
    ctx: ssl.SSLContext | None = None
    check_hostname = False
    if kind == "rediss":
        try:
            ctx = _ssl_context(opts)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"invalid Valkey URL {masked}: {exc}") from None
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(f"cannot build the TLS context of Valkey URL {masked}: {exc}") from None
        check_hostname = ctx.check_hostname
    path = str(opts.get("path", "")) if kind == "unix" else None
    try:
        port = int(opts.get("port") or 6379)
    except (TypeError, ValueError):
        raise ValueError(f"invalid option in Valkey URL {masked}: port must be an integer") from None
    return ValkeyTarget(
        url=redis_url,
        masked=masked,
        cluster=cluster,
        host="" if path is not None else str(opts.get("host") or "localhost"),
        port=0 if path is not None else port,
        path=path,
        db=db,
        username=opts.get("username"),
        password=opts.get("password"),
        client_name=opts.get("client_name"),
        protocol=protocol,
        ssl_context=ctx,
        check_hostname=check_hostname,
    )


def is_cluster_client(client: object) -> bool:
    """True if ``client`` is redis-py's ``RedisCluster`` (checked without importing
    redis-py: if it is not loaded, no such client exists)."""
    mod = sys.modules.get("redis.asyncio.cluster")
    return mod is not None and isinstance(client, mod.RedisCluster)


def valkey_client(
    url: str, *, max_connections: int = 512, timeout: float = 5.0, service: str | None = None
) -> NodeClient | RedisCluster:
    """A Valkey client for ``url``: our :class:`~tollway_admission.node.NodeClient`
    (one pipelined connection, no redis-py) for a single node, redis-py's
    asyncio ``RedisCluster`` for ``*+cluster://`` (redis-py is imported then, not before).

    Args:
        url: a Valkey URL (forms in the module doc).
        max_connections: the cluster client's pool size per node (a
            :class:`NodeClient` pipelines every command on one connection).
        timeout: connect and reply timeout, s.
        service: the ``service`` label of the round trips the client counts
            (:data:`~tollway_admission.roundtrips.VALKEY_ROUND_TRIPS`); None: not counted
            (a :class:`NodeClient` then counts them as ``unknown``).

    Raises:
        ValueError: the URL is refused (:func:`parse_valkey_url`).
    """
    target = parse_valkey_url(url)
    if not target.cluster:
        from tollway_admission.node import NodeClient

        return NodeClient(url, timeout=timeout, service=service or "unknown")
    from redis.asyncio import RedisCluster

    from tollway_admission.roundtrips import count_round_trips

    client = RedisCluster.from_url(
        target.url,
        max_connections=max_connections,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
    )
    if service is not None:
        count_round_trips(client, service)
    return client


async def drop_idle_connections(client: Any) -> None:
    """Close idle connections (after an outage they are dead). A
    :class:`~tollway_admission.node.NodeClient` closes its one connection (pending
    commands fail; the next command reconnects); a cluster client closes every node
    connection and reloads the slot map on its next command; a redis-py ``Redis``
    closes its pool's idle connections, busy ones stay."""
    if is_cluster_client(client):
        await client.aclose()
    elif hasattr(client, "connection_pool"):
        await client.connection_pool.disconnect(inuse_connections=False)
    else:
        client.disconnect()


def node_url(url: str) -> str:
    """The URL of ``url``'s (seed) node in redis-py's form, for a single-node client
    (e.g. pub/sub, which a cluster relays to every node).

    Raises:
        ValueError: the URL is refused (:func:`parse_valkey_url`).
    """
    return parse_valkey_url(url).url
