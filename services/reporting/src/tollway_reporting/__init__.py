"""Tollway reporting: read-only usage and spend API over the ledger's views,
CSV/Parquet export and the dashboard page (see the service README)."""
