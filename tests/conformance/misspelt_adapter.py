"""An adapter whose start reply misspells a capability (``journal-parse``) and that skips
every case: a run against it must not pass (issue 15)."""

from __future__ import annotations

import json
import sys


def main() -> int:
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "start":
            reply = {"protocol": 1, "implementation": {
                "name": "misspelt", "version": "1", "capabilities": ["journal-parse"]}}
        elif message["cmd"] == "run":
            reply = {"seq": message["seq"], "skipped": {"reason": "not implemented"}}
        else:
            reply = {"ok": True}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if message["cmd"] == "stop":
            return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
