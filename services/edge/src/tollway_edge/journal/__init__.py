"""The durable usage journal of an edge worker (issue 10; DESIGN.md, request path step 6).

Wiring (the emitter's role)::

    journal = UsageJournal(journal_settings, bootstrap_servers, topic, dropped_counter=EVENTS_DROPPED)
    await journal.start()                       # cleanup_ctx, before serving
    journal.append(request_id.encode(), value)  # on the call's path; never awaits Kafka
    if not journal.has_room(): ...              # middleware: errors.journal_full() (refuse policy)
    checks["journal"] = lambda: journal.ready   # /readyz
    await journal.stop(deadline_seconds)        # at shutdown, after in-flight calls ended
"""

from typing import TYPE_CHECKING, Any

from tollway_edge.journal.settings import FullPolicy, JournalSettings

if TYPE_CHECKING:
    from tollway_edge.journal.journal import UsageJournal
    from tollway_edge.journal.metrics import JournalStats


def __getattr__(name: str) -> Any:
    """``UsageJournal`` and ``JournalStats`` load on first use: the settings
    (``tollway_edge.settings``, which the workers' supervisor imports) need only
    ``JournalSettings``, not aiokafka."""
    if name == "UsageJournal":
        from tollway_edge.journal.journal import UsageJournal

        return UsageJournal
    if name == "JournalStats":
        from tollway_edge.journal.metrics import JournalStats

        return JournalStats
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FullPolicy",
    "JournalSettings",
    "JournalStats",
    "UsageJournal",
]
