"""Layers depend downward only (spec/README.md): a lower layer never imports a higher one.

The table says which top-level parts of ``loom_ref`` each part may import; every ``import``
and ``from ... import`` in every module (at any depth, including inside functions) is checked.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "loom_ref"

BASE = {"enums", "errors", "schema", "signals"}
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "schema": {"errors"},
    "signals": {"errors"},
    "enums": {"errors"},
    "stream": BASE,
    "governance": BASE,
    "journal": BASE,
    "effects": BASE | {"governance", "stream"},
    "kernel": BASE | {"journal", "effects", "governance", "stream"},
    "agent": BASE | {"kernel", "journal", "effects", "governance", "stream"},
    # beside the stack: they use it from outside, through the public API
    "conformance": BASE | {"agent", "kernel", "journal", "effects", "governance", "stream"},
    "testing": BASE | {"agent", "kernel", "journal", "effects", "governance", "stream",
                       "conformance"},
    "cli": BASE | {"agent", "kernel", "journal", "effects", "governance", "stream",
                   "conformance", "testing"},
}


def part_of(module_path: Path) -> str:
    rel = module_path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def imported_parts(module_path: Path) -> set[str]:
    tree = ast.parse(module_path.read_text(), filename=str(module_path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {n.split(".")[1] for n in names if n.startswith("loom_ref.")}


def test_every_part_is_in_the_table() -> None:
    parts = {part_of(p) for p in PACKAGE.rglob("*.py")} - {"__init__"}
    assert parts <= set(ALLOWED), parts - set(ALLOWED)


def test_no_module_imports_a_higher_layer() -> None:
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        part = part_of(path)
        if part == "__init__":
            continue
        for imported in imported_parts(path) - {part}:
            if imported not in ALLOWED[part]:
                violations.append(f"{path.relative_to(PACKAGE)} imports loom_ref.{imported}")
    assert violations == []


def test_the_checker_sees_imports() -> None:
    """The check can fail: the kernel really does import the journal."""
    assert "journal" in imported_parts(PACKAGE / "kernel" / "runtime.py")
