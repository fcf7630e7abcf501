"""Faults: what a deployment does wrong, chosen per deployment or model and switchable at run time.

A fault is looked up for each request, first in its ``x-fake-*`` headers
(direct tests), then in the run-time table set through ``/_fake/faults``:
by the request's deployment name, then by ``model:<upstream model>``, then
``*``. A table entry with ``times`` applies to that many requests and is then
removed, so the deployment recovers on its own (a breaker's half-open probe).
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

import orjson
from aiohttp import web

__all__ = ["Fault", "FaultTable", "FAULTS", "fault_from_headers", "add_fault_routes"]


@dataclass(frozen=True, slots=True)
class Fault:
    """One deployment's misbehaviour; every field is optional and they combine.

    Attributes:
        status: answer this HTTP status (4xx/5xx) with the API's error body.
        retry_after: with ``status``: a ``Retry-After`` header, seconds.
        refuse: close the connection before answering anything (no status line).
        stall_before_headers_ms: wait this long before the status line and headers.
        stall_after_headers_ms: send the 200 and headers, then wait this long
            before the first body byte (streams and non-streams).
        cut_after_headers: send the 200 and headers (after ``stall_after_headers_ms``),
            then drop the connection before any body byte.
        stall_after_chunks: a stream stalls after this many content chunks ...
        stall_ms: ... for this long (default 60,000 ms), then goes on.
        cut_after_chunks: a stream drops the connection after this many content
            chunks (no finish, no usage, no end marker); a non-stream drops it
            right after the headers.
        cut_before_usage: a stream sends every content chunk and the finish,
            then drops the connection before its usage chunk/event.
        chunk_interval_ms: delay between stream content chunks (slow chunks).
        omit_usage: answer in full but without the usage: a non-stream's JSON
            has no ``usage`` (``anthropic``: no ``usage`` either); a stream sends
            no usage chunk/event. The call is still billable (the provider
            produced the tokens; its log has the counts, ``usage_reported: false``).
        times: apply to the next K matching requests only, then recover (the
            entry is removed). None = until cleared.
    """

    status: int | None = None
    retry_after: float | None = None
    refuse: bool = False
    stall_before_headers_ms: float = 0.0
    stall_after_headers_ms: float = 0.0
    cut_after_headers: bool = False
    stall_after_chunks: int | None = None
    stall_ms: float = 60_000.0
    cut_after_chunks: int | None = None
    cut_before_usage: bool = False
    chunk_interval_ms: float | None = None
    omit_usage: bool = False
    times: int | None = None

    @classmethod
    def from_json(cls, value: Any) -> Fault:
        """Build from a JSON object (the control API's body), strictly.

        Raises:
            ValueError: not an object, an unknown field, or a bad value.
        """
        if not isinstance(value, dict):
            raise ValueError("a fault is a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = set(value) - known
        if unknown:
            raise ValueError(f"unknown fault fields {sorted(unknown)}; known: {sorted(known)}")
        for key in ("refuse", "cut_after_headers", "cut_before_usage", "omit_usage"):
            if key in value and not isinstance(value[key], bool):
                raise ValueError(f"{key} must be true or false")
        for key in ("status", "stall_after_chunks", "cut_after_chunks", "times"):
            v = value.get(key)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                raise ValueError(f"{key} must be a non-negative integer")
        for key in (
            "retry_after",
            "stall_before_headers_ms",
            "stall_after_headers_ms",
            "stall_ms",
            "chunk_interval_ms",
        ):
            v = value.get(key)
            if v is not None and (not isinstance(v, int | float) or isinstance(v, bool) or v < 0):
                raise ValueError(f"{key} must be a non-negative number")
        status = value.get("status")
        if status is not None and not 400 <= status <= 599:
            raise ValueError("status must be 400..599")
        if value.get("times") == 0:
            raise ValueError("times must be at least 1")
        return cls(**value)

    def to_json(self) -> dict[str, Any]:
        """The fields that differ from the defaults."""
        default = Fault()
        return {k: v for k, v in asdict(self).items() if v != getattr(default, k)}


class FaultTable:
    """The run-time faults, keyed by deployment, ``model:<name>`` or ``*``; thread-safe
    (tests set it from their own thread through the fixture)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: dict[str, Fault] = {}

    def set(self, faults: dict[str, Fault | None]) -> None:
        """Merge: each key gets its fault; a None value removes that key."""
        with self._lock:
            for key, fault in faults.items():
                if fault is None:
                    self._faults.pop(key, None)
                else:
                    self._faults[key] = fault

    def clear(self, key: str | None = None) -> None:
        """Remove one key's fault, or every fault."""
        with self._lock:
            if key is None:
                self._faults.clear()
            else:
                self._faults.pop(key, None)

    def snapshot(self) -> dict[str, Fault]:
        """The current table."""
        with self._lock:
            return dict(self._faults)

    def take(self, deployment: str, model: str | None) -> Fault | None:
        """The fault for one request (deployment, then ``model:<model>``, then ``*``),
        counting one use against its ``times``."""
        if not self._faults:  # the common case: no lock, no work
            return None
        keys = [deployment] + ([f"model:{model}"] if model else []) + ["*"]
        with self._lock:
            for key in keys:
                fault = self._faults.get(key)
                if fault is None:
                    continue
                if fault.times is not None:
                    if fault.times <= 1:
                        del self._faults[key]
                    else:
                        self._faults[key] = replace(fault, times=fault.times - 1)
                return fault
        return None


FAULTS = web.AppKey("fake_provider_faults", FaultTable)


def fault_from_headers(headers: Any) -> Fault | None:
    """The fault asked for by ``x-fake-status`` / ``x-fake-disconnect-after-chunks`` /
    ``x-fake-fault`` (a JSON fault object), or None. Raises ValueError on a bad value."""
    raw_fault = headers.get("x-fake-fault")
    status = headers.get("x-fake-status")
    cut = headers.get("x-fake-disconnect-after-chunks")
    if raw_fault is None and status is None and cut is None:
        return None
    base: dict[str, Any] = {}
    if raw_fault is not None:
        try:
            base = orjson.loads(raw_fault)
        except orjson.JSONDecodeError:
            raise ValueError("header x-fake-fault must be a JSON object") from None
        if not isinstance(base, dict):
            raise ValueError("header x-fake-fault must be a JSON object")
    if status is not None:
        try:
            code = int(float(status))
        except ValueError:
            raise ValueError("header x-fake-status must be a number") from None
        if 400 <= code <= 599:
            base["status"] = code
            if code == 429:
                base.setdefault("retry_after", 1)
    if cut is not None:
        try:
            base["cut_after_chunks"] = int(cut)
        except ValueError:
            raise ValueError("header x-fake-disconnect-after-chunks must be an integer") from None
    return Fault.from_json(base) if base else None


# --- control API ---------------------------------------------------------------------------------


def _table_json(table: FaultTable) -> bytes:
    return orjson.dumps({k: f.to_json() for k, f in table.snapshot().items()})


async def _get_faults(request: web.Request) -> web.Response:
    return web.Response(body=_table_json(request.app[FAULTS]), content_type="application/json")


async def _post_faults(request: web.Request) -> web.Response:
    try:
        body = orjson.loads(await request.read())
        if not isinstance(body, dict):
            raise ValueError("the body is a JSON object: {deployment: fault or null}")
        parsed = {str(k): None if v is None else Fault.from_json(v) for k, v in body.items()}
    except (orjson.JSONDecodeError, ValueError, TypeError) as exc:
        return web.Response(
            body=orjson.dumps({"error": {"message": str(exc), "type": "invalid_request_error"}}),
            status=400,
            content_type="application/json",
        )
    table = request.app[FAULTS]
    if request.method == "PUT":
        table.clear()
    table.set(parsed)
    return web.Response(body=_table_json(table), content_type="application/json")


async def _delete_faults(request: web.Request) -> web.Response:
    request.app[FAULTS].clear(request.match_info.get("key"))
    return web.Response(status=204)


def add_fault_routes(app: web.Application) -> None:
    """``GET|POST|PUT|DELETE /_fake/faults`` and ``DELETE /_fake/faults/{key}``."""
    app.router.add_get("/_fake/faults", _get_faults)
    app.router.add_post("/_fake/faults", _post_faults)
    app.router.add_put("/_fake/faults", _post_faults)
    app.router.add_delete("/_fake/faults", _delete_faults)
    app.router.add_delete("/_fake/faults/{key}", _delete_faults)
