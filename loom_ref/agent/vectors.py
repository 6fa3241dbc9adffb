"""The pure functions that the ``agent.*`` conformance vector groups call, JSON in, JSON out.

Spec: ``spec/agent.md`` § Conformance vectors. Each function takes the
case's ``input`` object and returns its ``result`` object, or raises a ``LoomError`` whose
``code`` is the case's expected error code:

- ``agent.message_bytes``: ``{"message": <json>}`` -> ``{"bytes": int, "canonical": str}``.
- ``agent.compaction_plan``: ``{"sizes": [int], "afterMessages": int|null, "afterBytes":
  int|null, "keepRecent": int}`` -> ``{"compact", "reason", "keep", "fold", "skipped"}``;
  the byte count is ``sum(sizes)``; the compaction config is checked first
  (``argument.agent-compaction``).
- ``agent.kept_suffix``: ``{"sizes": [int], "afterBytes": int, "keepRecent": int}`` ->
  ``{"keep": int}``.
- ``agent.chunk_deltas``: ``{"deltas": [str], "minChars": int, "flushAfter"?: [int]}`` ->
  ``{"batches": [str]}``, the flush batch (if any) last; the chunker is also flushed after
  each delta whose index ``flushAfter`` lists, and goes on as new (``agent.chunk-flush``).
- ``agent.claim_check_envelope``: ``{"result": <json>, "preview": bool (default true)}``,
  where ``{"$tainted": {"value", "origin"}}`` stands for a tainted value
  (``taint.vector-encoding``) -> ``{"envelope": <envelope>, "stored": <canonical JSON text
  stored>}``, over a :class:`MemoryContentStore`; with ``"resolve": <json>`` also
  ``"resolved"``: what ``resolve_claim_check`` gives for that value over the same store (the
  ``$tainted`` encoding again).
- ``agent.content_ref``: ``{"value": <json>}`` -> ``{"ref": "sha256:<hex>"}``.
- ``agent.tool_result_content``: ``{"name": str, "result": <json>}`` -> ``{"content": str}``.
- ``agent.model_effect``, ``agent.summarize``, ``agent.render_transcript``: the agent's effects
  over a scripted provider (:mod:`loom_ref.agent.vectors_model`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.agent.canonical import canonical_json
from loom_ref.agent.chunk_deltas import chunk_deltas
from loom_ref.agent.claim_check import (
    MemoryContentStore,
    claim_check_envelope,
    content_ref,
    resolve_claim_check,
)
from loom_ref.agent.compaction import Compaction, compaction_plan, kept_suffix_for_bytes
from loom_ref.agent.tools import tool_result_content
from loom_ref.agent.transcript import message_bytes
from loom_ref.agent.vectors_model import (
    model_effect_vector,
    render_transcript_vector,
    summarize_vector,
)
from loom_ref.errors import InvalidArgument
from loom_ref.governance.taint import TaintedValue
from loom_ref.governance.vectors import encode_value

__all__ = ["VECTOR_FUNCTIONS"]

_TAINT_KEY = "$tainted"


# spec: agent.vector-input — every input is read strictly (members, types) before anything runs
def _fields(payload: object, required: set[str], optional: set[str] = frozenset()  # type: ignore[assignment]
            ) -> Mapping[str, Any]:
    if not isinstance(payload, Mapping):
        raise InvalidArgument("the input must be a JSON object")
    keys = set(payload)
    if not required <= keys or not keys <= required | optional:
        raise InvalidArgument(f"the input must have {sorted(required)} "
                              f"(optional {sorted(optional)}), got {sorted(keys)}")
    return payload


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name} must be an integer, got {value!r}")
    return value


def _sizes(value: Any) -> list[int]:
    if not isinstance(value, list):
        raise InvalidArgument("sizes must be an array of integers")
    sizes = [_int(v, "sizes[]") for v in value]
    if any(s < 0 for s in sizes):
        raise InvalidArgument("sizes must be non-negative")
    return sizes


def _decode_taint(value: Any) -> Any:
    """``{"$tainted": {"value", "origin"}}`` -> TaintedValue (taint.vector-encoding)."""
    if isinstance(value, Mapping):
        if _TAINT_KEY in value:
            inner = value[_TAINT_KEY]
            if len(value) != 1 or not isinstance(inner, Mapping) or set(inner) != {
                    "value", "origin"}:
                raise InvalidArgument('"$tainted" must be the only key, holding exactly '
                                      '"value" and "origin"')
            return TaintedValue(value=_decode_taint(inner["value"]), origin=inner["origin"])
        return {k: _decode_taint(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode_taint(v) for v in value]
    return value


def message_bytes_vector(payload: object) -> dict[str, Any]:
    p = _fields(payload, {"message"})
    return {"bytes": message_bytes(p["message"]), "canonical": canonical_json(p["message"])}


def compaction_plan_vector(payload: object) -> dict[str, Any]:
    p = _fields(payload, {"sizes", "afterMessages", "afterBytes", "keepRecent"})
    sizes = _sizes(p["sizes"])
    comp = Compaction(tool_id="summarize", after_messages=p["afterMessages"],
                      after_bytes=p["afterBytes"], keep_recent=p["keepRecent"])
    plan = compaction_plan(sizes, sum(sizes), after_messages=comp.after_messages,
                           after_bytes=comp.after_bytes, keep_recent=comp.keep_recent)
    return plan.to_json()


def kept_suffix_vector(payload: object) -> dict[str, Any]:
    p = _fields(payload, {"sizes", "afterBytes", "keepRecent"})
    after = _int(p["afterBytes"], "afterBytes")
    keep_recent = _int(p["keepRecent"], "keepRecent")
    # below 1, kept_suffix_for_bytes refuses them (argument.invalid): the vector has no guard
    return {"keep": kept_suffix_for_bytes(_sizes(p["sizes"]), after, keep_recent)}


def chunk_deltas_vector(payload: object) -> dict[str, Any]:
    p = _fields(payload, {"deltas", "minChars"}, {"flushAfter"})
    deltas = p["deltas"]
    if not isinstance(deltas, list):
        raise InvalidArgument("deltas must be an array of strings")
    marks = p.get("flushAfter", [])
    if not isinstance(marks, list):
        raise InvalidArgument("flushAfter must be an array of delta indexes")
    flush_after = {_int(k, "flushAfter[]") for k in marks}
    if any(not 0 <= k < len(deltas) for k in flush_after):
        raise InvalidArgument("flushAfter must hold indexes of deltas")
    batches: list[str] = []
    chunker = chunk_deltas(batches.append, min_chars=p["minChars"])
    for i, delta in enumerate(deltas):
        chunker.push(delta)
        if i in flush_after:  # spec: agent.chunk-flush -- then used again as new
            chunker.flush()
    chunker.flush()
    return {"batches": batches}


def claim_check_envelope_vector(payload: object) -> dict[str, Any]:
    p = _fields(payload, {"result"}, {"preview", "resolve"})
    preview = p.get("preview", True)
    if not isinstance(preview, bool):
        raise InvalidArgument("preview must be a boolean")
    store = MemoryContentStore()
    envelope = claim_check_envelope(_decode_taint(p["result"]), store, preview=preview)
    out: dict[str, Any] = {"envelope": envelope,
                           "stored": store.get(envelope["ref"]).decode("utf-8")}
    if "resolve" in p:  # spec: agent.claim-check-ref
        out["resolved"] = encode_value(resolve_claim_check(store, p["resolve"]))
    return out


def content_ref_vector(payload: object) -> dict[str, Any]:
    p = _fields(payload, {"value"})
    return {"ref": content_ref(_decode_taint(p["value"]))}


def tool_result_content_vector(payload: object) -> dict[str, Any]:
    p = _fields(payload, {"name", "result"})
    if not isinstance(p["name"], str) or not p["name"]:
        raise InvalidArgument("name must be a non-empty string")
    return {"content": tool_result_content(p["name"], p["result"])}


VECTOR_FUNCTIONS: dict[str, Callable[[object], dict[str, Any]]] = {
    "agent.message_bytes": message_bytes_vector,
    "agent.compaction_plan": compaction_plan_vector,
    "agent.kept_suffix": kept_suffix_vector,
    "agent.chunk_deltas": chunk_deltas_vector,
    "agent.claim_check_envelope": claim_check_envelope_vector,
    "agent.content_ref": content_ref_vector,
    "agent.tool_result_content": tool_result_content_vector,
    "agent.model_effect": model_effect_vector,
    "agent.summarize": summarize_vector,
    "agent.render_transcript": render_transcript_vector,
}
"""Conformance function name -> implementation, for the conformance runner."""
