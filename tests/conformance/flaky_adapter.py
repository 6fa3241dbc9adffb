"""A subprocess implementation that misbehaves on purpose, by case name, for the runner's
crash, timeout and protocol-error handling. Otherwise it is loom_ref's adapter.

    python -m tests.conformance.flaky_adapter
"""

from __future__ import annotations

import json
import os
import sys
import time

from loom_ref.conformance.inprocess import LoomRefAdapter


def main() -> int:
    adapter = LoomRefAdapter(name="flaky")
    for line in sys.stdin:
        message = json.loads(line)
        case_id = str(message.get("case", {}).get("id", ""))
        if case_id == "smoke/malformed":  # a harness that dies on a case it cannot read
            os._exit(4)
        if case_id.endswith("/crash-me"):
            sys.stderr.write("flaky: crashing on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        if case_id.endswith("/hang-me"):
            time.sleep(3600)
        if case_id.endswith("/garbage"):
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        reply = adapter.handle(message)
        if case_id.endswith("/bad-shape"):
            reply = {"seq": reply["seq"], "observations": {"result": 1, "extra": True}}
        if case_id.endswith("/wrong-seq"):
            reply["seq"] = 999
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if message.get("cmd") == "stop":
            return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
