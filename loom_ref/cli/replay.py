"""``loom-ref replay FILE``: replay a demo execution against its journal, read-only.

Spec: ``kernel.replay-readonly``. The demo's workflow is driven from its start against the
journal in FILE without writing and without calling any effect; every step, decision and
gate must be served from the journal in the order the body asks for them. The command
reports where the history ends, or the divergence (``kernel.replay-compare``) once: a
headline, then what the journal holds against what the body did, as a diff of JSON values
(:mod:`loom_ref.cli.jsondiff`), with exit status 1.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from loom_ref.cli.demo_agent import WORKFLOW, build_workflow
from loom_ref.cli.inputs import read_execution
from loom_ref.cli.jsondiff import render_diff
from loom_ref.journal import fold
from loom_ref.kernel import NondeterminismError, UnknownWorkflowError, replay

__all__ = ["register", "render_divergence", "run_replay"]


def render_divergence(err: NondeterminismError) -> list[str]:
    """The report of a divergence: one headline, where, and the expected/actual diff."""
    expected = dict(err.expected)
    seq = expected.pop("seq", None)
    lines = [f"NOT deterministic: {err.headline} ({err.code})"]
    if seq is not None:
        lines.append(f"  at journal event {seq}:")
    lines.extend(render_diff(expected, err.actual, indent="    "))
    return lines


def run_replay(path: str, out: TextIO, execution: str | None = None) -> int:
    """Replay FILE; 0 when deterministic, 1 on divergence."""
    parsed = read_execution(path, execution)
    state = fold(parsed.events)
    if state.workflow != WORKFLOW:
        what = (f"an execution of {state.workflow!r}" if state.workflow is not None
                else "a journal of an execution that never started")
        raise UnknownWorkflowError(
            f"{path} is {what}; loom-ref replay knows the demo's workflow {WORKFLOW!r} "
            "(replay your own with loom_ref.kernel.replay)", workflow=state.workflow)
    try:
        result = replay(build_workflow(), parsed.events, on_warn=lambda m: None)
    except NondeterminismError as err:
        out.write("\n".join(render_divergence(err)) + "\n")
        out.flush()
        return 1
    print(f"deterministic: {len(result.served)} commands served from the journal, none run; "
          f"the history ends {result.status.value}"
          + (f" on gate {result.waiting_on}" if result.waiting_on else ""), file=out)
    if parsed.torn is not None:
        print(f"  (a torn tail of {parsed.torn.size} bytes at line {parsed.torn.line} was "
              "not replayed)", file=out)
    out.flush()
    return 0


def register(subparsers: Any) -> None:
    """Add ``loom-ref replay``."""
    p = subparsers.add_parser(
        "replay", help="replay a demo journal read-only and report determinism",
        description="Drive the demo workflow against the journal in FILE without writing and "
                    "without calling effects; report where the history ends or how the body "
                    "diverged from it.")
    p.add_argument("file")
    p.add_argument("--execution", default=None, metavar="ID",
                   help="the execution to replay, in a store log")
    p.set_defaults(func=lambda a: run_replay(a.file, sys.stdout, a.execution))
