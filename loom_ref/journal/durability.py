"""What each fsync policy syncs, and what it promises after a crash: one table for both.

Spec: ``spec/journal.md`` section 1.8. The prose table there is drawn from :data:`GUARANTEES`
(``tests/journal/test_durability.py`` checks the page against this module), and the power-loss
simulation (:mod:`loom_ref.testing.powerloss`) asserts exactly these promises: every invariant
a policy keeps holds at every moment power can be cut, and every invariant it gives up is
seen broken at least once, so the weaker policies are shown losing what the table allows.

- ``journal.fsync-policy``: :data:`SYNC_AFTER` names the kinds after whose append a store
  makes the journal durable (``fdatasync``/``fsync`` of a file, or a synchronous commit);
  one sync makes durable every event written before it, so the events between two syncs
  are batched into the second.
- ``journal.write-ahead``: the default policy, :attr:`FsyncPolicy.WRITE_AHEAD`, syncs exactly
  where the kernel is about to act on the outside world or to report to its caller: after a
  ``STEP_STARTED`` (its effect is invoked next) and after a boundary (a call returns next).
  A decision's choice, a step's outcome, a stream append and a received resume are acted on
  only through one of those two, so each is durable before anything outside the process
  depends on it (the argument, and the matrix that checks it: ``spec/journal.md`` 1.8).
- ``journal.write-before-act``: under every policy an append returns only once its line is
  with the operating system, so a *process* crash (``kill -9``) loses nothing that an append
  returned; only a power loss or an operating-system crash can take back unsynced bytes.
- ``journal.dir-sync``: a policy that syncs also syncs the directory entry of every journal
  file it writes, before the first sync of that file returns (``spec/journal.md`` 1.8).
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from loom_ref.enums import LoomEnum
from loom_ref.journal.events import EventKind

__all__ = ["ALL_INVARIANTS", "BEFORE_EFFECTS", "BOUNDARIES", "DEFAULT_POLICY", "GUARANTEES",
           "SYNC_AFTER", "FsyncPolicy", "Guarantee", "Invariant"]


class FsyncPolicy(LoomEnum):
    """When a store makes its journal durable (``journal.fsync-policy``)."""

    EVERY_EVENT = "every-event"
    #: The default (``journal.write-ahead``): sync before an effect runs and before a call
    #: returns; as safe as ``every-event``, with 2 syncs for a one-step execution, not 4.
    WRITE_AHEAD = "write-ahead"
    AT_BOUNDARIES = "at-boundaries"
    NEVER = "never"


#: The events after which the kernel parks or reports an outcome to its caller.
BOUNDARIES = frozenset({
    EventKind.EXECUTION_SUSPENDED,
    EventKind.EXECUTION_COMPLETED,
    EventKind.EXECUTION_FAILED,
    EventKind.STEP_IN_DOUBT,
})

#: The event after which the kernel invokes an effect (``journal.write-ahead``).
BEFORE_EFFECTS = frozenset({EventKind.STEP_STARTED})

#: The policy stores use when none is given (``journal.write-ahead``).
DEFAULT_POLICY = FsyncPolicy.WRITE_AHEAD

#: The kinds after whose append each policy syncs (``journal.fsync-policy``).
SYNC_AFTER: Mapping[FsyncPolicy, frozenset[EventKind]] = {
    FsyncPolicy.EVERY_EVENT: frozenset(EventKind),
    FsyncPolicy.WRITE_AHEAD: BEFORE_EFFECTS | BOUNDARIES,
    FsyncPolicy.AT_BOUNDARIES: BOUNDARIES,
    FsyncPolicy.NEVER: frozenset(),
}


class Invariant(LoomEnum):
    """What must be true of an execution recovered after a crash (``journal.power-loss``)."""

    #: Every journal reads back: at most a torn last line, reported; never a corrupt line.
    READABLE = "readable"
    #: No acknowledged call is lost: the events a returned start, resume, recover or resolve
    #: had journaled are all there, in order.
    ACKNOWLEDGED_KEPT = "acknowledged-kept"
    #: An effect whose outcome the caller saw (in a returned result) is never run again.
    SEEN_NOT_RERUN = "seen-not-rerun"
    #: A non-idempotent effect that ran is journaled with its outcome or detected in doubt;
    #: it is never silently run again.
    RAN_ONCE_OR_IN_DOUBT = "ran-once-or-in-doubt"
    #: A decision whose choice was acted on (an effect ran after it, or a call returned) is
    #: served from the journal, never made again.
    CHOICE_KEPT = "choice-kept"


ALL_INVARIANTS = frozenset(Invariant)


@attrs.frozen(kw_only=True)
class Guarantee:
    """One row of the durability table: what survives a process crash and a power loss
    under ``policy``, in words, and the invariants that still hold after a power loss.
    (spec: journal.power-loss)"""

    policy: FsyncPolicy
    process_crash: str
    power_loss: str
    holds: frozenset[Invariant]

    @property
    def gives_up(self) -> frozenset[Invariant]:
        """The invariants a power loss may break under this policy."""
        return ALL_INVARIANTS - self.holds


_KILL = "every event whose append returned (write-before-act); at most a torn last line"

#: The durability table (``journal.power-loss``), one row per policy.
GUARANTEES: Mapping[FsyncPolicy, Guarantee] = {
    FsyncPolicy.EVERY_EVENT: Guarantee(
        policy=FsyncPolicy.EVERY_EVENT, process_crash=_KILL,
        power_loss="every event whose append returned, and the journal's directory entry; "
                   "at most a torn last line",
        holds=ALL_INVARIANTS),
    FsyncPolicy.WRITE_AHEAD: Guarantee(
        policy=FsyncPolicy.WRITE_AHEAD, process_crash=_KILL,
        power_loss="every event up to the last sync: each step's start before its effect "
                   "ran, each boundary before its call returned, and everything before "
                   "them; the events after it (a step's outcome, a decision, a stream "
                   "append, a resume received) may be lost, but nothing outside the "
                   "process has acted on them, so what is left is what a process crash "
                   "after that sync could have left (a step whose effect ran is found in "
                   "doubt, a decision nobody acted on is made afresh)",
        holds=ALL_INVARIANTS),
    FsyncPolicy.AT_BOUNDARIES: Guarantee(
        policy=FsyncPolicy.AT_BOUNDARIES, process_crash=_KILL,
        power_loss="every event up to the last boundary (suspended, completed, failed, in "
                   "doubt), so every returned result; the events after it may be lost: a "
                   "step that ran since may run again without being found in doubt, and a "
                   "decision made since may be made again",
        holds=frozenset({Invariant.READABLE, Invariant.ACKNOWLEDGED_KEPT,
                         Invariant.SEEN_NOT_RERUN})),
    FsyncPolicy.NEVER: Guarantee(
        policy=FsyncPolicy.NEVER, process_crash=_KILL,
        power_loss="nothing is promised: whole executions may vanish, returned results "
                   "included, and effects may run again; what is left still reads back as "
                   "a journal (at most a torn last line)",
        holds=frozenset({Invariant.READABLE})),
}


def _syncs_after(policy: FsyncPolicy) -> str:
    kinds = SYNC_AFTER[policy]
    if kinds == frozenset(EventKind):
        return "every event"
    if not kinds:
        return "nothing"
    return ", ".join(f"`{k.value}`" for k in EventKind if k in kinds)


def durability_table() -> str:
    """The durability table of ``spec/journal.md`` 1.8, as Markdown, drawn from
    :data:`GUARANTEES` and :data:`SYNC_AFTER` (the page must hold exactly this text)."""
    rows = ["| policy | syncs after | a process crash keeps | a power loss keeps "
            "| invariants kept after a power loss |",
            "|---|---|---|---|---|"]
    for policy, row in GUARANTEES.items():
        kept = ", ".join(f"`{i.value}`" for i in Invariant if i in row.holds)
        rows.append(f"| `{policy.value}` | {_syncs_after(policy)} | {row.process_crash} "
                    f"| {row.power_loss} | {kept} |")
    return "\n".join(rows) + "\n"


__all__ += ["durability_table"]
