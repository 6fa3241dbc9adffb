"""Which mutants a run scores: the population of a layer (or file, or function), the seeded
sample drawn from it, the semantic mutants, and the reviewed list of equivalent ones."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .semantic import semantic_mutants
from .sites import Mutant, mutants_of

__all__ = ["LAYERS", "Equivalents", "layer_of", "population", "sample"]

LAYERS = ("kernel", "journal", "effects", "governance", "stream", "agent")

EQUIVALENT_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "equivalent.json")


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


class Equivalents:
    """The reviewed list of equivalent mutants (``equivalent.json``): each entry names a
    mutant by its key (file, function, line text, change) and says why no program can tell
    it from the original."""

    def __init__(self, path: str = EQUIVALENT_FILE) -> None:
        self.path = path
        with open(path, encoding="utf-8") as f:
            doc: dict[str, Any] = json.load(f)
        self.entries: list[dict[str, Any]] = doc["equivalent"]
        self.by_key: Mapping[str, dict[str, Any]] = {e["key"]: e for e in self.entries}
        if len(self.by_key) != len(self.entries):
            raise ValueError(f"{path}: a key is listed twice")
        for e in self.entries:
            if not str(e.get("reason", "")).strip():
                raise ValueError(f"{path}: {e['key']} has no reason")

    def reason(self, mutant: Mutant) -> str | None:
        entry = self.by_key.get(mutant.key)
        return None if entry is None else str(entry["reason"])

    def stale(self, population: Iterable[Mutant]) -> list[dict[str, Any]]:
        """Entries of the given layers' files that no mutant of ``population`` matches."""
        mutants = list(population)
        keys = {m.key for m in mutants}
        files = {m.file for m in mutants}
        return [e for e in self.entries if e["file"] in files and e["key"] not in keys]
