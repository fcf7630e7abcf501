"""Tollway's contracts: the one source for what crosses a service boundary.

Modules:
- ``topics``: Kafka topic manifests (name, key, partitions, producers, consumers).
- ``events``: the usage event, schema version 1, and the DLQ envelope.
- ``catalogue``: the YAML routing catalogue schema (providers, models, prices).
- ``pricing``: cost of a call in integer micro-USD from token counts and prices.
- ``keys``: the API key format ``tw_<key id>_<secret>`` and its hashing.
- ``errors``: OpenAI-format error bodies.
- ``admin``: request and response bodies of the quota service's admin API.
- ``principals``: the principals snapshot the edge loads and its invalidations.
- ``redaction``: the edge <-> redactor HTTP bodies.
"""
