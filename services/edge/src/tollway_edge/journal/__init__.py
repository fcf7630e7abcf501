"""The durable usage journal of an edge worker (issue 10; DESIGN.md, request path step 6).

Wiring (the emitter's role)::

    journal = UsageJournal(journal_settings, bootstrap_servers, topic, dropped_counter=EVENTS_DROPPED)
    await journal.start()                       # cleanup_ctx, before serving
    journal.append(request_id.encode(), value)  # on the call's path; never awaits Kafka
    if not journal.has_room(): ...              # middleware: errors.journal_full() (refuse policy)
    checks["journal"] = lambda: journal.ready   # /readyz
    await journal.stop(deadline_seconds)        # at shutdown, after in-flight calls ended
"""

from tollway_edge.journal.journal import UsageJournal
from tollway_edge.journal.metrics import JournalStats
from tollway_edge.journal.settings import FullPolicy, JournalSettings

__all__ = [
    "FullPolicy",
    "JournalSettings",
    "JournalStats",
    "UsageJournal",
]
