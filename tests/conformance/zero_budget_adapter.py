"""A subprocess adapter with one rule broken on purpose, for ``conformance fuzz``'s tests: a
token budget of 0 is read as no budget (it is loom-ref's adapter otherwise)."""

from __future__ import annotations

import sys

from loom_ref.conformance.adapter import serve
from tests.conformance.test_fuzz import ZeroBudgetIsUnset


class _Named(ZeroBudgetIsUnset):
    def handle(self, message: dict) -> dict:  # type: ignore[type-arg]
        reply = super().handle(message)
        if message.get("cmd") == "start":
            reply["implementation"] = {**reply["implementation"], "name": "zero-budget",
                                       "version": "1"}
        return reply


if __name__ == "__main__":
    raise SystemExit(serve(_Named(), sys.stdin, sys.stdout, sys.stderr))
