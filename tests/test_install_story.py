"""One install story everywhere until a release exists (issue 31): every page that says how
to install loom-ref builds the wheel from a checkout and installs it, none says
``pip install loom-ref`` (which fails: there is no release), and the hints loom-ref prints
for a missing optional dependency name the package itself, which works for a wheel. The
README's exit-status table is the one every ``--help`` prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from loom_ref.cli.main import EXIT_STATUSES, build_parser

REPO = Path(__file__).parents[1]
PAGES = ["README.md", "conformance/INTERPRETING.md", "docs/store-kit.md",
         "docs/validator-kit.md"]
#: an install of loom-ref by its name from an index (PyPI), extras or not
FROM_AN_INDEX = re.compile(r"""pip install\s+(-U\s+)?['"]?loom-ref(\[[^\]]*\])?['"]?(\s|$|`)""")


@pytest.mark.parametrize("page", PAGES)
def test_the_page_builds_the_wheel_and_never_installs_from_an_index(page: str) -> None:
    text = (REPO / page).read_text(encoding="utf-8")
    assert not FROM_AN_INDEX.search(text), FROM_AN_INDEX.search(text)
    assert "python -m pip wheel --no-deps -w dist /path/to/loom-ref" in text
    assert "dist/loom_ref-*.whl" in text


def test_the_pattern_finds_an_install_from_an_index() -> None:
    for line in ("pip install loom-ref", "pip install 'loom-ref[fuzz]'",
                 "`pip install loom-ref`", 'pip install "loom-ref[test]" x'):
        assert FROM_AN_INDEX.search(line), line
    assert not FROM_AN_INDEX.search("pip install dist/loom_ref-*.whl")
    assert not FROM_AN_INDEX.search("pip install -e '/path/to/loom-ref[test]'")


def test_the_fuzz_hint_works_from_a_wheel() -> None:
    """Without hypothesis, ``conformance fuzz`` names the package to install, not the extra
    of a release that does not exist."""
    code = ("import sys\nsys.modules['hypothesis'] = None\n"
            "from loom_ref.cli.main import main\n"
            "sys.exit(main(['conformance', 'fuzz', '--impl', 'true']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("loom-ref: conformance.needs-hypothesis: ")
    assert "install it with: pip install hypothesis" in done.stderr
    assert "loom-ref[" not in done.stderr


def test_the_readme_holds_the_exit_status_table_of_every_help() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| (.+) \|$", text, flags=re.M)
    assert [(int(s), m) for s, m in rows] == list(EXIT_STATUSES)
    parser = build_parser()
    assert "exit status (every loom-ref command):" in parser.format_help()
