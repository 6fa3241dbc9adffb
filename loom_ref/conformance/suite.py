"""The suite as a user meets it: where its files are, which version it is, what it knows.

Rules (``conformance/INTERPRETING.md`` sections 1, 4 and 13):

- The suite is the directory ``conformance/`` (``cases/``, ``schemas/``, ``INTERPRETING.md``,
  ``VERSION``, ``capabilities.json``, ``adapters/``) beside ``spec/``. The repository holds the
  one copy; a wheel carries the same files as package data under ``loom_ref/_suite/``
  (``pyproject.toml`` maps the two directories there), so an installed ``loom-ref`` finds
  them without a checkout. :func:`locate` looks in the installed package first, then beside
  the package in a checkout (an editable install); never in the current directory, which may
  hold another project's ``conformance/``.
- ``VERSION`` is the suite's semantic version; its major number is the protocol version.
- ``capabilities.json`` names every capability the suite knows. A start reply naming any other
  is a protocol problem of the implementation, never silently ignored.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import attrs

from loom_ref.errors import ConformanceError

__all__ = ["Suite", "locate", "select_suite", "suite_at", "with_cases"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../loom_ref


@attrs.frozen(kw_only=True)
class Suite:
    """One suite directory and the facts read from it."""

    root: str
    version: str
    capabilities: Mapping[str, Mapping[str, Any]]
    spec_dir: str
    cases_dir: str

    @property
    def schemas_dir(self) -> str:
        return os.path.join(self.root, "schemas")

    @property
    def protocol(self) -> int:
        """The protocol version: the major number of :attr:`version`."""
        return int(self.version.split(".", 1)[0])


def _read_version(root: str) -> str:
    path = os.path.join(root, "VERSION")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
    except OSError as exc:
        raise ConformanceError(f"{path}: {exc.strerror}", code="conformance.no-suite") from None
    parts = text.split(".")
    if len(parts) != 3 or not all(p.isdigit() and p.isascii() for p in parts):
        raise ConformanceError(f"{path}: {text!r} is not MAJOR.MINOR.PATCH",
                               code="conformance.no-suite")
    return text


def _read_capabilities(root: str) -> dict[str, dict[str, Any]]:
    path = os.path.join(root, "capabilities.json")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        raise ConformanceError(f"{path}: {exc}", code="conformance.no-suite") from None
    table = doc.get("capabilities") if isinstance(doc, dict) else None
    if not isinstance(table, dict) or not all(isinstance(v, dict) for v in table.values()):
        raise ConformanceError(f"{path}: expected {{\"capabilities\": {{name: {{...}}}}}}",
                               code="conformance.no-suite")
    return table


def _is_suite(root: str) -> bool:
    return all(os.path.exists(os.path.join(root, name))
               for name in ("schemas", "VERSION", "capabilities.json"))


def suite_at(root: str, *, spec_dir: str | None = None, cases_dir: str | None = None) -> Suite:
    """The suite in directory ``root`` (which holds ``schemas/``, ``VERSION``, ...); its spec is
    ``spec_dir``, by default ``spec/`` beside ``root``; its cases ``cases_dir``, by default
    ``root/cases``."""
    root = os.path.abspath(root)
    if not os.path.isdir(os.path.join(root, "schemas")):
        raise ConformanceError(f"{root} is not a conformance suite (no schemas/ in it)",
                               code="conformance.no-suite")
    spec = spec_dir or os.path.join(os.path.dirname(root), "spec")
    return Suite(root=root, version=_read_version(root),
                 capabilities=_read_capabilities(root), spec_dir=os.path.abspath(spec),
                 cases_dir=os.path.abspath(cases_dir or os.path.join(root, "cases")))


def with_cases(cases_dir: str, *, spec_dir: str | None = None) -> Suite:
    """The suite for ``--cases DIR``: the suite ``DIR`` sits in when its parent is a whole
    suite (a copy, or another version), else the one this loom-ref carries; either way its
    cases are those under ``DIR``."""
    cases_dir = os.path.abspath(cases_dir)
    if not os.path.isdir(cases_dir):
        what = "does not exist" if not os.path.exists(cases_dir) else "is not a directory"
        raise ConformanceError(f"--cases {cases_dir} {what}", code="conformance.no-suite")
    parent = os.path.dirname(cases_dir)
    if _is_suite(parent):
        return suite_at(parent, spec_dir=spec_dir, cases_dir=cases_dir)
    own = locate()
    return attrs.evolve(own, cases_dir=cases_dir,
                        spec_dir=os.path.abspath(spec_dir) if spec_dir else own.spec_dir)


def locate() -> Suite:
    """The suite this ``loom-ref`` carries: its package data, else the checkout's."""
    for base in (os.path.join(_PACKAGE, "_suite"), os.path.dirname(_PACKAGE)):
        candidate = os.path.join(base, "conformance")
        if os.path.isdir(os.path.join(candidate, "schemas")):
            return suite_at(candidate)
    raise ConformanceError(
        f"loom-ref's conformance suite is missing from {_PACKAGE} (a broken install?); "
        "pass --cases DIR", code="conformance.no-suite")


def select_suite(cases_dir: str | None = None, spec_dir: str | None = None) -> Suite:
    """The suite a command line names: ``--cases DIR`` (:func:`with_cases`), else the one this
    loom-ref carries; ``--spec DIR`` replaces its spec."""
    if cases_dir:
        return with_cases(cases_dir, spec_dir=spec_dir)
    suite = locate()
    return suite if spec_dir is None else attrs.evolve(suite, spec_dir=os.path.abspath(spec_dir))
