"""Result rendering: JSON, CSV and Parquet of the same rows.

Column types (Parquet): ``bucket_start`` timestamp (µs, UTC); dimension
columns string (null = no team); metrics int64 (tokens, requests, micro-USD);
``latency_*`` float64 ms (null when no call had a latency). CSV writes
timestamps as ISO 8601 with ``Z`` and nulls as empty fields.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from tollway_reporting.query import LATENCY_COLUMNS, METRICS

FORMATS = ("json", "csv", "parquet")
CONTENT_TYPES = {
    "json": "application/json",
    "csv": "text/csv",
    "parquet": "application/vnd.apache.parquet",
}


def _arrow_type(column: str) -> pa.DataType:
    if column == "bucket_start":
        return pa.timestamp("us", tz="UTC")
    if column in METRICS:
        return pa.int64()
    if column in LATENCY_COLUMNS:
        return pa.float64()
    return pa.string()


def iso(ts: datetime) -> str:
    """UTC ISO 8601 with a ``Z`` suffix, e.g. ``2026-11-01T00:00:00Z``."""
    return ts.astimezone(UTC).isoformat().replace("+00:00", "Z")


def json_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    """Rows as dicts for JSON (timestamps as ISO strings)."""
    out = []
    for row in rows:
        item = {}
        for name, value in zip(columns, row, strict=True):
            item[name] = iso(value) if isinstance(value, datetime) else value
        out.append(item)
    return out


def to_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> bytes:
    """CSV (RFC 4180, header row, UTF-8) of the rows."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if v is None else iso(v) if isinstance(v, datetime) else v for v in row])
    return buf.getvalue().encode()


def to_parquet(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> bytes:
    """A Parquet file (one row group, zstd) of the rows with the types above."""
    schema = pa.schema([pa.field(c, _arrow_type(c)) for c in columns])
    arrays = [pa.array([row[i] for row in rows], type=schema.field(i).type) for i in range(len(columns))]
    table = pa.Table.from_arrays(arrays, schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    data: bytes = sink.getvalue().to_pybytes()
    return data
