"""Admission at the edge (DESIGN.md "The request path" 3, "Reservations"):
``adapter`` (Valkey, the ledger seed, the local fallback), ``ticket`` (one
call's reservation), ``bounds`` (what a call may cost at most),
``local_limits`` (the per-process share while Valkey is unreachable)."""

from tollway_edge.admission.adapter import EdgeAdmission
from tollway_edge.admission.ticket import Ticket

__all__ = ["EdgeAdmission", "Ticket"]
