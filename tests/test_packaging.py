"""The wheel carries the suite (issue 15): pyproject.toml's explicit package list is the tree's,
its package-data globs take every file of conformance/ and spec/, the version is written in
one place, and the license ships. (.ci/run builds the real wheel, installs it into a fresh
virtualenv outside the checkout and runs the suite from another directory.)"""

from __future__ import annotations

import glob
import os
import subprocess
import tomllib
from pathlib import Path

import loom_ref

REPO = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
SETUPTOOLS = PROJECT["tool"]["setuptools"]


def _tracked(folder: str) -> set[str]:
    """The files git tracks under ``folder`` (untracked files, such as a developer's scratch
    output, never ship), relative to it; every file when this is not a git checkout."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                              folder], cwd=REPO, capture_output=True, text=True, check=True)
        return {os.path.relpath(p, folder) for p in out.stdout.splitlines()}
    except (OSError, subprocess.CalledProcessError):
        root = REPO / folder
        return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_the_package_list_is_the_tree() -> None:
    found = {str(p.parent.relative_to(REPO)).replace(os.sep, ".")
             for p in (REPO / "loom_ref").rglob("__init__.py")}
    mapped = set(SETUPTOOLS["package-dir"])
    assert set(SETUPTOOLS["packages"]) == found | mapped
    assert SETUPTOOLS["package-dir"] == {"loom_ref._suite.conformance": "conformance",
                                         "loom_ref._suite.spec": "spec"}


def test_package_data_takes_every_file_of_the_suite_and_the_spec() -> None:
    data = SETUPTOOLS["package-data"]
    for package, folder in SETUPTOOLS["package-dir"].items():
        taken = {os.path.relpath(p, REPO / folder) for pattern in data[package]
                 for p in glob.glob(str(REPO / folder / pattern))}
        missing = _tracked(folder) - taken
        assert not missing, f"{folder}: files the wheel would not carry: {sorted(missing)[:10]}"


def test_the_version_is_written_once_and_the_license_ships() -> None:
    assert PROJECT["project"]["dynamic"] == ["version"]
    assert "version" not in PROJECT["project"]
    assert SETUPTOOLS["dynamic"]["version"] == {"attr": "loom_ref.__version__"}
    assert loom_ref.__version__.count(".") == 2
    assert PROJECT["project"]["license"] == "Apache-2.0"
    assert "Apache License" in (REPO / "LICENSE").read_text()
    assert PROJECT["project"]["license-files"] == ["LICENSE"]
    assert any(c.startswith("Programming Language :: Python :: 3.11")
               for c in PROJECT["project"]["classifiers"])
