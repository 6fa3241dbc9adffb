"""``loom-ref conformance init --lang python|node|go|rust``: each starter, built as a user of
its language builds it (Go's standard library; Rust with serde_json), passes ``smoke`` and
runs the whole suite with nothing failing, everything skipped (INTERPRETING.md section 12).

A language whose toolchain is not installed is skipped, or, under
``LOOM_REF_REQUIRE_TOOLCHAINS=1`` (set by ``.ci/run``, which installs them), fails. Rust is
built offline against Debian's packaged crates (``librust-serde-json-dev``, in
/usr/share/cargo/registry) when they are there, as ``tools/dialect-oracles/rust`` is; it is a
build of some seconds, so it belongs to the full matrix (``LOOM_REF_FULL=1``, tests/conftest.py),
as does running the whole suite through each starter; the fast run builds and smokes the
others.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from loom_ref.cli.main import main
from loom_ref.conformance.starters import LANGUAGES, render_starter

from .helpers import SUITE, cases

DEBIAN_CRATES = Path("/usr/share/cargo/registry")


def _tool(name: str) -> str:
    """The path of a toolchain's command; skip (or fail, when CI requires it) without it."""
    found = shutil.which(name) or next(
        (str(p) for p in [Path.home() / ".cargo" / "bin" / name] if p.exists()), None)
    if found is None:
        reason = f"{name} is not installed: the {name} starter is not built"
        if os.environ.get("LOOM_REF_REQUIRE_TOOLCHAINS") == "1":
            pytest.fail(reason + " (LOOM_REF_REQUIRE_TOOLCHAINS=1)", pytrace=False)
        pytest.skip(reason)
    return found


def _build(lang: str, where: Path) -> str:
    """Build the starter written to ``where``; the command that runs it."""
    if lang == "python":
        return f"{sys.executable} {where / 'loom_adapter.py'}"
    if lang == "node":
        return f"{_tool('node')} {where / 'loom-adapter.mjs'}"
    env = {**os.environ}
    if lang == "go":
        go = _tool("go")
        env["GOPROXY"] = "off"  # the standard library only: nothing to fetch
        gofmt = shutil.which("gofmt")
        if gofmt is not None:  # as gofmt writes it
            unformatted = subprocess.run([gofmt, "-l", "."], cwd=where, check=True,
                                         capture_output=True, text=True).stdout
            assert unformatted == "", unformatted
        for step in (["vet", "."], ["build", "-o", "loom-adapter", "."]):
            subprocess.run([go, *step], cwd=where, env=env, check=True, timeout=600)
        return str(where / "loom-adapter")
    cargo = _tool("cargo")
    if (DEBIAN_CRATES / "serde_json-1.0.87").exists() or any(
            DEBIAN_CRATES.glob("serde_json-*")):
        # offline, from Debian's packaged crates (a user's machine reaches crates.io instead)
        (where.parent / ".cargo").mkdir(exist_ok=True)
        (where.parent / ".cargo" / "config.toml").write_text(
            '[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\n'
            f'directory = "{DEBIAN_CRATES}"\n\n[net]\noffline = true\n')
    env["RUSTFLAGS"] = "-D warnings"  # the starter compiles without a warning
    subprocess.run([cargo, "build", "--quiet"], cwd=where, env=env, check=True, timeout=1200)
    return str(where / "target" / "debug" / "loom-adapter")


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_a_starter_adapter_passes_smoke_and_runs_the_whole_suite_with_nothing_failing(
        lang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        request: pytest.FixtureRequest) -> None:
    if lang == "rust" and not request.config.getoption("full_matrix"):
        pytest.skip("the Rust starter's build is part of the full matrix (LOOM_REF_FULL=1)")
    where = tmp_path / "mine"
    assert main(["conformance", "init", "--lang", lang, str(where)]) == 0
    wrote = capsys.readouterr().out
    files = render_starter(lang, SUITE)
    for path, text in files:
        assert (where / path).read_text() == text
    assert f"wrote {where / files[0][0]}" in wrote
    # one line per vector function of the suite, each answering skipped until filled in
    source = files[0][1]
    functions = [n for n, c in SUITE.capabilities.items() if c["kind"] == "function"]
    for name in functions:
        assert f'"{name}"' in source, name
        assert source.count(f'"{name}"') == 1, name
    command = _build(lang, where)
    # smoke says the harness is sound
    assert main(["conformance", "smoke", "--impl", command]) == 0, capsys.readouterr().out
    # init never overwrites
    capsys.readouterr()
    assert main(["conformance", "init", "--lang", lang, str(where)]) == 2
    assert "conformance.exists" in capsys.readouterr().err
    if not request.config.getoption("full_matrix"):
        return  # the whole suite through the starter: the full matrix
    report = tmp_path / "r.json"
    argv = ["conformance", "--impl", command, "--json", str(report), "--quiet"]
    assert main(argv) == 1  # nothing ran: not a pass by default
    assert main([*argv, "--allow-all-skipped"]) == 0
    data = json.loads(report.read_text())
    assert data["implementation"]["name"] == "my-loom"
    assert data["implementation"]["language"] == {"node": "javascript"}.get(lang, lang)
    assert {c["status"] for c in data["cases"]} == {"skip"}
    sent = [c for c in data["cases"] if c["mode"] == "base"]
    assert len(sent) == len(cases())
    declared = set(data["implementation"]["capabilities"])
    assert declared == {*functions, "scenario"}
