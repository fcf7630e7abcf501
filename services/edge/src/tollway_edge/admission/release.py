"""The end of an admitted call at the edge: its concurrency slot given back
(:meth:`CallEnd.release`), an unmetered call settled at zero
(:meth:`CallEnd.settle_unmetered`), a local reservation settled with the
actuals (:meth:`CallEnd.finish`). Exact reservations are settled by quota
from the usage event.
"""

from __future__ import annotations

import structlog

from tollway_edge.admission.local_limits import LocalLimiter
from tollway_edge.admission.modes import ModeSwitch, unreachable
from tollway_edge.admission.ticket import Ticket

log = structlog.get_logger("tollway_edge.admission")


class CallEnd(ModeSwitch):
    """The call's end of :class:`~tollway_edge.admission.EdgeAdmission` (a base
    class of it, over :class:`~tollway_edge.admission.modes.ModeSwitch`).

    Attributes (set by ``EdgeAdmission``):
        local: the per-process limiter of ``local`` mode.
    """

    local: LocalLimiter

    async def release(self, ticket: Ticket) -> None:
        """Give back the concurrency slot (once; errors are logged, settlement releases too)."""
        if ticket.released or not ticket.has_slot:
            return
        ticket.released = True
        if ticket.mode == "local":
            if ticket.local is not None:
                self.local.release(ticket.local)
            return
        if self.mode != "exact" or self.adm is None:
            return
        try:
            await self.adm.release(
                tenant_id=ticket.tenant_id, request_id=ticket.request_id, reservation=ticket.reservation
            )
        except unreachable() as exc:
            self._degrade("release", exc)
        except Exception:
            log.warning("release_failed", request_id=ticket.request_id, exc_info=True)

    async def settle_unmetered(self, ticket: Ticket) -> None:
        """Settle a call that emits no usage event (``count_tokens``) at zero tokens
        and zero cost, here: quota settles exact reservations from usage events, so
        without this the record would wait for reconciliation. Counts (rpm) stay;
        errors are logged (the reconciler settles it later)."""
        if ticket.mode == "local":
            if ticket.local is not None:
                self.local.settle(ticket.local, 0, 0)
            return
        if self.mode != "exact" or self.adm is None:
            return
        try:
            await self.adm.settle(
                tenant_id=ticket.tenant_id, request_id=ticket.request_id, tokens=0, cost_micro_usd=0
            )
        except unreachable() as exc:
            self._degrade("settle", exc)
        except Exception:
            log.warning("settle_failed", request_id=ticket.request_id, exc_info=True)

    def finish(self, ticket: Ticket, tokens: int | None, cost: int | None) -> None:
        """At the terminal event: local reservations are settled with the actuals
        here (exact ones are settled by quota from the usage event)."""
        if ticket.local is not None and tokens is not None and cost is not None:
            self.local.settle(ticket.local, tokens, cost)
