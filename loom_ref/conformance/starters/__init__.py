"""``loom-ref conformance init --lang python|node DIR``: a starter adapter to fill in.

Rules (``conformance/INTERPRETING.md`` section 12). The starter is one commented file that
speaks the protocol: the request loop, the start reply, and a dispatch table with a line for
every vector function of the suite (from ``capabilities.json``), each answering ``skipped``
until the implementer puts a function behind it. Run against the suite as written it
completes with no failure and no error, everything skipped (``--allow-all-skipped``). It
depends on nothing but the language's standard library. An existing file is never
overwritten.
"""

from __future__ import annotations

import os
from importlib import resources

from loom_ref.conformance.suite import Suite
from loom_ref.errors import ConformanceError

__all__ = ["LANGUAGES", "write_starter"]

#: language -> (template, file name written, how a table line is spelt)
LANGUAGES: dict[str, tuple[str, str, str]] = {
    "python": ("python.txt", "loom_adapter.py", '    "{name}": not_yet,  # {spec}: {description}'),
    "node": ("node.txt", "loom-adapter.mjs", '  "{name}": notYet, // {spec}: {description}'),
}


def render_starter(language: str, suite: Suite) -> tuple[str, str]:
    """(file name, text) of the starter adapter for ``language``."""
    if language not in LANGUAGES:
        raise ConformanceError(f"no starter for {language!r} (one of: {', '.join(LANGUAGES)})",
                               code="conformance.no-starter")
    template, filename, line = LANGUAGES[language]
    text = resources.files(__package__).joinpath(template).read_text(encoding="utf-8")
    functions = [line.format(name=name, spec=cap.get("spec", ""),
                             description=cap.get("description", ""))
                 for name, cap in sorted(suite.capabilities.items())
                 if cap.get("kind") == "function"]
    for marker, value in (("@@FUNCTIONS@@", "\n".join(functions)), ("@@SUITE@@", suite.version),
                          ("@@PROTOCOL@@", str(suite.protocol)), ("@@FILE@@", filename)):
        text = text.replace(marker, value)
    return filename, text


def write_starter(language: str, directory: str, suite: Suite) -> str:
    """Write the starter for ``language`` into ``directory`` (made if missing); its path."""
    filename, text = render_starter(language, suite)
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise ConformanceError(f"{directory} exists and is not a directory",
                               code="conformance.bad-path")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, filename)
    try:
        with open(path, "x", encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:
        raise ConformanceError(f"{path} exists; init never overwrites a file",
                               code="conformance.exists") from None
    return path


__all__ += ["render_starter"]
