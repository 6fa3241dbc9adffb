"""tools/upstream/: the dsh-llm adapter and its README agree, and the folder builds nothing.

The adapter itself needs a deepseek-harness checkout and tsx, so it is run on demand, never
here; these checks need neither (no network, no checkout): the functions the adapter declares
are the ones its README maps and capabilities the suite knows, every translation the adapter
cites is described, the recorded result is well-formed (its counts add up and its failing
cases are as many as its failures), and the folder holds no manifest or copy of upstream.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "tools" / "upstream"
ADAPTER = FOLDER / "dsh-llm-adapter.ts"
README = FOLDER / "README.md"


def _section(text: str, heading: str) -> str:
    """The body of a `## heading` section of the README, up to the next `## `."""
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def _table_rows(section: str) -> list[list[str]]:
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    return cells[2:]  # past the header and its rule


def _declared_functions() -> set[str]:
    body = re.search(r"const FUNCTIONS[^{]*\{(.*?)\n\};", ADAPTER.read_text(), re.S)
    assert body, "the adapter has no FUNCTIONS table"
    return set(re.findall(r'"([a-z_.]+)":', body.group(1)))


def test_the_folder_holds_the_adapter_and_nothing_that_builds_upstream() -> None:
    names = {p.name for p in FOLDER.iterdir()}
    assert names == {"README.md", "dsh-llm-adapter.ts", "resolve-hook.mjs"}
    for forbidden in ("package.json", "package-lock.json", "pnpm-lock.yaml", "node_modules"):
        assert forbidden not in names


def test_declared_functions_are_the_readme_s_and_known_capabilities() -> None:
    declared = _declared_functions()
    table = _section(README.read_text(), "What each function runs")
    mapped = {row[0].strip("`") for row in _table_rows(table)}
    assert declared == mapped == {"stream.check", "stream.enforce", "stream.assemble",
                                  "stream.openai_map", "stream.openai_fold",
                                  "stream.attribution_headers"}
    known = json.loads((ROOT / "conformance" / "capabilities.json").read_text())["capabilities"]
    for name in declared:
        assert known[name]["kind"] == "function", name


def test_every_translation_the_adapter_cites_is_described() -> None:
    cited = {int(n) for n in re.findall(r"\bT(\d+)\b", ADAPTER.read_text())}
    section = _section(README.read_text(), "Translations")
    described = [int(n) for n in re.findall(r"^- \*\*T(\d+),", section, re.M)]
    assert described == list(range(1, len(described) + 1)), "numbered T1, T2, ... in order"
    assert cited == set(described)


def test_the_recorded_result_is_well_formed() -> None:
    record = _section(README.read_text(), "Recorded result")
    assert re.search(r"upstream commit `[0-9a-f]{40}`", record)
    assert re.search(r"suite \d+\.\d+\.\d+", record)
    rows = _table_rows(record)
    counts = {row[0]: [int(c) for c in row[1:]] for row in rows}
    total = counts.pop("total")
    assert [sum(col) for col in zip(*counts.values(), strict=True)] == total
    assert all(g.startswith("stream.") for g in counts)
    listed = dict(re.findall(r"^- (stream\.[a-z.]+): (.*?)(?=^- |\n\n)", record, re.M | re.S))
    failing = {g: c[1] for g, c in counts.items() if c[1]}
    assert set(listed) == set(failing)
    for group, names in listed.items():
        ids = [n.strip() for n in names.replace("\n", " ").split(",")]
        assert all(re.fullmatch(r"[a-z0-9-]+", n) for n in ids), group
        assert len(set(ids)) == len(ids) == failing[group], group


@pytest.mark.skipif(shutil.which("node") is None, reason="no node on this machine")
def test_the_resolve_hook_parses() -> None:
    done = subprocess.run(["node", "--check", str(FOLDER / "resolve-hook.mjs")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
