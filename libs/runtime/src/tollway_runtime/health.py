"""``/healthz`` and ``/readyz`` for aiohttp services.

``/healthz`` answers 200 while the process serves its loop (liveness).
``/readyz`` answers 200 only when every registered check passes (readiness),
else 503 with the failing checks' names, e.g.
``{"status": "unready", "failing": ["kafka"]}``. Services may add fields to
the body through ``app[READINESS_DETAILS]`` (e.g. the edge's admission mode).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

ReadinessCheck = Callable[[], Awaitable[bool] | bool]

READINESS_CHECKS: web.AppKey[dict[str, ReadinessCheck]] = web.AppKey("readiness_checks", dict)
READINESS_DETAILS: web.AppKey[dict[str, Callable[[], object]]] = web.AppKey("readiness_details", dict)
"""Optional extra fields of the ``/readyz`` body: name -> callable returning a JSON value."""


async def _healthz(_: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


async def _readyz(request: web.Request) -> web.Response:
    failing: list[str] = []
    for name, check in request.app[READINESS_CHECKS].items():
        try:
            result = check()
            if not isinstance(result, bool):
                result = await result
        except Exception:  # noqa: BLE001 - any failure means not ready
            result = False
        if not result:
            failing.append(name)
    details = {name: get() for name, get in request.app.get(READINESS_DETAILS, {}).items()}
    if failing:
        return web.json_response({**details, "status": "unready", "failing": failing}, status=503)
    return web.json_response({**details, "status": "ready"})


def add_health_routes(app: web.Application) -> dict[str, ReadinessCheck]:
    """Add ``/healthz`` and ``/readyz`` to ``app``.

    Returns:
        The dict of readiness checks (name -> sync or async callable
        returning bool); add checks to it as adapters come up.
    """
    checks: dict[str, ReadinessCheck] = {}
    app[READINESS_CHECKS] = checks
    app[READINESS_DETAILS] = {}
    app.router.add_get("/healthz", _healthz)
    app.router.add_get("/readyz", _readyz)
    return checks
