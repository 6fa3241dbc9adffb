"""``loom-ref replay FILE``: replay a demo execution against its journal, read-only.

Spec: ``kernel.replay-readonly``. The demo's workflow is driven from its start against the
journal in FILE without writing and without calling any effect; every step, decision and
gate must be served from the journal in the order the body asks for them. The command
reports where the history ends, or the non-determinism diff (expected against actual) and
exit status 1.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from loom_ref.cli.demo_agent import WORKFLOW, build_workflow
from loom_ref.journal import fold, read_journal_file
from loom_ref.kernel import NondeterminismError, UnknownWorkflowError, replay

__all__ = ["register", "run_replay"]


def run_replay(path: str, out: TextIO) -> int:
    """Replay FILE; 0 when deterministic, 1 on divergence."""
    parsed = read_journal_file(path)
    state = fold(parsed.events)
    if state.workflow != WORKFLOW:
        raise UnknownWorkflowError(
            f"{path} is an execution of {state.workflow!r}; loom-ref replay knows the demo's "
            f"workflow {WORKFLOW!r} (replay your own with loom_ref.kernel.replay)",
            workflow=state.workflow)
    try:
        result = replay(build_workflow(), parsed.events, on_warn=lambda m: None)
    except NondeterminismError as err:
        print(f"NOT deterministic: {err.message}", file=out)
        print(f"  journal holds: {err.expected}", file=out)
        print(f"  body did:      {err.actual}", file=out)
        return 1
    print(f"deterministic: {len(result.served)} commands served from the journal, none run; "
          f"the history ends {result.status.value}"
          + (f" on gate {result.waiting_on}" if result.waiting_on else ""), file=out)
    if parsed.torn is not None:
        print(f"  (a torn tail of {parsed.torn.size} bytes at line {parsed.torn.line} was "
              "not replayed)", file=out)
    return 0


def register(subparsers: Any) -> None:
    """Add ``loom-ref replay``."""
    p = subparsers.add_parser(
        "replay", help="replay a demo journal read-only and report determinism",
        description="Drive the demo workflow against the journal in FILE without writing and "
                    "without calling effects; report where the history ends or how the body "
                    "diverged from it.")
    p.add_argument("file")
    p.set_defaults(func=lambda a: run_replay(a.file, sys.stdout))
