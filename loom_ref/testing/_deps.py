"""The kit's one optional dependency, checked where it is first needed.

Rules: ``import loom_ref`` never imports hypothesis or pytest (the runtime dependency is attrs
only; both are in the ``test`` extra). The hypothesis-based parts of :mod:`loom_ref.testing`
call :func:`require_hypothesis` before importing it, so a missing install reads as one clear
``ImportError`` that names the extra to install.
"""

from __future__ import annotations

import importlib.util

__all__ = ["EXTRAS", "INSTALL_HINT", "require_hypothesis"]

INSTALL_HINT = "pip install hypothesis pytest"
"""What to run when hypothesis (or pytest) is missing: the packages themselves, which works
however loom-ref was installed (from a wheel, a checkout, or, after a release, an index)."""

#: What each extra of loom-ref holds, as the command that installs it.
EXTRAS = {"test": INSTALL_HINT, "fuzz": "pip install hypothesis"}


def require_hypothesis(*, extra: str = "test") -> None:
    """Raise ``ImportError`` naming the extra to install (``test``: :data:`INSTALL_HINT`)
    unless hypothesis can be imported."""
    try:
        found = importlib.util.find_spec("hypothesis") is not None
    except (ImportError, ValueError):  # a broken or blocked entry in sys.modules
        found = False
    if not found:
        what = "loom_ref.testing" if extra == "test" else f"loom-ref's {extra} command"
        raise ImportError(
            f"{what} needs hypothesis (an optional dependency of loom-ref, its {extra!r} "
            f"extra); install it with: {EXTRAS.get(extra, 'pip install hypothesis')}",
            name="hypothesis",
        )
