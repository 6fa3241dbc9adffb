"""What a drive of an execution reports back to its caller."""

from __future__ import annotations

from typing import Any

import attrs

from loom_ref.journal.fold import Status
from loom_ref.journal.reader import TornTail

__all__ = ["ExecutionResult"]


@attrs.frozen(kw_only=True)
class ExecutionResult:
    """Where an execution stands after a call to the runtime.

    ``served`` lists the ids (steps, decisions, gates, streams) this drive served from the
    journal; ``ran`` the ids it ran live (effects invoked, deciders run, events appended).
    ``torn`` reports a torn tail found when the journal was opened (``journal.torn-tail``).
    """

    execution_id: str
    status: Status
    output: Any = None
    error: Any = None
    waiting_on: str | None = None
    in_doubt_step: str | None = None
    served: tuple[str, ...] = ()
    ran: tuple[str, ...] = ()
    torn: TornTail | None = None
