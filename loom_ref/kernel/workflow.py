"""A workflow: a named runner body plus the schemas its gates' resume payloads must meet.

Spec: ``spec/kernel.md`` (``kernel.body-generator``, ``kernel.resume-schema``). The body is a
generator function ``body(ctx, input)``; ``resume_schemas`` maps a gate id to a schema in the
subset :mod:`loom_ref.schema` supports (the seeds pair a gate with ``flow$({ resumeSchemas })``,
ADR 0077, as quoted in ADR 0087 D4).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator, Mapping
from typing import Any

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.schema import check_schema

__all__ = ["Body", "Workflow"]

#: A runner body: a generator function of (ctx, input) returning the execution's output.
Body = Callable[[Any, Any], Generator[Any, Any, Any]]


def _check_body(_: object, __: object, body: Body) -> None:
    if not inspect.isgeneratorfunction(body):
        raise InvalidArgument(
            "a workflow body must be a generator function body(ctx, input) that yields "
            f"commands, got {body!r}", code="argument.body",
        )


def _check_name(name: object) -> None:
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"a workflow name must be a non-empty string, got {name!r}",
                              code="argument.workflow")


def _check_schemas(_: object, __: object, schemas: Mapping[str, Any]) -> None:
    if not isinstance(schemas, Mapping):
        raise InvalidArgument(f"resume_schemas must map gate ids to schemas, got {schemas!r}")
    for gate_id, schema in schemas.items():
        if not isinstance(gate_id, str) or not gate_id:  # spec: kernel.resume-schema, kernel.ids
            raise InvalidArgument(f"resume_schemas keys are gate ids (non-empty strings), got "
                                  f"{gate_id!r}", code="argument.id")
        check_schema(schema, where=f"resume_schemas[{gate_id!r}]")


@attrs.frozen(kw_only=True)
class Workflow:
    """``name`` is journaled in EXECUTION_STARTED so recovery can find the body again.
    (spec: kernel.resume-schema)
    """

    name: str = attrs.field(validator=lambda _, __, v: _check_name(v))
    body: Body = attrs.field(validator=_check_body)
    resume_schemas: Mapping[str, Any] = attrs.field(factory=dict, validator=_check_schemas)
