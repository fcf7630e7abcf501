"""The durable usage journal of an edge worker (issue 10; DESIGN.md, request path step 6).

Wiring (the emitter's role)::

    journal = UsageJournal(journal_settings, bootstrap_servers, topic, dropped_counter=EVENTS_DROPPED)
    await journal.start()                       # cleanup_ctx, before serving
    journal.append(request_id.encode(), value)  # on the call's path; never awaits Kafka
    if not journal.has_room(): ...              # admission: 503 journal_full (refuse policy)
    checks["journal"] = lambda: journal.ready   # /readyz
    await journal.stop(deadline_seconds)        # at shutdown, after in-flight calls ended
"""

from tollway_contracts.errors import error_json
from tollway_edge.journal.journal import UsageJournal
from tollway_edge.journal.metrics import JournalStats
from tollway_edge.journal.settings import FullPolicy, JournalSettings

FULL_STATUS = 503
FULL_CODE = "journal_full"
FULL_MESSAGE = "The gateway cannot record usage right now; retry shortly."


def full_error_body() -> bytes:
    """The OpenAI-format body of the 503 answered while the journal is full (``refuse`` policy)."""
    return error_json(FULL_MESSAGE, type="api_error", code=FULL_CODE)


__all__ = [
    "FULL_CODE",
    "FULL_MESSAGE",
    "FULL_STATUS",
    "FullPolicy",
    "JournalSettings",
    "JournalStats",
    "UsageJournal",
    "full_error_body",
]
