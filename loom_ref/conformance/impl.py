"""The runner's side of the protocol: talking to an implementation in-process or over pipes.

Rules (``conformance/INTERPRETING.md`` section 4):

- A conversation is ``start`` (protocol version) -> the implementation's name, version and
  capabilities; any number of ``run`` (seq, case without expectations) -> observations,
  ``skipped`` or ``errored``; ``stop``. One JSON object per line each way.
- A subprocess implementation that does not answer a ``run`` within the timeout is killed;
  one that exits, closes its output or writes something that is not a JSON line has
  *crashed*. Either way the case is *errored* with what happened (exit status, the tail of
  its stderr), the event is recorded in :attr:`SubprocessImplementation.crashes`, and the
  implementation is started afresh for the next case.

The transport does not judge messages; the runner validates every one against its schema.
"""

from __future__ import annotations

import json
import math
import os
import select
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs

from loom_ref.conformance.case import utf8_json
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.errors import ConformanceError, LoomError

__all__ = ["PENDING", "Implementation", "ImplementationCrash", "InProcessImplementation",
           "SubprocessImplementation", "TransportError", "protocol_line"]


class TransportError(ConformanceError):
    """The implementation could not be talked to (crashed, hung, wrote garbage)."""

    code = "conformance.transport"


@attrs.frozen(kw_only=True)
class ImplementationCrash:
    """One crash or timeout of a subprocess implementation, while running ``case_id``."""

    case_id: str | None
    what: str
    exit_status: int | None
    stderr_tail: str


class Implementation(Protocol):
    """A conversation with one implementation: one request at a time, in two halves, so a
    runner can keep several implementations busy at once without threads. :meth:`send`
    writes a request; :meth:`wait` returns its reply. :meth:`fileno` is what a caller waiting
    on several may ``select`` on (None: the reply is already there); after ``select``
    reports it readable, :meth:`poll` reads what has arrived and returns the reply once it
    is whole (else :data:`PENDING`); :meth:`expire` gives up on a reply past its deadline."""

    def send(self, message: Mapping[str, Any]) -> None:
        """Send one message (raise TransportError if it cannot be sent)."""
        ...

    def wait(self) -> Any:
        """The reply to the message sent (parsed JSON), or raise TransportError."""
        ...

    def fileno(self) -> int | None:
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

    def fileno(self) -> int | None:
        return None

    def poll(self) -> Any:
        return self.wait()

    @property
    def deadline(self) -> float:
        return math.inf

    def expire(self) -> TransportError:  # a reply in process is never late
        return TransportError("in-process adapter gave no reply")

    def close(self) -> None:
        pass

    def request(self, message: Mapping[str, Any]) -> Any:
        self.send(message)
        return self.wait()


class SubprocessImplementation:
    """An implementation run as ``argv``, speaking JSON lines on its stdin and stdout."""

    def __init__(self, argv: Sequence[str], *, timeout: float = 10.0,
                 cwd: str | None = None) -> None:
        if not argv:
            raise ConformanceError("an implementation command is required",
                                   code="conformance.no-command")
        self.argv = list(argv)
        self.timeout = timeout
        self.cwd = cwd
        self.crashes: list[ImplementationCrash] = []
        self.current_case: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None
        self._buf = b""
        self._start_message: Mapping[str, Any] | None = None
        self._deadline = math.inf

    # -- process lifetime ---------------------------------------------------------------------
    def _spawn(self) -> subprocess.Popen[bytes]:
        if self._stderr is not None:
            self._stderr.close()
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 -- lives as long as the process
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=self._stderr, cwd=self.cwd)
        except OSError as exc:
            raise TransportError(f"cannot start {' '.join(self.argv)!r}: {exc}") from None
        self._proc, self._buf = proc, b""
        return proc

    def _stderr_tail(self, limit: int = 2000) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        data: bytes = self._stderr.read()
        return data[-limit:].decode("utf-8", errors="replace")

    def _fail(self, what: str) -> TransportError:
        proc = self._proc
        status = None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            status = proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    pipe.close()
        crash = ImplementationCrash(case_id=self.current_case, what=what, exit_status=status,
                                    stderr_tail=self._stderr_tail())
        self.crashes.append(crash)
        self._proc, self._deadline = None, math.inf
        return TransportError(f"{what} (exit status {status})", stderr=crash.stderr_tail)

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
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            proc.stdin.write(protocol_line(message))
            proc.stdin.flush()
        except OSError:
            raise self._fail("the implementation closed its input") from None
        self._deadline = time.monotonic() + self.timeout

    def send(self, message: Mapping[str, Any]) -> None:
        if message.get("cmd") == "start":
            self._start_message = message
            if self._proc is None:
                self._spawn()
        self._ensure()
        case = message.get("case")
        self.current_case = case.get("id") if isinstance(case, Mapping) else None
        self._write(message)

    def fileno(self) -> int | None:
        proc = self._proc
        if proc is None or proc.stdout is None or b"\n" in self._buf:
            return None  # nothing to wait for: poll() answers at once
        return proc.stdout.fileno()

    @property
    def deadline(self) -> float:
        return self._deadline

    def expire(self) -> TransportError:
        return self._fail(f"no reply within {self.timeout:g}s; killed")

    def poll(self) -> Any:
        """Read what has arrived (call when :meth:`fileno` is readable or None)."""
        proc = self._proc
        if proc is None or proc.stdout is None:
            raise self._fail("the implementation is not running")
        if b"\n" not in self._buf:
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                raise self._fail("the implementation exited or closed its output")
            self._buf += chunk
            if b"\n" not in self._buf:
                return PENDING
        line, self._buf = self._buf.split(b"\n", 1)
        self._deadline = math.inf
        try:
            return json.loads(line)
        except ValueError:
            raise self._fail(f"the reply is not JSON: {line[:200]!r}") from None

    def wait(self) -> Any:
        while True:
            fd = self.fileno()
            if fd is not None:
                remaining = self._deadline - time.monotonic()
                ready = remaining > 0 and select.select([fd], [], [], remaining)[0]
                if not ready:
                    raise self.expire()
            reply = self.poll()
            if reply is not PENDING:
                return reply

    def close(self) -> None:
        proc = self._proc
        if proc is not None:
            if proc.stdin is not None:
                try:
                    proc.stdin.close()
                except OSError:  # it had already gone: nothing left to say to it
                    pass
            try:
                proc.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self._proc = None

    def request(self, message: Mapping[str, Any]) -> Any:
        self.send(message)
        return self.wait()
