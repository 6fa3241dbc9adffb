"""``loom-ref``: the command line, an argparse dispatcher over one module per subcommand.

Each module named in :data:`SUBCOMMANDS` exposes ``register(subparsers)``, which adds its
parser and sets ``func`` (``func(args) -> int``) as the parser's default. Adding a subcommand
is adding a module and its name here; this file holds no command's logic.

What every command shares is here: one exit-status table (:data:`EXIT_STATUSES`, printed by
every ``--help`` and kept in README.md, which a test compares), one way to report an error
(``loom-ref: <code>: <message>``, one line on stderr), Ctrl-C (status 130, no traceback), and
a reader that goes away (``| head``): the command finishes quietly and exits with the status
it would have had, so ``demo | head -1`` and ``journal show FILE | head -1`` exit alike
whether or not their output outran the pipe.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, TextIO

from loom_ref import __version__
from loom_ref.errors import InvalidArgument, LoomError

__all__ = ["EXIT_STATUSES", "SUBCOMMANDS", "USAGE_CODES", "build_parser", "exit_epilog",
           "main"]

#: The exit status of every ``loom-ref`` command: (status, meaning).
EXIT_STATUSES: tuple[tuple[int, str], ...] = (
    (0, "success: the command did what it was asked, and what it checked holds"),
    (1, "a negative verdict: a case failed or errored or the run had a problem "
        "(conformance, smoke, fuzz, lint, trace); a journal torn, corrupt or empty "
        "(journal check, show, replay); a replay that diverged; or an error of the runtime"),
    (2, "a usage error: a bad option or value, a file or directory that is missing or "
        "cannot be read or written, a pattern that selects nothing"),
    (130, "interrupted (Ctrl-C): implementations stopped, a partial summary printed "
          "(conformance)"),
)

#: Codes that name a path the user gave which cannot be read: usage errors (exit status 2)
#: whichever command met them.
USAGE_CODES = frozenset({"journal.not-found", "journal.is-a-directory", "journal.unreadable"})


def exit_epilog() -> str:
    """The exit-status table as every ``--help`` prints it."""
    rows = [textwrap.fill(meaning, width=88, initial_indent=f"  {status:<4} ",
                          subsequent_indent=" " * 7) for status, meaning in EXIT_STATUSES]
    return ("exit status (every loom-ref command):\n" + "\n".join(rows)
            + "\n  errors print one line on stderr: loom-ref: <code>: <message>")

#: The modules that each register one subcommand, in the order ``--help`` lists them.
SUBCOMMANDS: tuple[str, ...] = (
    "loom_ref.cli.demo",
    "loom_ref.cli.journal",
    "loom_ref.cli.replay",
    "loom_ref.cli.conformance",
)


def _version() -> str:
    """``loom-ref X.Y.Z (conformance suite A.B.C, protocol A)``: the package and the suite it
    carries, the two numbers a report states (conformance/INTERPRETING.md section 13)."""
    from loom_ref.conformance.suite import locate
    from loom_ref.errors import LoomError

    try:
        suite = locate()
    except LoomError:
        return f"loom-ref {__version__} (no conformance suite found)"
    return f"loom-ref {__version__} (conformance suite {suite.version}, protocol {suite.protocol})"


class _VersionAction(argparse.Action):
    """``--version``, with the suite located only when it is asked for (not on every command)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(_version())
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """A parser whose ``--help`` ends with the exit-status table; every subcommand's parser
    is one too (argparse makes subparsers of the parent's class)."""

    def format_help(self) -> str:
        return super().format_help().rstrip("\n") + "\n\n" + exit_epilog() + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The ``loom-ref`` parser with every subcommand registered."""
    parser = _Parser(
        prog="loom-ref",
        description="loom-ref: reference implementation, executable specification and "
                    "conformance suite for Loom's durable agent runtime.",
    )
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="show the package's and the suite's versions and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(name).register(subparsers)
    return parser


class _Stdout:
    """Standard output for a reader that may go away (``| head``): the first write or flush
    that meets a broken pipe points the descriptor at /dev/null, and every later one goes
    there, so the command finishes quietly and its exit status is its own."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.gone = False

    def _went_away(self) -> None:
        self.gone = True
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
        except (OSError, ValueError):  # not a real descriptor (a test's StringIO)
            pass

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._went_away()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._went_away()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``loom-ref`` with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    real = sys.stdout
    if not isinstance(real, _Stdout):
        sys.stdout = _Stdout(real)
    try:
        status = int(func(args))
        sys.stdout.flush()
        return status
    except LoomError as err:  # one clear line with the stable code, never a traceback
        sys.stderr.write(f"loom-ref: {err}\n")
        return 2 if isinstance(err, InvalidArgument) or err.code in USAGE_CODES else 1
    except KeyboardInterrupt:  # Ctrl-C: no traceback (a conformance run prints its part)
        sys.stderr.write("loom-ref: interrupted\n")
        return 130
    finally:
        sys.stdout.flush()  # what is still buffered meets the reader here, if it went away
        sys.stdout = real


if __name__ == "__main__":
    raise SystemExit(main())
