"""An implementation that misbehaves in one chosen way, on the case whose id ends in
``/misbehave``, to prove that the runner treats what it drives as untrusted input. Otherwise
it answers as a sound implementation of ``journal.fold`` alone would, from the standard
library only (it starts in milliseconds, so a loaded machine does not turn start-up into the
timeout under test): the observations it gives every other case are the JSON in the
environment variable ``HOSTILE_OBSERVATIONS``, which the test computes with loom-ref. Mode
``slow`` is loom_ref's own adapter instead.

    HOSTILE_OBSERVATIONS='{"result": ...}' python -m tests.conformance.hostile_adapter MODE [ARG]

Modes:

- ``stderr-flood MB``: write MB mebibytes to stderr, then ``the end of the flood``, then exit
  with status 3 (the runner must keep a bounded tail, and read all of it);
- ``stderr-chatter MB``: write MB mebibytes to stderr, then answer the case correctly (the
  runner must drain stderr while it waits, or the adapter blocks on a full pipe);
- ``no-newline``: become ``cat /dev/zero`` (a reply line that never ends);
- ``trickle``: write one byte without a newline every 10 ms, forever (the pipe is always
  busy; only the deadline can end it);
- ``deep N``: a reply nested N levels deep;
- ``not-utf8``: a reply line that is not UTF-8;
- ``fork-and-exit PIDFILE``: fork a child that keeps the output open and sleeps, write its
  pid to PIDFILE, and exit by itself with status 0;
- ``hang``: sleep forever, ignoring SIGTERM;
- ``deaf``: read no request after ``start`` (a large request fills the pipe);
- ``abort``: end by SIGABRT;
- ``slow PIDFILE``: answer every case correctly, each after 50 ms, and write its pid to
  PIDFILE once three cases are answered (a run long enough to be interrupted).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

START_REPLY = {"protocol": 1, "implementation": {"name": "hostile", "version": "0",
                                                 "language": "python",
                                                 "capabilities": ["journal.fold"]}}


def _answer(message: dict[str, Any]) -> dict[str, Any]:
    """The reply of a sound implementation of journal.fold to a case it is sent."""
    cmd = message.get("cmd")
    if cmd == "start":
        return START_REPLY
    if cmd == "stop":
        return {"ok": True}
    return {"seq": message["seq"],
            "observations": json.loads(os.environ["HOSTILE_OBSERVATIONS"])}


def _write(data: bytes) -> None:
    os.write(1, data)


def misbehave(mode: str, arg: str, seq: int) -> None:
    if mode == "stderr-flood":
        block = (b"x" * 1023 + b"\n") * 64
        for _ in range(int(arg) * 16):
            os.write(2, block)
        os.write(2, b"the end of the flood\n")
        os._exit(3)
    if mode == "no-newline":
        os.execvp("cat", ["cat", "/dev/zero"])
    if mode == "trickle":
        while True:
            _write(b" ")
            time.sleep(0.01)
    if mode == "deep":
        depth = int(arg)
        _write(b'{"seq": %d, "observations": {"result": ' % seq + b"[" * depth
               + b"]" * depth + b"}}\n")
        return
    if mode == "not-utf8":
        _write(b'{"seq": %d, "observations": {"result": "\xff\xfe"}}\n' % seq)
        return
    if mode == "fork-and-exit":
        child = os.fork()
        if child == 0:
            time.sleep(3600)
            os._exit(0)
        with open(arg, "w", encoding="utf-8") as f:
            f.write(str(child))
        os._exit(0)
    if mode == "hang":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(3600)
    if mode == "abort":
        os.abort()
    raise SystemExit(f"hostile_adapter: unknown mode {mode!r}")


def main() -> int:
    mode = sys.argv[1]
    arg = sys.argv[2] if len(sys.argv) > 2 else ""
    handle = _answer
    if mode == "slow":
        from loom_ref.conformance.inprocess import LoomRefAdapter

        handle = LoomRefAdapter(name="hostile").handle
    answered = 0
    for line in sys.stdin:
        message = json.loads(line)
        if mode == "slow" and message.get("cmd") == "run":
            time.sleep(0.05)
            answered += 1
            if answered == 3:
                with open(arg, "w", encoding="utf-8") as f:
                    f.write(str(os.getpid()))
        case = message.get("case") or {}
        if str(case.get("id", "")).endswith("/misbehave"):
            if mode == "stderr-chatter":
                block = (b"y" * 1023 + b"\n") * 64
                for _ in range(int(arg) * 16):
                    os.write(2, block)
            else:
                misbehave(mode, arg, int(message["seq"]))
                continue
        reply = handle(message)
        _write(json.dumps(reply).encode() + b"\n")
        if message.get("cmd") == "stop":
            return 0
        if mode == "deaf" and message.get("cmd") == "start":
            time.sleep(3600)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
