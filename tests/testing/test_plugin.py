"""The pytest plugin: fixtures only, imports only pytest, works in another project."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from collections.abc import Generator
from pathlib import Path
from typing import Any

import loom_ref.testing.plugin as plugin
from loom_ref.effects import Effect
from loom_ref.journal import MemoryStore, Status
from loom_ref.kernel import EffectRegistry, ExecutionContext, Runtime, Workflow
from loom_ref.stream import FinishChunk, FinishReason, ScriptedAdapter
from loom_ref.testing import RecordingSink

ROOT = Path(__file__).resolve().parents[2]


def _double(ctx: ExecutionContext, n: Any) -> Generator[Any, Any, Any]:
    doubled = yield ctx.execute("double", n)
    return doubled


DOUBLE = Workflow(name="double", body=_double)


def test_runtime_factory_builds_a_runtime_on_an_in_memory_journal(loom_runtime: Any) -> None:
    warnings: list[str] = []
    runtime = loom_runtime(DOUBLE, [Effect(tool_id="double", execute=lambda ctx, input: input * 2)],
                           warnings=warnings)
    assert isinstance(runtime, Runtime) and isinstance(runtime.store, MemoryStore)
    result = runtime.start("double", 21, execution_id="e1")
    assert result.status is Status.COMPLETED and result.output == 42
    # a second runtime over the same store replays instead of calling again
    calls: list[Any] = []
    again = loom_runtime([DOUBLE], [Effect(tool_id="double",
                                           execute=lambda ctx, input: calls.append(input))],
                         store=runtime.store)
    assert again.recover("e1").output == 42 and calls == []
    assert warnings == []


def test_runtime_factory_takes_an_effect_host(loom_runtime: Any) -> None:
    registry = EffectRegistry([Effect(tool_id="double", execute=lambda ctx, input: -input)])
    assert loom_runtime(DOUBLE, registry).start("double", 2, execution_id="e").output == -2


def test_scripted_adapter_and_recording_sink_fixtures(
    loom_scripted_adapter: Any, loom_recording_sink: Any
) -> None:
    adapter = loom_scripted_adapter([FinishChunk(reason=FinishReason.stop())])
    assert isinstance(adapter, ScriptedAdapter)
    assert isinstance(loom_recording_sink, RecordingSink)
    loom_recording_sink({"delta": "hi"})
    assert loom_recording_sink.text == "hi"


def test_the_plugin_defines_fixtures_only() -> None:
    """Loaded by every pytest run: no hook may change collection or outcomes."""
    hooks = [name for name in vars(plugin) if name.startswith("pytest_")]
    assert hooks == []
    tree = ast.parse(Path(plugin.__file__).read_text())
    top_imports = [
        alias.name if isinstance(node, ast.Import) else node.module
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (node.names if isinstance(node, ast.Import) else [None])
    ]
    assert set(top_imports) <= {"__future__", "collections.abc", "typing", "pytest"}


PROJECT_TEST = """
from collections.abc import Generator
from typing import Any

from loom_ref.effects import Effect
from loom_ref.journal import Status
from loom_ref.kernel import Workflow
from loom_ref.stream import TextBlock, assemble


def body(ctx: Any, n: Any) -> Generator[Any, Any, Any]:
    return (yield ctx.execute("inc", n))


def test_uses_the_fixtures(loom_runtime, loom_scripted_adapter, loom_recording_sink):
    rt = loom_runtime(Workflow(name="w", body=body),
                      [Effect(tool_id="inc", execute=lambda ctx, input: input + 1)])
    assert rt.start("w", 1, execution_id="x").status is Status.COMPLETED
    assert loom_scripted_adapter([]).calls == []
    loom_recording_sink({"delta": "a"})
    loom_recording_sink({"delta": "", "reset": True, "attempt": 2})
    loom_recording_sink({"delta": "b"})
    loom_recording_sink.check("b")


def test_plain():
    assert True
"""


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_another_project_gets_the_fixtures_from_the_plugin(tmp_path: Path) -> None:
    (tmp_path / "test_project.py").write_text(textwrap.dedent(PROJECT_TEST))
    with_plugin = _pytest(tmp_path, "-p", "loom_ref.testing.plugin")
    assert with_plugin.returncode == 0, with_plugin.stdout + with_plugin.stderr
    assert "2 passed" in with_plugin.stdout
    # without the plugin the fixtures are unknown (so the run above really used the plugin)
    without = _pytest(tmp_path)
    assert without.returncode != 0
    assert "fixture 'loom_runtime' not found" in without.stdout
