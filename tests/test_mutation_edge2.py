"""The second edge-mutant table (``tools/mutation/edge2.py``, issue 30) stays true to the code
and the spec: every entry names a change that still applies exactly once, changes something,
still compiles, and breaks a rule the spec has an anchor for; every layer has at least ten,
spread over several rules; and the run wires it in as ``--edge2``."""

from __future__ import annotations

import collections
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tools.mutation.__main__ import _chosen, _parser  # noqa: E402
from tools.mutation.edge2 import EDGE2, edge2_mutants  # noqa: E402
from tools.mutation.population import LAYERS, edge2, layer_of  # noqa: E402
from tools.mutation.sites import apply  # noqa: E402


def _anchors() -> set[str]:
    found: set[str] = set()
    spec = os.path.join(ROOT, "spec")
    for name in os.listdir(spec):
        if name.endswith(".md"):
            with open(os.path.join(spec, name), encoding="utf-8") as f:
                found.update(re.findall(r"\{#([a-z0-9.-]+)[ }]", f.read()))
    return found


def test_every_entry_applies_once_and_changes_the_code() -> None:
    mutants = edge2_mutants(ROOT)
    assert len(mutants) == len(EDGE2)  # none stale: each old text occurs exactly once
    for (rel, old, new, _rule), m in zip(EDGE2, mutants, strict=True):
        assert old != new, rel
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            source = f.read()
        assert source.count(old) == 1, (rel, old)
        mutated = apply(source, m)
        assert mutated != source
        assert mutated == source.replace(old, new)
        compile(mutated, rel, "exec")  # a mutant that does not compile measures nothing


def test_entries_are_distinct_and_in_a_layer() -> None:
    keys = [(rel, old) for rel, old, _new, _rule in EDGE2]
    assert len(set(keys)) == len(keys)
    assert len({m.id for m in edge2_mutants(ROOT)}) == len(EDGE2)
    assert all(m.op == "edge2" for m in edge2_mutants(ROOT))
    for rel, _old, _new, _rule in EDGE2:
        assert layer_of(rel) in LAYERS


def test_every_rule_is_a_spec_anchor() -> None:
    anchors = _anchors()
    missing = sorted({rule for _rel, _old, _new, rule in EDGE2 if rule not in anchors})
    assert missing == []


@pytest.mark.parametrize("layer", LAYERS)
def test_at_least_ten_per_layer_over_several_rules(layer: str) -> None:
    mine = edge2(ROOT, layer)
    assert len(mine) >= 10
    assert all(m.op == "edge2" and m.rule for m in mine)
    rules = collections.Counter(m.rule for m in mine)
    assert len(rules) >= 5  # spread over rules, not ten variations of one line


def test_the_run_selects_them_with_edge2_alone() -> None:
    args = _parser().parse_args(["--edge2", "--no-random"])
    chosen = _chosen(args)
    assert len(chosen) == len(EDGE2)
    assert {kind for _layer, kind, _m in chosen} == {"edge2"}
    assert sorted(m.id for _layer, _kind, m in chosen) == sorted(
        m.id for m in edge2_mutants(ROOT))
