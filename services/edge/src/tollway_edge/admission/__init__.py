"""Admission at the edge (DESIGN.md "The request path" 3, "Reservations"):
``adapter`` (Valkey, cold counters seeded by quota, the local fallback;
``release``: the call's end, slot and local settlement;
``modes``: exact/local/refuse and the probe; ``seed``: the quota client), ``ticket`` (one
call's reservation), ``bounds`` (what a call may cost at most),
``local_limits`` (the per-process share while Valkey is unreachable)."""

from tollway_edge.admission.adapter import EdgeAdmission
from tollway_edge.admission.ticket import Ticket

__all__ = ["EdgeAdmission", "Ticket"]
