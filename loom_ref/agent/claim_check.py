"""Claim-check for agent tools: a tool's recorded result becomes a reference plus a digest.

Spec: ``spec/agent.md`` § Claim-check; ADR 0087 amendments 2026-09-27 and 2026-10-31 (ADR
0054, ADR 0140). Rules:

- ``agent.claim-check-ref``: the result is stored in a content-addressed
  :class:`ContentStore`; its reference is ``"sha256:" + hex(sha256(canonical JSON))``
  (``agent.canonical-json``), the stored bytes being that canonical JSON. A tainted value
  inside the result is stored in the ``{"$tainted": {"value", "origin"}}`` form
  (``taint.vector-encoding``), so :func:`resolve_claim_check` gives it back tainted.
- ``agent.claim-check-envelope``: the value the effect returns -- the recorded value, and the
  one the model sees -- is the envelope ``{"__loomClaimCheck": true, "ref": <ref>, "digest":
  <digest>}``. The digest is the tool's declared projection ``digests[tool_id](result)`` when
  it has one; otherwise the default ``{"preview": <first 256 characters of the result's
  canonical JSON>, "truncated": <whether more followed>}``; with ``preview=False`` the envelope
  is a bare ref (no ``digest`` member).
- ``agent.claim-check-taint``: *"never for tainted content"*: a result that holds a
  ``TaintedValue`` anywhere gets no digest of any kind (declared or default); its envelope is
  fenced as ``{"__loomClaimCheck": true, "ref": ..., "tainted": true, "origins": [sorted
  origins]}``.
- ``agent.claim-check-model-view``: the model sees the envelope as JSON, never the resolved
  bytes: the loop JSON-stringifies it as-is into ``{"tool": ..., "result": <envelope>}``
  (resolving it would put the bytes into the next turn's journaled input, "undoing the very
  offload claim-check exists for"). Opting in withholds the tool's output from the model
  except its digest, so list only tools whose output the model does not need in full.
- Claim-check acts on what is journaled; deltas are never journaled, so it neither inspects
  nor rewrites them (ADR 0119 #5: "redactOutput and claim-check do NOT apply to deltas"); the
  middleware therefore does not set ``inspects_output``.

:class:`ClaimCheckMiddleware` is an R9 middleware (``handle(ctx, input, next)``) for the
governed runtime; for a host without middleware (the kernel's plain registry),
:meth:`ClaimCheckMiddleware.wrap` takes an ``Effect`` and returns it with its result
claim-checked (``agent.effect-forms``: one effect shape, whichever host). The seed's
configuration field ``execution.claimCheck.toolIds`` is loom-ref's
``claim_check_middleware(tool_ids=...)``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import attrs

from loom_ref.agent.canonical import canonical_json
from loom_ref.agent.errors import ContentNotFoundError
from loom_ref.effects.effect import Effect
from loom_ref.errors import InvalidArgument
from loom_ref.governance.taint import TaintedValue

if TYPE_CHECKING:
    from loom_ref.effects.context import EffectContext
    from loom_ref.effects.middleware.base import Next

__all__ = [
    "CLAIM_CHECK_CONFIG_FIELD",
    "CLAIM_CHECK_KEY",
    "PREVIEW_CHARS",
    "ClaimCheckMiddleware",
    "ContentStore",
    "MemoryContentStore",
    "claim_check_envelope",
    "claim_check_middleware",
    "content_ref",
    "is_claim_check_envelope",
    "resolve_claim_check",
]

CLAIM_CHECK_KEY = "__loomClaimCheck"
PREVIEW_CHARS = 256
TAINT_KEY = "$tainted"
#: The configuration an envelope-returning model or compaction tool must be removed from.
CLAIM_CHECK_CONFIG_FIELD = "claim_check_middleware(tool_ids=...)"


@runtime_checkable
class ContentStore(Protocol):
    """A content-addressed store: ``put`` returns the reference of ``data``; ``get`` returns
    the bytes of a reference (raise :class:`ContentNotFoundError` for an unknown one).
    (spec: agent.claim-check-ref)"""

    def put(self, data: bytes) -> str: ...

    def get(self, ref: str) -> bytes: ...


def _ref_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


class MemoryContentStore:
    """The in-memory content store: refs are ``sha256:<hex>`` of the stored bytes.
    (spec: agent.claim-check-ref)
    """

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}

    def put(self, data: bytes) -> str:
        if not isinstance(data, bytes):
            raise InvalidArgument(f"data must be bytes, got {type(data).__name__}")
        ref = _ref_of(data)
        self.blobs[ref] = data
        return ref

    def get(self, ref: str) -> bytes:
        if not isinstance(ref, str):
            raise InvalidArgument(f"ref must be a str, got {type(ref).__name__}")
        try:
            return self.blobs[ref]
        except KeyError:
            raise ContentNotFoundError(f"no content stored as {ref!r}", ref=ref) from None


def _encode(value: Any, origins: set[str]) -> Any:
    """The stored form: JSON values, each TaintedValue as ``{"$tainted": ...}``."""
    if isinstance(value, TaintedValue):
        origins.add(value.origin)
        return {TAINT_KEY: {"value": _encode(value.value, origins), "origin": value.origin}}
    if isinstance(value, Mapping):
        return {k: _encode(v, origins) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encode(v, origins) for v in value]
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        inner = value.get(TAINT_KEY)
        if len(value) == 1 and isinstance(inner, dict) and set(inner) == {"value", "origin"}:
            return TaintedValue(value=_decode(inner["value"]), origin=inner["origin"])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _stored(result: Any) -> tuple[str, bytes, list[str]]:
    """The canonical JSON text of ``result``'s stored form, its UTF-8 bytes and the taint
    origins it holds."""
    origins: set[str] = set()
    encoded = _encode(result, origins)
    try:
        text = canonical_json(encoded)
        return text, text.encode("utf-8"), sorted(origins)
    except (TypeError, ValueError) as exc:  # a lone surrogate (UnicodeEncodeError) included
        raise InvalidArgument(f"a claim-checked result must be made of JSON values: {exc}",
                              code="argument.claim-check-value") from None


def _check_store(store: object) -> None:
    """spec: errors.invalid-argument -- a content store has ``put`` and ``get``."""
    if not (callable(getattr(store, "put", None)) and callable(getattr(store, "get", None))):
        raise InvalidArgument(f"store must be a ContentStore (put(data) and get(ref)), got "
                              f"{type(store).__name__}")


def content_ref(value: Any) -> str:
    """The reference :class:`MemoryContentStore` gives ``value`` (spec: agent.claim-check-ref)."""
    return _ref_of(_stored(value)[1])


def claim_check_envelope(result: Any, store: ContentStore, *,
                         digest: Callable[[Any], Any] | None = None,
                         preview: bool = True) -> dict[str, Any]:
    """Store ``result`` and return its envelope (spec: agent.claim-check-envelope,
    agent.claim-check-taint)."""
    _check_store(store)
    if digest is not None and not callable(digest):
        raise InvalidArgument("digest must be callable or None")
    if not isinstance(preview, bool):
        raise InvalidArgument(f"preview must be a bool, got {preview!r}")
    text, data, origins = _stored(result)
    ref = store.put(data)
    envelope: dict[str, Any] = {CLAIM_CHECK_KEY: True, "ref": ref}
    if origins:  # spec: agent.claim-check-taint -- never a digest of tainted content
        envelope["tainted"] = True
        envelope["origins"] = origins
    elif digest is not None:
        envelope["digest"] = digest(result)
    elif preview:
        envelope["digest"] = {"preview": text[:PREVIEW_CHARS],
                              "truncated": len(text) > PREVIEW_CHARS}
    return envelope


def is_claim_check_envelope(value: object) -> bool:
    """Whether ``value`` is a claim-check envelope (``{"__loomClaimCheck": true, ...}``).
    (spec: agent.claim-check-envelope)
    """
    return isinstance(value, Mapping) and value.get(CLAIM_CHECK_KEY) is True


def resolve_claim_check(store: ContentStore, envelope: Mapping[str, Any]) -> Any:
    """The value an envelope stands for, tainted parts tainted again. For an application that
    needs the full result outside the model-facing transcript (spec: agent.claim-check-ref)."""
    _check_store(store)
    if not is_claim_check_envelope(envelope) or not isinstance(envelope.get("ref"), str):
        raise InvalidArgument("not a claim-check envelope")
    return _decode(json.loads(store.get(envelope["ref"]).decode("utf-8")))


class ClaimCheckMiddleware:
    """Replaces the result of each tool in ``tool_ids`` by its envelope (module rules).
    (spec: agent.claim-check-envelope)
    """

    inspects_output = False  # ADR 0119 #5: claim-check acts on what is journaled, not deltas
    delta_guard = None

    def __init__(self, store: ContentStore, tool_ids: Iterable[str], *,
                 digests: Mapping[str, Callable[[Any], Any]] | None = None,
                 preview: bool = True) -> None:
        _check_store(store)
        if isinstance(tool_ids, str | bytes) or not isinstance(tool_ids, Iterable):
            raise InvalidArgument(f"tool_ids must be a collection of tool ids (not one string), "
                                  f"got {type(tool_ids).__name__}")
        ids = tuple(tool_ids)
        if not ids or not all(isinstance(t, str) and t for t in ids):
            raise InvalidArgument("tool_ids must be non-empty strings (at least one)")
        if digests is not None and not isinstance(digests, Mapping):
            raise InvalidArgument(f"digests must map tool ids to callables, got "
                                  f"{type(digests).__name__}")
        table = dict(digests or {})
        for tool_id, fn in table.items():
            if tool_id not in ids:
                raise InvalidArgument(f"digests names {tool_id!r}, which is not in tool_ids")
            if not callable(fn):
                raise InvalidArgument(f"digests[{tool_id!r}] must be callable")
        if not isinstance(preview, bool):
            raise InvalidArgument(f"preview must be a bool, got {preview!r}")
        self.store = store
        self.tool_ids = frozenset(ids)
        self.digests = table
        self.preview = preview

    def check(self, tool_id: str, result: Any) -> Any:
        """The value recorded for ``tool_id``'s ``result``: its envelope when the tool is
        claim-checked, else the result unchanged."""
        if not isinstance(tool_id, str):  # spec: errors.invalid-argument
            raise InvalidArgument(f"tool_id must be a str, got {type(tool_id).__name__}")
        if tool_id not in self.tool_ids:
            return result
        return claim_check_envelope(result, self.store, digest=self.digests.get(tool_id),
                                    preview=self.preview)

    def handle(self, ctx: EffectContext, input: Any, next: Next) -> Any:
        """The R9 middleware form (``effects.middleware-order``)."""
        return self.check(ctx.tool_id, next(ctx, input))

    def wrap(self, effect: Effect) -> Effect:
        """``effect`` with its result claim-checked, for a host without middleware (the
        plain registry): the same rule as :meth:`handle` (spec: agent.effect-forms,
        agent.claim-check-envelope). Its tool id must be in ``tool_ids``."""
        if not isinstance(effect, Effect):
            raise InvalidArgument(f"wrap takes an Effect, got {type(effect).__name__}")
        tool_id = effect.tool_id
        if tool_id not in self.tool_ids:
            raise InvalidArgument(f"{tool_id!r} is not in tool_ids")
        inner = effect.execute

        def claim_checked(ctx: EffectContext, input: Any) -> Any:
            return self.check(tool_id, inner(ctx, input))

        return attrs.evolve(effect, execute=claim_checked)


def claim_check_middleware(store: ContentStore, tool_ids: Iterable[str], *,
                           digests: Mapping[str, Callable[[Any], Any]] | None = None,
                           preview: bool = True) -> ClaimCheckMiddleware:
    """The claim-check opt-in for agent tools (ADR 0087 amendment 2026-10-31).
    (spec: agent.claim-check-envelope)
    """
    return ClaimCheckMiddleware(store, tool_ids, digests=digests, preview=preview)
