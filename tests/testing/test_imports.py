"""Import discipline: loom_ref never pulls in the test kit's dependencies; the kit says what
to install when hypothesis is missing; the lazy namespace is complete."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import loom_ref.testing as kit
from loom_ref.testing._deps import INSTALL_HINT

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_import_loom_ref_imports_neither_hypothesis_nor_pytest() -> None:
    proc = _python(
        "import sys, loom_ref, loom_ref.governance, loom_ref.stream, loom_ref.kernel\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('hypothesis', 'pytest',"
        " '_pytest') or m.startswith('loom_ref.testing'))\n"
        "print(bad)"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_loading_the_plugin_imports_only_pytest() -> None:
    proc = _python(
        "import sys, loom_ref.testing.plugin\n"
        "print(sorted(m for m in sys.modules if m.startswith(('loom_ref', 'hypothesis'))))"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        "['loom_ref', 'loom_ref.errors', 'loom_ref.testing', 'loom_ref.testing.plugin']"
    )


@pytest.mark.parametrize(
    "statement",
    [
        "from loom_ref.testing import check_delta_form",
        "from loom_ref.testing import splits",
        "import loom_ref.testing.strategies",
        "import loom_ref.testing.checkers",
    ],
)
def test_without_hypothesis_the_kit_names_the_extra(statement: str) -> None:
    proc = _python(
        "import sys\nsys.modules['hypothesis'] = None  # as if it were not installed\n"
        f"try:\n    {statement}\nexcept ImportError as e:\n    print('IMPORTERROR', e)\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("IMPORTERROR")
    assert INSTALL_HINT in proc.stdout
    # the packages themselves: a hint that works for a wheel installed outside a checkout
    assert INSTALL_HINT == "pip install hypothesis pytest"


def test_without_hypothesis_the_reconstruction_helpers_still_work() -> None:
    proc = _python(
        "import sys\nsys.modules['hypothesis'] = None\n"
        "from loom_ref.testing import check_reconstruction, RecordingSink\n"
        "print(check_reconstruction([{'delta': 'a'}], 'a'))"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "a"


def test_every_exported_name_resolves() -> None:
    for name in kit.__all__:
        assert getattr(kit, name) is not None, name
    assert set(kit.__all__) == set(kit._HOME)


def test_the_lazy_table_mirrors_each_module() -> None:
    """The package cannot import its modules eagerly (hypothesis), so it keeps its own table of
    names; each module's names in that table are exactly the module's ``__all__``."""
    import importlib

    for home in set(kit._HOME.values()):
        module = importlib.import_module(home)
        assert {n for n, h in kit._HOME.items() if h == home} == set(module.__all__), home
    with pytest.raises(AttributeError):
        _ = kit.no_such_name
