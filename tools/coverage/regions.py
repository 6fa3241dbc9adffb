"""The reviewed Python-only regions of ``loom_ref/``: code no conformance function can reach,
or lines the suite runs whose every change only a Python caller can observe.

A region is declared once, in ``tools/coverage/python-only.toml``, as a table of the array
``region``:

```toml
[[region]]
file = "loom_ref/kernel/runtime.py"     # a file, or a folder ending in "/" (every file under it)
function = "Runtime.__init__"           # optional: a qualified name (a class keeps its methods)
lines = 'raise InvalidArgument'         # optional: only the lines whose text this regex finds
reason = "argument checks of the Python constructor: the protocol builds a Runtime itself"
pytest = ["tests/kernel/test_python_api.py::test_runtime_refuses_a_non_store"]
```

``lines`` narrows a region to the statements (of the file, or of the function) whose source
line the regular expression finds: the recorder's ``tape.`` calls inside the channel, say,
or the ``assert_never`` arms of an exhaustive match. A branch counts with its source line,
and a branch into a line of a region (the fall-through of an exhaustive match's last arm into
its ``assert_never`` arm, a test's way into a Python-only refusal) counts with that region.
Every entry names its reason and the pytest that covers it (a node id or a test file; the
file must exist, and a node id's function must be defined in it). Lines of a region are not
counted as uncovered, and the mutation tool draws no mutant from them. An entry that matches
no line (a renamed function, a removed file) is a problem, as is one without a reason or a
pytest: the list is a reviewed claim, not a place to hide lines.

A region holds either code no conformance function can reach (the CLI, the HTTP socket, a
test instrument, a check of a Python type the vector readers never let through), or lines
the suite runs whose every change only a Python caller can observe: an argument check that
every protocol path has already made before it (the call of ``_check_store(store)`` where
each vector builds its own store), a value only a Python caller reads (a helper's return
value every runtime ignores, a message the protocol never compares), a test instrument's
count. Such a region is narrowed by ``lines`` to exactly those statements, and its reason
says why no conformance function can observe a change there; the mutation tool then never
draws them (issue 30: a ``beyond-protocol`` entry of ``tools/mutation/reviewed/`` helps only
when its mutant is drawn again, and the suite score counts it a survivor). Its named pytest
must kill a change there: check that by hand (apply a mutant of the region, run the test; it
must fail) when the region is declared, since ``--check-pytest`` checks coverage only. Never
declare code whose change a protocol input could show (a vector function's input check, a
behaviour a case could ask for, an error code or detail member a reply carries), nor a line
one of whose changes could be shown although another could not (a deleted assignment the
next line reads, a comparison whose other side a case reaches): pin it with a case, or keep
the mutant a reviewed ``beyond-protocol`` entry.
"""

from __future__ import annotations

import ast
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

__all__ = ["REGIONS_FILE", "Region", "Regions", "functions_of"]

REGIONS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python-only.toml")


@attrs.frozen(kw_only=True)
class Region:
    """One reviewed region."""

    file: str
    function: str
    reason: str
    pytest: tuple[str, ...]
    lines: re.Pattern[str] | None = None

    def holds(self, rel: str, qualname: str, text: str | None = None) -> bool:
        """Does this region hold a line of ``rel`` inside ``qualname`` (whose source is
        ``text``; a region with ``lines`` holds no line whose text is not given)?"""
        if self.lines is not None and (text is None or not self.lines.search(text)):
            return False
        if self.file.endswith("/"):
            if not rel.startswith(self.file):
                return False
        elif rel != self.file:
            return False
        return not self.function or qualname == self.function or \
            qualname.startswith(self.function + ".")


def functions_of(source: str) -> list[tuple[int, int, str]]:
    """``(first line, last line, qualified name)`` of every function and class of
    ``source``, decorators included, outermost first."""
    out: list[tuple[int, int, str]] = []

    def walk(body: Iterable[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                name = prefix + node.name
                out.append((first, node.end_lineno or node.lineno, name))
                walk(node.body, name + ".")
            elif isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(node, field, [])
                    walk([s for h in inner for s in h.body] if field == "handlers" else inner,
                         prefix)

    walk(ast.parse(source).body, "")
    return out


def qualname_at(spans: list[tuple[int, int, str]], line: int) -> str:
    """The innermost function or class holding ``line`` (``<module>`` if none)."""
    best = "<module>"
    for first, last, name in spans:
        if first <= line <= last:
            best = name  # spans are outermost first, so the last match is the innermost
    return best


class Regions:
    """The reviewed file, loaded and checked."""

    def __init__(self, path: str = REGIONS_FILE, *, root: str | None = None) -> None:
        self.path = path
        self.root = root or os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(path))))
        with open(path, "rb") as f:
            doc: dict[str, Any] = tomllib.load(f)
        self.problems: list[str] = []
        self.regions: list[Region] = []
        for i, e in enumerate(doc.get("region", [])):
            where = f"{os.path.basename(path)} region {i + 1} ({e.get('file')} " \
                    f"{e.get('function', '')})"
            if not str(e.get("file", "")).startswith("loom_ref/"):
                self.problems.append(f"{where}: file must be a path under loom_ref/")
                continue
            if not str(e.get("reason", "")).strip():
                self.problems.append(f"{where}: no reason")
            tests = tuple(e.get("pytest", ()))
            if not tests:
                self.problems.append(f"{where}: names no pytest that covers it")
            for node in tests:
                self.problems += [f"{where}: {p}" for p in self._check_test(node)]
            pattern = None
            if "lines" in e:
                try:
                    pattern = re.compile(str(e["lines"]))
                except re.error as exc:
                    self.problems.append(f"{where}: lines is no regex ({exc})")
                    continue
            self.regions.append(Region(file=e["file"], function=e.get("function", ""),
                                       reason=str(e.get("reason", "")), pytest=tests,
                                       lines=pattern))
        self.used: set[int] = set()

    def _check_test(self, node: str) -> list[str]:
        file, _, name = node.partition("::")
        path = os.path.join(self.root, file)
        if not os.path.exists(path):
            return [f"pytest {node}: no such file"]
        if name and os.path.isfile(path):
            func = name.split("::")[-1].split("[")[0]
            with open(path, encoding="utf-8") as f:
                if not re.search(rf"^\s*def {re.escape(func)}\(", f.read(), re.M):
                    return [f"pytest {node}: no test {func} in {file}"]
        return []

    def region_of(self, rel: str, qualname: str, text: str | None = None) -> Region | None:
        for i, r in enumerate(self.regions):
            if r.holds(rel, qualname, text):
                self.used.add(i)
                return r
        return None

    def unused(self, files: Mapping[str, object]) -> list[str]:
        """Entries that held no line of ``files`` (call after every line was asked)."""
        return [f"{os.path.basename(self.path)}: region {r.file} {r.function} holds no "
                "line (renamed or removed?)"
                for i, r in enumerate(self.regions) if i not in self.used]
