"""Streams: one SSE splitter (``sse``), one relay that consumes its events
(``relay``), one terminator per wire format (``terminator``)."""
