"""The kit's pytest plugin: fixtures for any project that installs loom_ref.

Registered as a ``pytest11`` entry point, so pytest loads it in EVERY run where loom_ref is
installed. Rules, therefore:

- At module level it imports pytest only; everything else is imported inside the fixture
  that needs it, so loading the plugin costs nothing and never needs hypothesis.
- It defines fixtures only: no hook, no option, nothing that changes collection, ordering or
  outcomes. A project that uses none of the fixtures runs exactly as without the plugin.
- Fixture names start with ``loom_`` so they cannot shadow a project's own fixtures by
  accident (a project's fixture of the same name wins anyway: conftest overrides plugins).

Fixtures:

- ``loom_runtime`` -- a factory: ``loom_runtime(workflows, effects=None, *, store=None,
  warnings=None)`` builds ``loom_ref.kernel.Runtime(store=MemoryStore(), effects=...,
  workflows=...)``. ``effects`` is an effect host (``EffectRegistry``, ``EffectRuntime``) or
  an iterable of ``Effect`` records made into an ``EffectRegistry`` (spec:
  kernel.effect-forms); ``warnings`` (a list) collects what the runtime warns. The store is
  the runtime's ``.store``.
- ``loom_scripted_adapter`` -- a factory of ``loom_ref.stream.ScriptedAdapter`` (same
  arguments: one chunk list, or one script per call).
- ``loom_recording_sink`` -- a fresh
  :class:`~loom_ref.testing.reconstruction.RecordingSink`: a delta sink that records what it
  is handed and reconstructs the text after resets (``sink.text``, ``sink.check(final)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

__all__ = ["loom_recording_sink", "loom_runtime", "loom_scripted_adapter"]


@pytest.fixture
def loom_runtime() -> Callable[..., Any]:
    """A factory of kernel runtimes over a fresh in-memory journal."""
    from collections.abc import Iterable, Mapping

    from loom_ref.journal import MemoryStore
    from loom_ref.kernel import EffectRegistry, Runtime, Workflow

    def make(
        workflows: Workflow | Iterable[Workflow] | Mapping[str, Workflow],
        effects: Any = None,
        *,
        store: Any = None,
        warnings: list[str] | None = None,
    ) -> Runtime:
        if isinstance(workflows, Workflow):
            workflows = [workflows]
        if effects is None:
            effects = EffectRegistry()
        elif not callable(getattr(effects, "invoke", None)):  # not a host: Effect records
            effects = EffectRegistry(effects)
        return Runtime(
            store=store if store is not None else MemoryStore(),
            effects=effects,
            workflows=workflows,
            on_warn=warnings.append if warnings is not None else None,
        )

    return make


@pytest.fixture
def loom_scripted_adapter() -> Callable[..., Any]:
    """A factory of ``ScriptedAdapter`` (spec: stream.scripted)."""
    from loom_ref.stream import ScriptedAdapter

    return ScriptedAdapter


@pytest.fixture
def loom_recording_sink() -> Any:
    """A fresh recording delta sink; pass it as ``on_delta``. (More sinks, or one told to
    fail: ``loom_ref.testing.RecordingSink(fail_on=n)``.)"""
    from loom_ref.testing.reconstruction import RecordingSink

    return RecordingSink()
