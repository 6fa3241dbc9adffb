"""Keeping one or more implementation processes busy: the runner's scheduler.

Rules (``conformance/INTERPRETING.md`` section 1, ``--jobs``):

- Each process has at most one request outstanding, and the protocol's order (one reply
  per request, in order) holds on each; cases are independent, so any process may run any.
- A base case goes out first; its generated variants are queued when it passed (ahead of
  the next base cases) and skipped with the reason when it did not.
- Verdicts land in the slot of their case, so the order of the results, and every report
  written from them, is that of a run on one process, whichever process finished first.
- Waiting is ``select`` over the processes' outputs (stdout and stderr), bounded by the
  earliest deadline; after every wait each process past its deadline is polled, and a poll
  past the deadline kills the process and errors its case (the transport records the crash
  and starts it again), so a process that keeps its pipes busy cannot hold the run. No
  threads.
"""

from __future__ import annotations

import math
import select
import time
from collections import deque
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from loom_ref.conformance.case import Case
from loom_ref.conformance.impl import PENDING, TransportError

if TYPE_CHECKING:  # the runner imports this module; this one only names its types
    from loom_ref.conformance.runner import CaseResult, Runner

__all__ = ["Job", "run_jobs"]


@attrs.frozen(kw_only=True)
class Job:
    """One case to send, the slot its verdict goes to, and (for a base case) its variants
    with their slots."""

    position: int
    case: Case
    variants: tuple[tuple[int, Case], ...] = ()


def run_jobs(runner: Runner, jobs: Sequence[Job], slots: MutableSequence[CaseResult | None], *,
             progress: Callable[[int, int, str], None] | None = None) -> None:
    """Run every job (and the variants it releases) on ``runner.workers``; fill ``slots``."""
    from loom_ref.conformance.runner import CaseResult, Status

    workers = runner.workers
    queue: deque[Job] = deque(jobs)
    busy: dict[int, tuple[Job, Mapping[str, Any]]] = {}
    done = 0

    def record(position: int, result: CaseResult) -> None:
        nonlocal done
        slots[position] = result
        done += 1
        if progress is not None:
            progress(done, len(slots), result.id)

    def finish(job: Job, result: CaseResult) -> None:
        record(job.position, result)
        if not job.variants:
            return
        if result.status is Status.PASS:
            queue.extendleft(reversed([Job(position=p, case=v) for p, v in job.variants]))
        else:
            for position, skipped in runner.skip_variants(job, result):
                record(position, skipped)

    while queue or busy:
        for w, worker in enumerate(workers):
            while w not in busy and queue:
                job = queue.popleft()
                prepared = runner.prepare(job.case)
                if isinstance(prepared, CaseResult):
                    finish(job, prepared)
                    continue
                try:
                    worker.send(prepared)
                except TransportError as exc:
                    finish(job, runner.judge(job.case, prepared, exc))
                    continue
                busy[w] = (job, prepared)
        if not busy:
            continue
        ready = [w for w in busy if not workers[w].fds()]
        if not ready:
            fds: dict[int, int] = {fd: w for w in busy for fd in workers[w].fds()}
            deadline = min(workers[w].deadline for w in busy)
            timeout = None if math.isinf(deadline) else max(0.0, deadline - time.monotonic())
            readable, _, _ = select.select(list(fds), [], [], timeout)
            ready = list(dict.fromkeys(fds[fd] for fd in readable))
            now = time.monotonic()  # every worker past its deadline is polled (and expires),
            ready += [w for w in busy if w not in ready and workers[w].deadline <= now]
        for w in ready:  # however busy its pipes keep the others
            job, message = busy[w]
            try:
                reply = workers[w].poll()
            except TransportError as exc:
                reply = exc
            if reply is PENDING:
                continue
            del busy[w]
            finish(job, runner.judge(job.case, message, reply))
    if progress is not None:
        progress(done, len(slots), "")
