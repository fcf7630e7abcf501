"""Worker processes that own the model: CPU-bound analysis off the event loop.

One ``ProcessPoolExecutor`` (spawn context) with one worker per core; every
worker builds its own :class:`~tollway_redactor.engine.Detector` in the pool
initializer, then waits on a barrier, so :meth:`AnalyzerPool.start` returns
only when *every* worker has loaded the model (readiness is gated on it).
The event loop that answers ``/healthz`` only awaits futures.

This module must not import presidio or spaCy at top level: the parent
process never loads the model, and a spawned worker imports this module
before its initializer runs.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, cast

from tollway_redactor.detection import Span, TextAnalysis

if TYPE_CHECKING:
    from tollway_redactor.engine import Detector, LanguagePolicy

_DETECTOR: Detector | None = None  # the worker's Detector, set by _init_worker

_Wire = tuple[list[tuple[str, int, int, float]], str | None, str]
"""A TextAnalysis as plain data between processes: (spans, language, policy)."""


def _detector() -> Detector:
    if _DETECTOR is None:
        raise RuntimeError("worker not initialised")
    return _DETECTOR


def _exit_with_parent(parent: int, interval_seconds: float = 1.0) -> None:
    """Exit this worker once its redactor process is gone (re-parented): a
    SIGKILLed redactor never shuts its pool down, and an orphaned worker would
    keep its model's memory for good. Runs in a daemon thread; checks every
    ``interval_seconds``."""
    while True:
        time.sleep(interval_seconds)
        if os.getppid() != parent:
            os._exit(0)


def _init_worker(config: dict[str, Any], barrier: Any) -> None:  # noqa: ANN401 - a multiprocessing Barrier proxy
    global _DETECTOR
    threading.Thread(
        target=_exit_with_parent, args=(os.getppid(),), name="exit-with-parent", daemon=True
    ).start()
    # One thread per worker process: the pool already uses every core.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from tollway_redactor import engine

    _DETECTOR = engine.Detector(config)
    _DETECTOR.analyze(
        [
            "warm up: Jane Doe, jane@example.com, +1 415 555 0134",
            "Bonjour, je m'appelle Camille Martin et voici mon numéro : 06 12 34 56 78.",
        ],
        ["PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER"],
        0.5,
    )
    barrier.wait(timeout=600)


def _model_version() -> tuple[str, list[str], list[str]]:
    detector = _detector()
    return detector.model_version, list(detector.languages), list(detector.entity_types)


def _analyze(
    texts: list[str], entity_types: list[str], threshold: float, language_policy: str | None
) -> list[_Wire]:
    # the policy was validated against the contract's Literal by the handler
    policy = cast("LanguagePolicy | None", language_policy)
    analyses = _detector().analyze_texts(texts, entity_types, threshold, policy)
    return [
        ([(s.entity_type, s.start, s.end, s.score) for s in a.spans], a.language, a.language_policy)
        for a in analyses
    ]


class AnalyzerUnavailable(RuntimeError):
    """The worker pool is not started, or a worker died (the pool is broken)."""


class AnalyzerPool:
    """Runs :class:`Detector.analyze` in ``workers`` processes.

    Args:
        config: ``RedactorSettings.engine_config()``.
        workers: number of processes (>= 1).
    """

    def __init__(self, config: dict[str, Any], workers: int) -> None:
        self._config = config
        self.workers = max(1, workers)
        self._executor: ProcessPoolExecutor | None = None
        self.model_version: str | None = None
        self.languages: list[str] = []
        self.entity_types: list[str] = []
        self.broken = False
        self._loaded = asyncio.Event()

    async def start(self) -> None:
        """Spawn the workers and wait until every one has loaded the model.

        Raises:
            BrokenProcessPool: a worker failed to load the model.
        """
        ctx = multiprocessing.get_context("spawn")
        barrier = ctx.Barrier(self.workers)  # inherited by each spawned worker
        self._executor = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(self._config, barrier),
        )
        loop = asyncio.get_running_loop()
        # n submissions at once make the executor spawn all n processes
        versions = await asyncio.gather(
            *(loop.run_in_executor(self._executor, _model_version) for _ in range(self.workers))
        )
        self.model_version, self.languages, self.entity_types = versions[0]
        self._loaded.set()

    async def wait_ready(self, timeout: float = 300.0) -> None:  # noqa: ASYNC109 - a plain bound for tests and benchmarks, applied with wait_for
        """Wait until :meth:`start` has finished (tests, benchmarks).

        Raises:
            TimeoutError: not ready within ``timeout`` seconds.
        """
        await asyncio.wait_for(self._loaded.wait(), timeout)

    @property
    def ready(self) -> bool:
        """True when the model is loaded in every worker and no worker died."""
        return self.model_version is not None and not self.broken

    async def analyze(
        self,
        texts: Sequence[str],
        entity_types: Sequence[str],
        threshold: float,
        language_policy: str | None = None,
    ) -> list[TextAnalysis]:
        """Detections, language and applied language policy per text, computed in the workers.

        Large batches are split into up to ``workers`` chunks of similar
        character counts so one big request uses every core.

        Raises:
            AnalyzerUnavailable: pool not started or broken.
        """
        if not texts:
            return []
        if not self.ready or self._executor is None:
            raise AnalyzerUnavailable("analyzer pool is not running")
        loop = asyncio.get_running_loop()
        chunks = _split(list(texts), self.workers)
        try:
            parts = await asyncio.gather(
                *(
                    loop.run_in_executor(
                        self._executor, _analyze, chunk, list(entity_types), threshold, language_policy
                    )
                    for chunk in chunks
                )
            )
        except BrokenProcessPool as exc:
            self.broken = True
            raise AnalyzerUnavailable("an analyzer worker died") from exc
        return [
            TextAnalysis([Span(*t) for t in spans], language, policy)
            for part in parts
            for spans, language, policy in part
        ]

    async def close(self) -> None:
        """Stop the workers (waits for running analyses)."""
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.get_running_loop().run_in_executor(None, executor.shutdown)


def _split(texts: list[str], n: int) -> list[list[str]]:
    """Contiguous chunks (order kept) of roughly equal total length, at most ``n``.

    Small requests (under ~2,000 characters) stay in one chunk: shipping them
    to several processes costs more than it saves.
    """
    total = sum(len(t) for t in texts)
    if n <= 1 or len(texts) <= 1 or total < 2_000:
        return [texts]
    n = min(n, len(texts))
    target = total / n
    chunks: list[list[str]] = [[]]
    acc = 0
    for t in texts:
        if acc >= target * len(chunks) and len(chunks) < n:
            chunks.append([])
        chunks[-1].append(t)
        acc += len(t)
    return [c for c in chunks if c]
