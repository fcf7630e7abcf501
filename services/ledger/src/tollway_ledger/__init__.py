"""Tollway ledger: consume usage events, write one idempotent row per call and
its rollups in one Postgres transaction, then commit the Kafka offsets."""
