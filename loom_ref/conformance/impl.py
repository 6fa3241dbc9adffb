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
import os
import select
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs

from loom_ref.conformance.case import utf8_json
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.errors import ConformanceError, LoomError

__all__ = ["Implementation", "ImplementationCrash", "InProcessImplementation",
           "SubprocessImplementation", "TransportError"]


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
    """A conversation with one implementation."""

    def request(self, message: Mapping[str, Any]) -> Any:
        """Send one message; return the reply (parsed JSON), or raise TransportError."""
        ...

    def close(self) -> None:
        """End the conversation (after ``stop``, or to abandon it)."""
        ...


class InProcessImplementation:
    """loom_ref (or any :class:`LoomRefAdapter`) called directly. Messages and replies go
    through a JSON round trip, so the runner sees exactly what a pipe would carry."""

    def __init__(self, adapter: LoomRefAdapter | None = None) -> None:
        self.adapter = adapter or LoomRefAdapter()
        self.crashes: list[ImplementationCrash] = []

    def request(self, message: Mapping[str, Any]) -> Any:
        try:
            reply = self.adapter.handle(json.loads(json.dumps(message)))
            return json.loads(json.dumps(reply))
        except (LoomError, TypeError, ValueError) as exc:
            raise TransportError(f"in-process adapter failed: {exc}") from exc

    def close(self) -> None:
        pass


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

    # -- process lifetime ---------------------------------------------------------------------
    def _spawn(self) -> subprocess.Popen[bytes]:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 -- lives as long as the process
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=self._stderr, cwd=self.cwd)
        except OSError as exc:
            raise TransportError(f"cannot start {self.argv!r}: {exc}") from None
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
        crash = ImplementationCrash(case_id=self.current_case, what=what, exit_status=status,
                                    stderr_tail=self._stderr_tail())
        self.crashes.append(crash)
        self._proc = None
        return TransportError(f"{what} (exit status {status})", stderr=crash.stderr_tail)

    def _ensure(self) -> subprocess.Popen[bytes]:
        """The running process; a crashed one is restarted and sent ``start`` again."""
        if self._proc is not None:
            return self._proc
        proc = self._spawn()
        if self._start_message is not None:  # a restart: replay the handshake
            self._exchange(self._start_message)
        return proc

    # -- lines ----------------------------------------------------------------------------------
    def _readline(self, proc: subprocess.Popen[bytes]) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while b"\n" not in self._buf:
            ready, _, _ = select.select([fd], [], [], self.timeout)
            if not ready:
                raise self._fail(f"no reply within {self.timeout:g}s; killed")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self._fail("the implementation exited or closed its output")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def _exchange(self, message: Mapping[str, Any]) -> Any:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            proc.stdin.write(utf8_json(json.dumps(message, ensure_ascii=False)).encode() + b"\n")
            proc.stdin.flush()
        except OSError:
            raise self._fail("the implementation closed its input") from None
        line = self._readline(proc)
        try:
            return json.loads(line)
        except ValueError:
            raise self._fail(f"the reply is not JSON: {line[:200]!r}") from None

    def request(self, message: Mapping[str, Any]) -> Any:
        if message.get("cmd") == "start":
            self._start_message = message
            if self._proc is None:
                self._spawn()
        proc = self._ensure()
        del proc
        case = message.get("case")
        self.current_case = case.get("id") if isinstance(case, Mapping) else None
        return self._exchange(message)

    def close(self) -> None:
        proc = self._proc
        if proc is not None:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                proc.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
        self._proc = None
