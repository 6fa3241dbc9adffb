"""Running ``loom-ref`` as a user does: a subprocess with real arguments, its exit status and
what it printed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

ROOT = Path(__file__).resolve().parents[2]


def loom_ref() -> list[str]:
    """The ``loom-ref`` console script of the interpreter running the tests (so the one this
    checkout installed), or ``python -m loom_ref.cli.main`` when there is none."""
    script = Path(sys.executable).with_name("loom-ref")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "loom_ref.cli.main"]


@attrs.frozen
class Ran:
    """What a run of ``loom-ref`` left: its exit status and its two streams."""

    status: int
    out: str
    err: str

    @property
    def printed(self) -> str:
        return self.out + self.err


_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def _without_dac_override() -> None:
    """In the child, before exec: drop root's power to read any file (the two capabilities
    that bypass permission bits leave the bounding set, so the exec'd program lacks them),
    so a file without permissions is unreadable to it, as to any user."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) refused")


def as_a_user() -> dict[str, Any]:
    """The ``subprocess`` options that make permission bits count: none for a user; for
    root, a child without the capabilities that bypass them."""
    return {"preexec_fn": _without_dac_override} if os.geteuid() == 0 else {}


def run(argv: Sequence[str], *, cwd: str | os.PathLike[str] | None = None,
        permissions: bool = False, closed_stdout: bool = False, timeout: float = 60) -> Ran:
    """Run ``loom-ref ARGV``. ``permissions``: file permission bits bind it even under root
    (:func:`as_a_user`). ``closed_stdout`` gives it a pipe whose reader has already gone away
    (``| head`` that stopped reading), so its first write meets a broken pipe."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "100"}
    cmd = [*loom_ref(), *argv]
    extra = as_a_user() if permissions else {}
    if not closed_stdout:
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env,
                              timeout=timeout, **extra)
        return Ran(done.returncode, done.stdout, done.stderr)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(cmd, stdout=write_end, stderr=subprocess.PIPE, text=True,
                              cwd=cwd, env=env, timeout=timeout, **extra)
    finally:
        os.close(write_end)
    return Ran(done.returncode, "", done.stderr)


