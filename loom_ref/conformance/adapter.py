"""loom_ref's subprocess adapter: ``python -m loom_ref.conformance.adapter``.

Speaks the conformance protocol (``conformance/INTERPRETING.md`` section 4) as JSON lines:
one request per line on stdin, one reply per line on stdout, flushed after each. Nothing
else is written to stdout (warnings go to stderr). ``stop`` is answered, then the process
exits with status 0; end of input exits with status 0 too. A line that is not a JSON object
is a protocol error: it is reported on stderr and the process exits with status 2.
"""

from __future__ import annotations

import json
import sys
from typing import IO

from loom_ref.conformance.case import utf8_json
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.errors import LoomError

__all__ = ["main", "serve"]


def serve(adapter: LoomRefAdapter, stdin: IO[str], stdout: IO[str], stderr: IO[str]) -> int:
    """Answer requests from ``stdin`` until ``stop`` or end of input; return the exit code."""
    for line in stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError as exc:
            stderr.write(f"loom-ref adapter: not JSON: {exc}\n")
            return 2
        if not isinstance(message, dict):
            stderr.write("loom-ref adapter: a request is a JSON object\n")
            return 2
        try:
            reply = adapter.handle(message)
        except LoomError as exc:
            stderr.write(f"loom-ref adapter: {exc}\n")
            return 2
        stdout.write(utf8_json(json.dumps(reply, ensure_ascii=False, separators=(",", ":")))
                     + "\n")
        stdout.flush()
        if message.get("cmd") == "stop":
            return 0
    return 0


def main() -> int:
    """The entry point of ``python -m loom_ref.conformance.adapter``."""
    return serve(LoomRefAdapter(), sys.stdin, sys.stdout, sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
