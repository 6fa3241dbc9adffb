"""The kit's one optional dependency, checked where it is first needed.

Rules: ``import loom_ref`` never imports hypothesis or pytest (the runtime dependency is attrs
only; both are in the ``test`` extra). The hypothesis-based parts of :mod:`loom_ref.testing`
call :func:`require_hypothesis` before importing it, so a missing install reads as one clear
``ImportError`` that names the extra to install.
"""

from __future__ import annotations

import importlib.util

__all__ = ["INSTALL_HINT", "require_hypothesis"]

INSTALL_HINT = "pip install 'loom-ref[test]'"
"""What to run when hypothesis (or pytest) is missing."""


def require_hypothesis() -> None:
    """Raise ``ImportError`` naming :data:`INSTALL_HINT` unless hypothesis can be imported."""
    try:
        found = importlib.util.find_spec("hypothesis") is not None
    except (ImportError, ValueError):  # a broken or blocked entry in sys.modules
        found = False
    if not found:
        raise ImportError(
            "loom_ref.testing needs hypothesis (a test-only dependency of loom-ref); "
            f"install it with: {INSTALL_HINT}",
            name="hypothesis",
        )
