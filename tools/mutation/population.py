"""Which mutants a run scores: the population of a layer (or file, or function), the seeded
sample drawn from it, the semantic and edge mutants (both sets), and the reviewed lists (equivalent,
beyond the protocol)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .edge import edge_mutants
from .edge2 import edge2_mutants
from .edge3 import edge3_mutants
from .semantic import semantic_mutants
from .sites import Mutant, mutants_of

__all__ = ["LAYERS", "Reviewed", "edge", "edge2", "edge3", "layer_of", "population", "sample",
           "semantic"]

LAYERS = ("kernel", "journal", "effects", "governance", "stream", "agent")

REVIEWED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reviewed")


def layer_of(rel: str) -> str:
    """``loom_ref/<layer>/...`` -> ``<layer>``."""
    parts = rel.split("/")
    if len(parts) < 3 or parts[0] != "loom_ref" or parts[1] not in LAYERS:
        raise ValueError(f"{rel} is not in a layer ({', '.join(LAYERS)})")
    return parts[1]


def _files(root: str, layer: str) -> list[str]:
    base = os.path.join(root, "loom_ref", layer)
    found = []
    for folder, dirs, names in os.walk(base):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".py"):
                found.append(os.path.relpath(os.path.join(folder, name), root)
                             .replace(os.sep, "/"))
    return found


def population(root: str, layer: str, *, file: str | None = None,
               function: str | None = None) -> list[Mutant]:
    """Every random mutant of ``layer``, in file and source order; ``file`` keeps one file
    (a path relative to ``root``), ``function`` the mutants inside one qualified name (or
    its methods: ``_Drive`` keeps ``_Drive.serve``)."""
    out: list[Mutant] = []
    for rel in _files(root, layer):
        if file is not None and rel != file:
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            source = f.read()
        for m in mutants_of(rel, source):
            if function is None or m.function == function or \
                    m.function.startswith(function + "."):
                out.append(m)
    return out


def _rank(seed: int, mutant: Mutant) -> bytes:
    return hashlib.sha256(f"{seed}\0{mutant.key}".encode()).digest()


def sample(mutants: Sequence[Mutant], n: int | None, seed: int) -> list[Mutant]:
    """``n`` of ``mutants`` (all of them if ``n`` is None or not smaller), in population
    order: those whose keys rank first by ``sha256(seed, key)``. A key does not move when
    other lines of its file do, so an edit elsewhere leaves the sample as it was but for the
    mutants it adds or removes: the same seed measures the same mutants before and after."""
    if n is None or n >= len(mutants):
        return list(mutants)
    picked = {m.key for m in sorted(mutants, key=lambda m: _rank(seed, m))[:n]}
    return [m for m in mutants if m.key in picked]


def semantic(root: str, layer: str) -> list[Mutant]:
    """The hand-written semantic mutants of ``layer``."""
    return [m for m in semantic_mutants(root) if layer_of(m.file) == layer]


def edge(root: str, layer: str) -> list[Mutant]:
    """The hand-written edge mutants of ``layer`` (issue 30: ``tools/mutation/edge.py``)."""
    return [m for m in edge_mutants(root) if layer_of(m.file) == layer]


def edge2(root: str, layer: str) -> list[Mutant]:
    """The second set of hand-written edge mutants of ``layer`` (issue 30:
    ``tools/mutation/edge2.py``, written without seeing the cases or the first set)."""
    return [m for m in edge2_mutants(root) if layer_of(m.file) == layer]


def edge3(root: str, layer: str) -> list[Mutant]:
    """The third set of hand-written edge mutants of ``layer`` (issue 30:
    ``tools/mutation/edge3.py``, written without seeing the cases or the first two sets)."""
    return [m for m in edge3_mutants(root) if layer_of(m.file) == layer]


class Reviewed:
    """The reviewed lists, one file per layer (``reviewed/<layer>.json``), each with two lists:

    - ``equivalent``: mutants no program can tell from the original, each with the reason;
    - ``beyond-protocol``: mutants whose change only a Python caller can observe, on a line
      that cannot be declared Python-only as a whole because another change of it is one the
      protocol can show (a deleted assignment the next line reads, a comparison's other
      side). Lines every change of which only a Python caller can observe are not listed
      here: they are regions of ``tools/coverage/python-only.toml`` (issue 30), which the
      sampler never draws from, since an entry here counts only when its mutant is drawn
      again and the suite score counts it a survivor. Each entry names the reason and the
      pytest node ids (``pytest``) that kill it; a run scores such a mutant with the suite
      first (a kill there wins) and then with those tests, and the mutant counts as
      ``beyond`` only if they kill it (else it is a survivor, with a warning): the list is a
      checked claim, not a place to hide survivors.

    An entry names a mutant by its key (file, function, line text, change).
    """

    KINDS = ("equivalent", "beyond-protocol")

    def __init__(self, folder: str = REVIEWED_DIR) -> None:
        self.folder = folder
        self.entries: list[dict[str, Any]] = []
        for layer in LAYERS:
            path = os.path.join(folder, f"{layer}.json")
            if not os.path.exists(path):
                continue
            with open(path, encoding="utf-8") as f:
                doc: dict[str, Any] = json.load(f)
            unknown = set(doc) - set(self.KINDS)
            if unknown:
                raise ValueError(f"{path}: unknown list {sorted(unknown)[0]!r}")
            for kind in self.KINDS:
                for e in doc.get(kind, []):
                    if not str(e.get("reason", "")).strip():
                        raise ValueError(f"{path}: {e.get('key')} has no reason")
                    if layer_of(e["file"]) != layer:
                        raise ValueError(f"{path}: {e['key']} is of {e['file']}, not {layer}")
                    if kind == "beyond-protocol" and not e.get("pytest"):
                        raise ValueError(f"{path}: {e['key']} names no pytest that kills it")
                    self.entries.append({**e, "kind": kind})
        self.by_key: Mapping[str, dict[str, Any]] = {e["key"]: e for e in self.entries}
        if len(self.by_key) != len(self.entries):
            raise ValueError(f"{folder}: a key is listed twice")

    def entry(self, mutant: Mutant) -> dict[str, Any] | None:
        return self.by_key.get(mutant.key)

    def reason(self, mutant: Mutant) -> str | None:
        """The reason, if ``mutant`` is a reviewed equivalent."""
        entry = self.by_key.get(mutant.key)
        return None if entry is None or entry["kind"] != "equivalent" else str(entry["reason"])

    def stale(self, population: Iterable[Mutant]) -> list[dict[str, Any]]:
        """Entries of the given layers' files that no mutant of ``population`` matches."""
        mutants = list(population)
        keys = {m.key for m in mutants}
        files = {m.file for m in mutants}
        return [e for e in self.entries if e["file"] in files and e["key"] not in keys]
