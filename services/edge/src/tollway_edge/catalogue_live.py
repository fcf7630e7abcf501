"""The live catalogue (issue 13; DESIGN.md "The routing catalogue"): the edge
reloads the catalogue file when it changes, without a restart and without
dropping calls.

The file is checked every ``catalogue_poll_interval_seconds`` (and at once on
SIGHUP): a change of its ``stat`` (following symlinks, so Kubernetes'
ConfigMap swap of the ``..data`` link counts) reads it once; bytes with the
version already loaded change nothing. New bytes are validated with the
contracts schema (``tollway_contracts.catalogue.parse_catalogue``); a file
that does not read, parse or validate keeps the previous catalogue, is
logged and counted (``tollway_catalogue_reload_total{outcome="invalid"}``),
and is not read again until it changes. A valid one is swapped in at once:
the catalogue, its version and the provider upstreams are replaced together
in one step of the event loop, so a call sees either the old or the new
set. A call captures them when it starts (``pipeline.handle``) and keeps
them: it is billed at the prices it was admitted under, and its
``catalogue_version`` names them. Providers whose configuration did not
change keep their connection pools; the clients of removed or changed ones
are closed ``catalogue_retire_seconds`` later (calls in flight still use
them), or at stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

import structlog
import yaml

from tollway_contracts.catalogue import parse_catalogue, version_of
from tollway_edge.metrics import CATALOGUE_RELOADS
from tollway_edge.routing.upstream import Upstream, open_upstreams
from tollway_edge.state import EdgeState

log = structlog.get_logger("tollway_edge.catalogue")

_Signature = tuple[int, int, int, int]


def _signature(path: str) -> _Signature | None:
    """What identifies the file's current bytes without reading them: device,
    inode, size, mtime (ns); None when it cannot be stat'ed."""
    try:
        st = os.stat(path)  # follows symlinks
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class CatalogueWatcher:
    """Polls the catalogue file and swaps a changed, valid one into ``state``.

    Args:
        state: the edge's state (``catalogue``, ``catalogue_version``,
            ``upstreams`` are replaced together).
        path: the catalogue file.
        interval_seconds: how often the file's ``stat`` is compared, s.
        retire_seconds: how long clients of removed or changed providers stay open, s.
    """

    def __init__(self, state: EdgeState, path: str, interval_seconds: float, retire_seconds: float) -> None:
        self._state = state
        self._path = path
        self._interval = interval_seconds
        self._retire = retire_seconds
        self._seen = _signature(path)
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._retiring: set[asyncio.Task[None]] = set()
        self._retired: list[Upstream] = []

    async def start(self) -> None:
        """Start polling; SIGHUP (where the loop supports signals) checks at once."""
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGHUP, self._wake.set)
        self._task = asyncio.create_task(self._run(), name="catalogue-watch")

    async def stop(self) -> None:
        """Stop polling and close every retired provider client."""
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)
            signal.signal(signal.SIGHUP, signal.SIG_IGN)  # a late SIGHUP must not end a stopping edge
        for task in [self._task, *self._retiring]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for upstream in self._retired:
            await upstream.client.close()
        self._retired.clear()

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._interval)
            forced = self._wake.is_set()
            self._wake.clear()
            try:
                await self.check(force=forced)
            except Exception:  # noqa: BLE001 - the watcher must outlive any one bad reload
                log.exception("catalogue_reload_error")

    async def check(self, *, force: bool = False) -> bool:
        """Reload when the file changed (or ``force``); True when a new catalogue was swapped in."""
        sig = _signature(self._path)
        if sig == self._seen and not force:
            return False
        self._seen = sig
        try:
            data = await asyncio.to_thread(_read, self._path)
            version = version_of(data)
            if version == self._state.catalogue_version:
                return False
            catalogue = parse_catalogue(data)
        except (OSError, yaml.YAMLError, ValueError) as err:  # msgspec.ValidationError is a ValueError
            CATALOGUE_RELOADS.labels("invalid").inc()
            log.error(
                "catalogue_invalid",
                path=self._path,
                error=type(err).__name__,
                detail=str(err)[:2000],
                kept_version=self._state.catalogue_version,
            )
            return False
        state = self._state
        old = state.upstreams
        upstreams = await open_upstreams(catalogue, reuse=old)
        # one step of the loop: a call sees the old set or the new one, never a mix
        previous = state.catalogue_version
        state.catalogue, state.catalogue_version, state.upstreams = catalogue, version, upstreams
        if state.breakers is not None:
            state.breakers.policy = catalogue.breaker
        kept = {id(u) for u in upstreams.values()}
        retired = [u for u in old.values() if id(u) not in kept]
        if retired:
            self._retire_later(retired)
        CATALOGUE_RELOADS.labels("reloaded").inc()
        log.info(
            "catalogue_reloaded",
            version=version,
            previous=previous,
            models=len(catalogue.models),
            providers=len(catalogue.providers),
            retired=[u.name for u in retired],
        )
        return True

    def _retire_later(self, upstreams: list[Upstream]) -> None:
        self._retired.extend(upstreams)

        async def close() -> None:
            for upstream in upstreams:  # no more warm connections: idle ones closed now
                await upstream.client.cool()
            await asyncio.sleep(self._retire)
            for upstream in upstreams:
                await upstream.client.close()
                self._retired.remove(upstream)

        task = asyncio.create_task(close(), name="catalogue-retire")
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()
