"""``loom-ref``: the command line, an argparse dispatcher over one module per subcommand.

Each module named in :data:`SUBCOMMANDS` exposes ``register(subparsers)``, which adds its
parser and sets ``func`` (``func(args) -> int``) as the parser's default. Adding a subcommand
is adding a module and its name here; this file holds no command's logic.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from loom_ref import __version__
from loom_ref.errors import InvalidArgument, LoomError

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

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


def build_parser() -> argparse.ArgumentParser:
    """The ``loom-ref`` parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``loom-ref`` with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        status = int(func(args))
        sys.stdout.flush()  # here, so that a reader gone away is met where it is handled
        return status
    except LoomError as err:  # one clear line with the stable code, never a traceback
        sys.stderr.write(f"loom-ref: {err}\n")
        return 2 if isinstance(err, InvalidArgument) else 1
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
