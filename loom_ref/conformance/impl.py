"""The runner's side of the protocol: talking to an implementation in-process or over pipes.

Rules (``conformance/INTERPRETING.md`` section 4):

- A conversation is ``start`` (protocol version) -> the implementation's name, version and
  capabilities; any number of ``run`` (seq, case without expectations) -> observations,
  ``skipped`` or ``errored``; ``stop``. One JSON object per line each way.
- A subprocess implementation that does not answer a ``run`` within the timeout is killed;
  one that exits, closes its output or writes something that is not a JSON line has
  *crashed*. Either way the case is *errored* with what happened (how the process ended:
  exited by itself with a status, ended by a signal, or killed by the runner; the tail of
  its stderr), the event is recorded in :attr:`SubprocessImplementation.crashes`, and the
  implementation is started afresh for the next case.
- The implementation is untrusted input (section 4, "Limits"; :mod:`.pipes`): it runs in a
  process group of its own, and the whole group is ended with it, so a process it leaves
  behind does not outlive the run; its stderr is kept as a bounded tail, never whole; the
  timeout is checked on every turn of the reading loop, however busy the pipes are, and
  bounds writing a request too; a reply line longer than the limit, a reply that is not
  UTF-8 JSON or nests deeper than the limit is that case's protocol error, and the run
  carries on with a fresh process.

The transport does not judge messages; the runner validates every one against its schema.
"""

from __future__ import annotations

import atexit
import json
import math
import os
import select
import signal
import subprocess
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs

from loom_ref.conformance.case import utf8_json
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.pipes import (
    MAX_REPLY_BYTES,
    MAX_REPLY_DEPTH,
    READ_BYTES,
    LineReader,
    ReplyTooLong,
    Tail,
    UndecodableReply,
    decode_reply,
    describe_exit,
)
from loom_ref.errors import ConformanceError, LoomError

__all__ = ["PENDING", "Implementation", "ImplementationCrash", "InProcessImplementation",
           "SubprocessImplementation", "TransportError", "protocol_line"]


class TransportError(ConformanceError):
    """The implementation could not be talked to (crashed, hung, wrote garbage)."""

    code = "conformance.transport"


@attrs.frozen(kw_only=True)
class ImplementationCrash:
    """One crash or timeout of a subprocess implementation, while running ``case_id``:
    ``what`` happened, then how the process ended (``ending``: exited by itself with a
    status, ended by a signal, or killed by the runner) and its return code."""

    case_id: str | None
    what: str
    exit_status: int | None
    stderr_tail: str
    ending: str = ""


class Implementation(Protocol):
    """A conversation with one implementation: one request at a time, in two halves, so a
    runner can keep several implementations busy at once without threads. :meth:`send`
    writes a request; :meth:`wait` returns its reply. :meth:`fds` are what a caller waiting
    on several may ``select`` on (none: :meth:`poll` answers at once); after ``select``
    reports any of them readable (or its deadline passed), :meth:`poll` reads what has
    arrived without blocking and returns the reply once it is whole, else :data:`PENDING`;
    past the deadline it raises the TransportError of :meth:`expire`, which gives up on the
    reply."""

    def send(self, message: Mapping[str, Any]) -> None:
        """Send one message (raise TransportError if it cannot be sent)."""
        ...

    def wait(self) -> Any:
        """The reply to the message sent (parsed JSON), or raise TransportError."""
        ...

    def fds(self) -> tuple[int, ...]:
        ...

    def poll(self) -> Any:
        ...

    @property
    def deadline(self) -> float:
        """When the pending reply is overdue (``time.monotonic()``); inf if none is."""
        ...

    def expire(self) -> TransportError:
        """Give up on the pending reply: the implementation is killed, the crash recorded."""
        ...

    def close(self) -> None:
        """End the conversation (after ``stop``, or to abandon it)."""
        ...

    def abandon(self) -> None:
        """End the implementation now, whatever it is doing (an interrupted run)."""
        ...

    def request(self, message: Mapping[str, Any]) -> Any:
        """:meth:`send`, then :meth:`wait`."""
        ...


def protocol_line(message: Mapping[str, Any]) -> bytes:
    """The line the runner writes for ``message``: JSON (lone surrogates as escapes), UTF-8,
    newline-terminated (``INTERPRETING.md`` sections 2 and 4)."""
    return utf8_json(json.dumps(message, ensure_ascii=False)).encode() + b"\n"


class _Pending:
    def __repr__(self) -> str:
        return "PENDING"


#: What :meth:`Implementation.poll` returns while a reply is incomplete.
PENDING: Any = _Pending()


class InProcessImplementation:
    """loom_ref (or any :class:`LoomRefAdapter`) called directly. Messages and replies go
    through a JSON round trip, so the runner sees exactly what a pipe would carry."""

    def __init__(self, adapter: LoomRefAdapter | None = None) -> None:
        self.adapter = adapter or LoomRefAdapter()
        self.crashes: list[ImplementationCrash] = []
        self._reply: Any = PENDING
        self._error: TransportError | None = None

    def send(self, message: Mapping[str, Any]) -> None:
        self._reply, self._error = PENDING, None
        try:
            reply = self.adapter.handle(json.loads(json.dumps(message)))
            self._reply = json.loads(json.dumps(reply))
        except (LoomError, TypeError, ValueError) as exc:
            self._error = TransportError(f"in-process adapter failed: {exc}")

    def wait(self) -> Any:
        reply, error = self._reply, self._error
        self._reply, self._error = PENDING, None
        if error is not None:
            raise error
        return reply

    def fds(self) -> tuple[int, ...]:
        return ()

    def poll(self) -> Any:
        return self.wait()

    @property
    def deadline(self) -> float:
        return math.inf

    def expire(self) -> TransportError:  # a reply in process is never late
        return TransportError("in-process adapter gave no reply")

    def close(self) -> None:
        pass

    def abandon(self) -> None:
        pass

    def request(self, message: Mapping[str, Any]) -> Any:
        self.send(message)
        return self.wait()


#: Every SubprocessImplementation with a process running: the ones still running when the
#: interpreter exits (an error or a Ctrl-C that left no time for ``close``) are ended with
#: their process groups, so no implementation outlives the runner.
_LIVE: weakref.WeakSet[SubprocessImplementation] = weakref.WeakSet()


@atexit.register
def _end_all() -> None:
    for impl in list(_LIVE):
        impl.abandon()


class SubprocessImplementation:
    """An implementation run as ``argv``, speaking JSON lines on its stdin and stdout, in a
    process group of its own. ``timeout`` bounds each reply; ``start_timeout`` (default: the
    same) the reply to ``start``, which includes the process's own start-up.
    ``max_reply_bytes`` and ``max_reply_depth`` bound one reply line (:mod:`.pipes`)."""

    def __init__(self, argv: Sequence[str], *, timeout: float = 10.0,
                 cwd: str | None = None, max_reply_bytes: int = MAX_REPLY_BYTES,
                 max_reply_depth: int = MAX_REPLY_DEPTH,
                 start_timeout: float | None = None) -> None:
        if not argv:
            raise ConformanceError("an implementation command is required",
                                   code="conformance.no-command")
        self.argv = list(argv)
        self.timeout = timeout
        self.start_timeout = timeout if start_timeout is None else start_timeout
        self._limit = timeout  # the bound of the reply awaited
        self.cwd = cwd
        self.max_reply_depth = max_reply_depth
        self.crashes: list[ImplementationCrash] = []
        self.current_case: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stdin = self._stdout = self._stderr = -1
        self._lines = LineReader(max_reply_bytes)
        self._tail = Tail()
        self._start_message: Mapping[str, Any] | None = None
        self._deadline = math.inf

    # -- process lifetime ---------------------------------------------------------------------
    def _spawn(self) -> subprocess.Popen[bytes]:
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, cwd=self.cwd, bufsize=0,
                                    start_new_session=True)
        except OSError as exc:
            raise TransportError(f"cannot start {' '.join(self.argv)!r}: {exc}") from None
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._stdin, self._stdout, self._stderr = (
            proc.stdin.fileno(), proc.stdout.fileno(), proc.stderr.fileno())
        for fd in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(fd, False)
        self._proc = proc
        self._lines.clear()
        self._tail.clear()
        _LIVE.add(self)
        return proc

    def _drain_stderr(self, budget: int = 4 * READ_BYTES) -> None:
        """Read what stderr holds now (at most ``budget`` bytes), keeping only its tail."""
        while budget > 0 and self._stderr >= 0:
            try:
                chunk = os.read(self._stderr, min(READ_BYTES, budget))
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:  # every writer has gone: stop watching it
                self._stderr = -1
                return
            self._tail.add(chunk)
            budget -= len(chunk)

    def _exited(self) -> int | None:
        """The leader's return code if it has ended, without reaping it (so that its process
        group id stays reserved until the group is ended), else None."""
        proc = self._proc
        assert proc is not None
        if proc.returncode is not None:
            return proc.returncode
        if not hasattr(os, "waitid"):  # a platform without it: reap (the group id is freed)
            return proc.poll()
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return proc.wait()
        if info is None:
            return None
        if info.si_code == os.CLD_EXITED:
            return info.si_status
        return -info.si_status

    def _await_exit(self, seconds: float) -> int | None:
        """Wait up to ``seconds`` for the leader to end by itself (draining its stderr)."""
        end = time.monotonic() + seconds
        while True:
            status = self._exited()
            remaining = end - time.monotonic()
            if status is not None or remaining <= 0:
                return status
            if self._stderr >= 0:
                select.select([self._stderr], [], [], min(remaining, 0.05))
                self._drain_stderr()
            else:
                time.sleep(min(remaining, 0.01))

    def _end(self, *, grace: float = 0.0) -> tuple[int | None, str]:
        """End the process and its whole group: (return code, how it ended)."""
        proc = self._proc
        assert proc is not None
        status = self._await_exit(grace) if grace > 0 else self._exited()
        killed = status is None
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the leader, and whatever it left behind
        except (ProcessLookupError, PermissionError):
            pass
        code = proc.wait()
        self._drain_stderr()  # what it wrote before it ended (bounded: the pipe's contents)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        self._proc, self._deadline = None, math.inf
        self._stdin = self._stdout = self._stderr = -1
        return code, describe_exit(code, killed=killed)

    def _fail(self, what: str, *, grace: float = 0.0) -> TransportError:
        """Record a crash while running the current case; the process group is ended."""
        status, ending = (self._end(grace=grace) if self._proc is not None
                          else (None, "not running"))
        if what.startswith("no reply within") and status is not None and status >= 0:
            ending += "; a process it started still held its output open"
        crash = ImplementationCrash(case_id=self.current_case, what=what, exit_status=status,
                                    stderr_tail=self._tail.text(), ending=ending)
        self.crashes.append(crash)
        return TransportError(f"{what}; {ending}", stderr=crash.stderr_tail)

    def _ensure(self) -> subprocess.Popen[bytes]:
        """The running process; a crashed one is restarted and sent ``start`` again."""
        if self._proc is not None:
            return self._proc
        proc = self._spawn()
        if self._start_message is not None:  # a restart: replay the handshake
            self._write(self._start_message)
            self.wait()
        return proc

    # -- lines ----------------------------------------------------------------------------------
    def _write(self, message: Mapping[str, Any]) -> None:
        """Write one request, within the timeout (an implementation that stops reading its
        input cannot hold the runner), draining stderr while the pipe is full."""
        assert self._proc is not None
        data = memoryview(protocol_line(message))
        self._limit = self.start_timeout if message.get("cmd") == "start" else self.timeout
        deadline = time.monotonic() + self._limit
        while data:
            try:
                data = data[os.write(self._stdin, data):]
                continue
            except BlockingIOError:
                pass
            except OSError:
                raise self._fail("the implementation closed its input", grace=1.0) from None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._fail(f"the implementation read no request within "
                                 f"{self._limit:g}s")
            watch = [self._stderr] if self._stderr >= 0 else []
            select.select(watch, [self._stdin], [], remaining)
            self._drain_stderr()
        self._deadline = time.monotonic() + self._limit

    def send(self, message: Mapping[str, Any]) -> None:
        if message.get("cmd") == "start":
            self._start_message = message
            if self._proc is None:
                self._spawn()
        self._ensure()
        case = message.get("case")
        self.current_case = case.get("id") if isinstance(case, Mapping) else None
        self._write(message)

    def fds(self) -> tuple[int, ...]:
        if self._proc is None or self._lines.has_line:
            return ()  # nothing to wait for: poll() answers at once
        return (self._stdout,) if self._stderr < 0 else (self._stdout, self._stderr)

    @property
    def deadline(self) -> float:
        return self._deadline

    def expire(self) -> TransportError:
        return self._fail(f"no reply within {self._limit:g}s")

    def poll(self) -> Any:
        """Read what has arrived, without blocking; the reply once its line is whole, else
        PENDING, or the TransportError of a crash, of an undecodable reply or of the
        deadline (checked on every call, however much keeps arriving)."""
        if self._proc is None:
            raise self._fail("the implementation is not running")
        self._drain_stderr()
        if not self._lines.has_line:
            try:
                chunk = os.read(self._stdout, READ_BYTES)
            except BlockingIOError:
                chunk = None
            except OSError:
                chunk = b""
            if chunk == b"":
                raise self._fail("the implementation exited or closed its output", grace=1.0)
            if chunk:
                try:
                    self._lines.feed(chunk)
                except ReplyTooLong as exc:
                    raise self._fail(str(exc)) from None
        line = self._lines.line()
        if line is None:
            if time.monotonic() >= self._deadline:
                raise self.expire()
            return PENDING
        self._deadline = math.inf
        try:
            return decode_reply(line, self.max_reply_depth)
        except UndecodableReply as exc:
            raise self._fail(str(exc)) from None

    def wait(self) -> Any:
        while True:
            fds = self.fds()
            if fds:
                remaining = self._deadline - time.monotonic()
                if remaining > 0:
                    select.select(fds, [], [], remaining)
            reply = self.poll()
            if reply is not PENDING:
                return reply

    def close(self) -> None:
        """End the conversation: close its input, give it the timeout to exit, then end its
        process group (whatever it left running goes with it)."""
        if self._proc is not None:
            proc = self._proc
            if proc.stdin is not None:
                try:
                    proc.stdin.close()
                except OSError:  # it had already gone: nothing left to say to it
                    pass
            self._await_exit(self.timeout)
            self._end()
        _LIVE.discard(self)

    def abandon(self) -> None:
        """End the process group now, without ``stop`` and without waiting."""
        if self._proc is not None:
            self._end()
        _LIVE.discard(self)

    def request(self, message: Mapping[str, Any]) -> Any:
        self.send(message)
        return self.wait()
