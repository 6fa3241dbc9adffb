"""The JSON Schemas of case files and protocol messages, loaded from ``conformance/schemas``.

Rules (``conformance/INTERPRETING.md`` section 4): every message the runner sends or receives
is checked against its schema; a message that fails is a protocol error of the implementation
(the case is *errored*, never passed). The schemas share ``defs.json`` through ``$ref`` values
of the form ``defs.json#/$defs/<name>``; :mod:`loom_ref.schema` resolves them through a
registry of the loaded documents.

Every message is validated, always. To keep that cheap each schema is compiled once into a
predicate (:func:`loom_ref.schema.compile_check`) that says whether the message is valid;
only a message it refuses is walked again by :func:`loom_ref.schema.validate`, for the
problems to report.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from loom_ref.errors import ConformanceError
from loom_ref.schema import Check, check_schema, compile_check, validate

__all__ = ["MESSAGE_SCHEMAS", "SchemaSet"]

#: Protocol message (and case file, and report) name -> schema file.
MESSAGE_SCHEMAS: Mapping[str, str] = {
    "start": "protocol.start.json",
    "start-reply": "protocol.start-reply.json",
    "run": "protocol.run.json",
    "run-reply": "protocol.run-reply.json",
    "stop": "protocol.stop.json",
    "stop-reply": "protocol.stop-reply.json",
    "case": "case.json",
    "report": "report.json",
}


class SchemaSet:
    """The loaded schemas of one suite directory."""

    def __init__(self, schema_dir: str) -> None:
        self.dir = schema_dir
        self.docs: dict[str, Any] = {}
        for name in sorted(os.listdir(schema_dir)):
            if name.endswith(".json"):
                with open(os.path.join(schema_dir, name), encoding="utf-8") as f:
                    self.docs[name] = json.load(f)
        for name, doc in self.docs.items():  # every $ref resolves, here or in a sibling
            check_schema(doc, where=name, registry=self.docs)
        missing = [f for f in MESSAGE_SCHEMAS.values() if f not in self.docs]
        if missing:
            raise ConformanceError(f"{schema_dir} lacks {missing}", code="conformance.no-suite")
        self._checks: dict[str, Check] = {}

    def _valid(self, key: str, schema: Any, value: Any) -> bool:
        check = self._checks.get(key)
        if check is None:
            check = self._checks[key] = compile_check(schema, registry=self.docs)
        return check(value)

    def problems(self, kind: str, value: Any) -> list[dict[str, str]]:
        """Every way ``value`` fails the schema of ``kind`` (a key of MESSAGE_SCHEMAS)."""
        doc = self.docs[MESSAGE_SCHEMAS[kind]]
        if self._valid(kind, doc, value):
            return []
        return validate(value, doc, registry=self.docs)

    def problems_def(self, name: str, value: Any) -> list[dict[str, str]]:
        """Every way ``value`` fails ``defs.json#/$defs/<name>``."""
        schema = {"$ref": f"defs.json#/$defs/{name}"}
        if self._valid("#" + name, schema, value):
            return []
        return validate(value, schema, registry=self.docs)


def describe(problems: list[dict[str, str]], limit: int = 5) -> str:
    """One line listing the first ``limit`` problems."""
    text = "; ".join(f"{p['path'] or '(the whole message)'}: {p['message']}"
                     for p in problems[:limit])
    more = len(problems) - limit
    return text + (f"; and {more} more" if more > 0 else "")


__all__ += ["describe"]
