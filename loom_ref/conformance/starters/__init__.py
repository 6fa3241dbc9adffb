"""``loom-ref conformance init --lang python|node|go|rust DIR``: a starter adapter to fill in.

Rules (``conformance/INTERPRETING.md`` section 12). The starter is a small commented
program that speaks the protocol: the request loop, the start reply, and a dispatch table
with a line for every vector function of the suite (from ``capabilities.json``), each
answering ``skipped`` until the implementer puts a function behind it. Run against the suite
as written it completes with no failure and no error, everything skipped
(``--allow-all-skipped``), and ``smoke`` passes. It is written as a user of the language
writes a program: Python and Node one file on the standard library; Go a module
(``go.mod``, ``main.go``) on the standard library; Rust a Cargo package (``Cargo.toml``,
``src/main.rs``) on ``serde_json``. An existing file is never overwritten.
"""

from __future__ import annotations

import os
from importlib import resources

import attrs

from loom_ref.conformance.suite import Suite
from loom_ref.errors import ConformanceError

__all__ = ["LANGUAGES", "Starter", "render_starter", "write_starter"]


@attrs.frozen(kw_only=True)
class Starter:
    """One language's starter: its files (template -> path written, the program first),
    how one function's table line is spelt, how to build it (None: it runs as written) and
    the command that runs it (``{dir}`` is where it was written)."""

    files: tuple[tuple[str, str], ...]
    line: str
    run: str
    build: str | None = None

    @property
    def main(self) -> str:
        """The path of the program's source, relative to the starter's directory."""
        return self.files[0][1]


LANGUAGES: dict[str, Starter] = {
    "python": Starter(files=(("python.txt", "loom_adapter.py"),),
                      line='    "{name}": not_yet,  # {spec}: {description}',
                      run="python3 {dir}/loom_adapter.py"),
    "node": Starter(files=(("node.txt", "loom-adapter.mjs"),),
                    line='  "{name}": notYet, // {spec}: {description}',
                    run="node {dir}/loom-adapter.mjs"),
    "go": Starter(files=(("go.main.txt", "main.go"), ("go.mod.txt", "go.mod")),
                  line='\t// {spec}: {description}\n\t"{name}": notYet,',
                  build="cd {dir} && go build -o loom-adapter .",
                  run="{dir}/loom-adapter"),
    "rust": Starter(files=(("rust.main.txt", os.path.join("src", "main.rs")),
                           ("rust.cargo.txt", "Cargo.toml")),
                    line=('    // {spec}: {description}\n'
                          '    table.insert("{name}", Box::new(not_yet));'),
                    build="cd {dir} && cargo build --release",
                    run="{dir}/target/release/loom-adapter"),
}


def _starter(language: str) -> Starter:
    if language not in LANGUAGES:
        raise ConformanceError(f"no starter for {language!r} (one of: {', '.join(LANGUAGES)})",
                               code="conformance.no-starter")
    return LANGUAGES[language]


def render_starter(language: str, suite: Suite) -> list[tuple[str, str]]:
    """(path relative to the starter's directory, text) of each file of the starter for
    ``language``, the program's source first."""
    starter = _starter(language)
    functions = sorted((name, cap) for name, cap in suite.capabilities.items()
                       if cap.get("kind") == "function")
    lines = [starter.line.format(name=name, spec=cap.get("spec", ""),
                                 description=cap.get("description", ""))
             for name, cap in functions]
    out = []
    for template, path in starter.files:
        text = resources.files(__package__).joinpath(template).read_text(encoding="utf-8")
        for marker, value in (("@@FUNCTIONS@@", "\n".join(lines)),
                              ("@@SUITE@@", suite.version),
                              ("@@PROTOCOL@@", str(suite.protocol)),
                              ("@@FILE@@", starter.files[0][1])):
            text = text.replace(marker, value)
        out.append((path, text))
    return out


def write_starter(language: str, directory: str, suite: Suite) -> str:
    """Write the starter for ``language`` into ``directory`` (made if missing); the path of
    its program's source. Nothing is written if any of its files exists already."""
    files = render_starter(language, suite)
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise ConformanceError(f"{directory} exists and is not a directory",
                               code="conformance.bad-path")
    paths = [os.path.join(directory, path) for path, _ in files]
    for path in paths:
        if os.path.exists(path):
            raise ConformanceError(f"{path} exists; init never overwrites a file",
                                   code="conformance.exists")
    for path, (_, text) in zip(paths, files, strict=True):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "x", encoding="utf-8") as f:
            f.write(text)
    return paths[0]
