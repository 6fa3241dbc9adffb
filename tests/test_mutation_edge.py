"""The edge-mutant tables (``tools/mutation/edge.py`` and the second and third, independent
``tools/mutation/edge2.py`` and ``tools/mutation/edge3.py``, issue 30) stay true to the code
and the spec: every entry names a change that still applies exactly once, changes something,
still compiles, and breaks a rule the spec has an anchor for; every layer has at least ten,
spread over several rules; and the run selects each table alone (``--edge``, ``--edge2``,
``--edge3``)."""

from __future__ import annotations

import collections
import os
import re
import sys
from collections.abc import Callable

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tools.mutation.__main__ import _chosen, _parser  # noqa: E402
from tools.mutation.edge import EDGE, edge_mutants  # noqa: E402
from tools.mutation.edge2 import EDGE2, edge2_mutants  # noqa: E402
from tools.mutation.edge3 import EDGE3, edge3_mutants  # noqa: E402
from tools.mutation.population import LAYERS, edge, edge2, edge3, layer_of  # noqa: E402
from tools.mutation.sites import Mutant, apply  # noqa: E402

Table = list[tuple[str, str, str, str]]
#: operator -> (its table, the table as mutants, the mutants of one layer)
TABLES: dict[str, tuple[Table, Callable[[str], list[Mutant]],
                        Callable[[str, str], list[Mutant]]]] = {
    "edge": (EDGE, edge_mutants, edge),
    "edge2": (EDGE2, edge2_mutants, edge2),
    "edge3": (EDGE3, edge3_mutants, edge3),
}


def _anchors() -> set[str]:
    found: set[str] = set()
    spec = os.path.join(ROOT, "spec")
    for name in os.listdir(spec):
        if name.endswith(".md"):
            with open(os.path.join(spec, name), encoding="utf-8") as f:
                found.update(re.findall(r"\{#([a-z0-9.-]+)[ }]", f.read()))
    return found


@pytest.mark.parametrize("op", TABLES)
def test_every_entry_applies_once_and_changes_the_code(op: str) -> None:
    table, mutants_of, _layer = TABLES[op]
    mutants = mutants_of(ROOT)
    assert len(mutants) == len(table)  # none stale: each old text occurs exactly once
    for (rel, old, new, _rule), m in zip(table, mutants, strict=True):
        assert old != new, rel
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            source = f.read()
        assert source.count(old) == 1, (rel, old)
        mutated = apply(source, m)
        assert mutated != source
        assert mutated == source.replace(old, new)
        compile(mutated, rel, "exec")  # a mutant that does not compile measures nothing


@pytest.mark.parametrize("op", TABLES)
def test_entries_are_distinct_and_in_a_layer(op: str) -> None:
    table, mutants_of, _layer = TABLES[op]
    keys = [(rel, old) for rel, old, _new, _rule in table]
    assert len(set(keys)) == len(keys)
    assert len({m.id for m in mutants_of(ROOT)}) == len(table)
    assert all(m.op == op for m in mutants_of(ROOT))
    for rel, _old, _new, _rule in table:
        assert layer_of(rel) in LAYERS


@pytest.mark.parametrize("op", TABLES)
def test_every_rule_is_a_spec_anchor(op: str) -> None:
    anchors = _anchors()
    missing = sorted({rule for _rel, _old, _new, rule in TABLES[op][0] if rule not in anchors})
    assert missing == []


@pytest.mark.parametrize("op", TABLES)
@pytest.mark.parametrize("layer", LAYERS)
def test_at_least_ten_per_layer_over_several_rules(op: str, layer: str) -> None:
    mine = TABLES[op][2](ROOT, layer)
    assert len(mine) >= 10
    assert all(m.op == op and m.rule for m in mine)
    rules = collections.Counter(m.rule for m in mine)
    assert len(rules) >= 5  # spread over rules, not ten variations of one line


@pytest.mark.parametrize("op", TABLES)
def test_the_run_selects_a_table_alone(op: str) -> None:
    table, mutants_of, _layer = TABLES[op]
    chosen = _chosen(_parser().parse_args([f"--{op}", "--no-random"]))
    assert len(chosen) == len(table)
    assert {kind for _layer, kind, _m in chosen} == {op}
    assert sorted(m.id for _layer, _kind, m in chosen) == sorted(
        m.id for m in mutants_of(ROOT))


def test_a_mutant_on_a_later_line_of_a_statement_is_named_by_its_first_line() -> None:
    """Issue 30: the sample is drawn from the lines the suite runs, which coverage names by a
    statement's first line; a mutant on a statement's second line belongs to that statement."""
    from tools.mutation.__main__ import statement_starts

    source = ("x = f(1,\n"        # 1
              "      2)\n"        # 2
              "if (x and\n"       # 3
              "        y):\n"     # 4
              "    z = [1,\n"     # 5
              "         2]\n"     # 6
              "else:\n"           # 7
              "    pass\n")       # 8
    starts = statement_starts(source)
    assert starts[2] == 1 and starts[4] == 3 and starts[6] == 5 and starts[8] == 8
    assert starts[3] == 3 and starts[5] == 5


def test_a_scoring_process_that_runs_away_with_memory_fails_fast() -> None:
    # tools/mutation/run.py: a mutant whose allocation runs away (one governance mutant of a
    # sample took 18 GiB before it was killed by hand) fails with MemoryError under the cap
    import subprocess

    from tools.mutation.run import limit_memory

    grow = "x = bytearray(6 << 30); print('allocated')"
    proc = subprocess.run([sys.executable, "-c", grow], capture_output=True, text=True,
                          preexec_fn=limit_memory, timeout=60)
    assert proc.returncode != 0
    assert "MemoryError" in proc.stderr
    fits = subprocess.run([sys.executable, "-c", "x = bytearray(64 << 20); print('ok')"],
                          capture_output=True, text=True, preexec_fn=limit_memory, timeout=60)
    assert (fits.returncode, fits.stdout.strip()) == (0, "ok")
