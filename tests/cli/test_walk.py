"""Every command, walked as a new user walks it: a wrong path, a directory, an unreadable
file, an empty file, and a reader that went away (``| head``). Whatever the mistake, the
user sees one stable line (``loom-ref: <code>: ...``, or a command's own verdict line) and an
exit status, never a Python traceback.

The walk is a table, :data:`COMMANDS`: one row per command, saying for each fault what the
user must see. A new command joins the walk by adding a row (``{path}`` stands for the path
under test, ``{journal}`` for a good demo journal); a fault a command has no use for is left
out of its row, with the reason in a comment.
"""

from __future__ import annotations

import functools
import io
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs
import pytest

from loom_ref.cli.demo import run_demo

from .helpers import Ran, run


@attrs.frozen
class Sees:
    """What the user must see: the exit status, and the first line of ``stream`` starting
    with ``starts``. ``one_line``: the stream holds that line and nothing else."""

    status: int
    stream: str
    starts: str
    one_line: bool = True


def refused(status: int, code: str) -> Sees:
    """``loom-ref: <code>: ...`` on stderr, alone."""
    return Sees(status, "stderr", f"loom-ref: {code}: ")


@attrs.frozen
class Command:
    """One row of the walk: ``argv`` with ``{path}`` (the path under test) and ``{journal}``
    (a good journal); ``faults`` says what each fault must show; ``pipe`` is a good
    invocation for the closed-pipe run (None: ``argv`` with a good journal as ``{path}``)."""

    name: str
    argv: tuple[str, ...]
    faults: Mapping[str, Sees]
    pipe: tuple[str, ...] | None = None


READ_FAULTS = {  # a command that reads a journal file: a path it cannot read is a usage
    # error (2) from every command; a file that is no journal, a negative verdict (1)
    "missing": refused(2, "journal.not-found"),
    "directory": refused(2, "journal.is-a-directory"),
    "unreadable": refused(2, "journal.unreadable"),
    "empty": refused(1, "journal.empty"),
}
DEMO_STARTS = "loom-ref demo: a refund agent journaled to "
CASES_FAULTS = {  # --cases DIR: a directory of case files
    "missing": refused(2, "conformance.no-suite"),
    "directory": refused(2, "conformance.no-cases"),  # a directory with no case in it
    "unreadable": refused(2, "conformance.no-suite"),  # a file, not a directory
    "empty": refused(2, "conformance.no-suite"),
}
WRITE_FAULTS = {  # a command that writes a file where it is told
    "missing": refused(2, "argument.path"),  # its directory does not exist
    "directory": refused(2, "argument.path"),
    "unreadable": refused(2, "argument.path"),  # a file without permissions: not writable
}

COMMANDS: tuple[Command, ...] = (
    Command("journal show", ("journal", "show", "{path}"), READ_FAULTS),
    # every format reads through the same code as text: the closed pipe only
    Command("journal show --format html", ("journal", "show", "{path}", "--format", "html"),
            {}),
    Command("journal show --out", ("journal", "show", "{journal}", "--format", "json",
                                   "--out", "{path}"),
            {**WRITE_FAULTS, "empty": Sees(0, "stdout", "wrote json of 16 events to ")},
            pipe=("journal", "show", "{journal}", "--format", "json")),
    Command("journal check", ("journal", "check", "{path}"), READ_FAULTS),
    Command("replay", ("replay", "{path}"), READ_FAULTS),
    Command("demo --dir", ("demo", "--dir", "{path}"), {
        # a directory that does not exist yet is made; an existing one is used
        "missing": Sees(0, "stdout", DEMO_STARTS, one_line=False),
        "directory": Sees(0, "stdout", DEMO_STARTS, one_line=False),
        "unreadable": refused(2, "argument.path"),  # a file, not a directory
        "empty": refused(2, "argument.path"),  # a file, not a directory
    }, pipe=("demo",)),
    Command("demo --html", ("demo", "--html", "{path}"),
            {**WRITE_FAULTS, "empty": Sees(0, "stdout", DEMO_STARTS, one_line=False)},
            pipe=("demo", "--crash-after", "6")),
    Command("journal schema", ("journal", "schema"), {}),  # takes no path: the pipe only
    # the conformance commands: a cases directory, the reports written and read, a starter
    Command("conformance --cases", ("conformance", "--cases", "{path}"), CASES_FAULTS,
            pipe=("conformance", "--only", "stream.usage", "--quiet")),
    Command("conformance lint --cases", ("conformance", "lint", "--cases", "{path}"),
            CASES_FAULTS, pipe=("conformance", "lint")),
    Command("conformance --json", ("conformance", "--only", "stream.usage", "--quiet",
                                   "--json", "{path}"),
            {**WRITE_FAULTS, "empty": Sees(0, "stdout", "", one_line=False)},
            pipe=("conformance", "--only", "stream.usage", "--quiet")),
    Command("conformance report", ("conformance", "report", "{path}", "--html", "out.html"), {
        fault: refused(2, "conformance.bad-report")
        for fault in ("missing", "directory", "unreadable", "empty")},
        pipe=("conformance", "where")),  # its one good line needs a report: see test_html_report
    Command("conformance init", ("conformance", "init", "--lang", "python", "{path}"), {
        # a directory that does not exist yet is made; an existing one is used
        "missing": Sees(0, "stdout", "wrote ", one_line=False),
        "directory": Sees(0, "stdout", "wrote ", one_line=False),
        "unreadable": refused(2, "argument.path"),  # a file, not a directory
        "empty": refused(2, "argument.path"),
    }, pipe=("conformance", "where")),
    Command("conformance show", ("conformance", "show", "journal.fold/completed"), {}),
    Command("conformance where", ("conformance", "where"), {}),
)


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A good demo journal."""
    where = tmp_path_factory.mktemp("journal")
    run_demo(directory=str(where), crash_after=None, out=io.StringIO())
    return where / "demo-1.jsonl"


def make_fault(fault: str, where: Path) -> Path:
    """The path a user mistyped, of each kind."""
    if fault == "missing":
        return where / "no-such-dir" / "demo-1.jsonl"
    if fault == "directory":
        (where / "a-dir").mkdir()
        return where / "a-dir"
    path = where / f"{fault}.jsonl"
    path.write_bytes(b"" if fault == "empty" else b'{"schema":"loom-ref.journal"}\n')
    if fault == "unreadable":
        path.chmod(0o000)
    return path


def argv(command: Command, path: Path, journal: Path) -> list[str]:
    return [a.replace("{path}", str(path)).replace("{journal}", str(journal))
            for a in command.argv]


def no_traceback(ran: Ran) -> None:
    assert "Traceback" not in ran.printed, ran.printed
    assert "Error:" not in ran.err.replace("loom-ref: ", ""), ran.err
    assert "Warning" not in ran.err, ran.err


CASES = [(c, f) for c in COMMANDS for f in c.faults]


def _pipe_argv(command: Command, journal: Path) -> list[str]:
    template = command.pipe if command.pipe is not None else command.argv
    return [a.replace("{path}", str(journal)).replace("{journal}", str(journal))
            for a in template]


@pytest.fixture(scope="module")
def walked(journal: Path, tmp_path_factory: pytest.TempPathFactory) -> Mapping[str, Ran]:
    """Every run of the walk, made at once (each is a fresh interpreter, so they run side
    by side on every core), keyed by the test that asserts on it."""
    jobs: dict[str, Callable[[], Ran]] = {}
    for command, fault in CASES:
        where = tmp_path_factory.mktemp("walk")
        args = argv(command, make_fault(fault, where), journal)
        jobs[f"{command.name}-{fault}"] = functools.partial(
            run, args, cwd=where, permissions=fault == "unreadable")
    for command in COMMANDS:
        jobs[f"{command.name}-pipe"] = functools.partial(
            run, _pipe_argv(command, journal), closed_stdout=True)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = {key: pool.submit(job) for key, job in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.parametrize(("command", "fault"), CASES,
                         ids=[f"{c.name}-{f}" for c, f in CASES])
def test_a_wrong_path_is_one_stable_line(command: Command, fault: str,
                                         walked: Mapping[str, Ran]) -> None:
    ran = walked[f"{command.name}-{fault}"]
    sees = command.faults[fault]
    no_traceback(ran)
    text = ran.err if sees.stream == "stderr" else ran.out
    assert ran.status == sees.status, ran
    assert text.startswith(sees.starts), ran
    if sees.one_line:
        assert text.count("\n") == 1, ran
        if sees.stream == "stderr":
            assert ran.out == "", ran


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_a_closed_pipe_ends_quietly(command: Command, walked: Mapping[str, Ran]) -> None:
    """The reader went away before the first byte (``| head`` done reading): the command
    finishes saying nothing, no traceback, no warning, and exits with its own status (0
    for each good invocation here), as it does when its output fitted in the pipe before
    the reader went: ``demo | head -1`` and ``journal show FILE | head -1`` exit alike."""
    ran = walked[f"{command.name}-pipe"]
    no_traceback(ran)
    assert (ran.status, ran.err) == (0, ""), ran


def test_demo_into_head_prints_no_warning(tmp_path: Path) -> None:
    """The issue's own reproduction: ``loom-ref demo | head`` printed ``UserWarning: delta
    sink raised: BrokenPipeError``. Cut after each of the first lines, through a shell."""
    import subprocess

    from .helpers import loom_ref

    cmd = " ".join(loom_ref())
    for lines in (1, 5, 9):
        done = subprocess.run(f"{cmd} demo --dir {tmp_path / str(lines)} | head -{lines}",
                              shell=True, capture_output=True, text=True, timeout=60)
        assert done.stdout.count("\n") == lines
        assert done.stderr == "", done.stderr


def test_demo_and_journal_show_into_head_exit_alike(journal: Path, tmp_path: Path) -> None:
    """``demo | head -1`` (whose output outruns the reader) and ``journal show FILE | head
    -1`` (whose output fits in the pipe before the reader goes) both exit 0, quietly."""
    import subprocess

    from .helpers import loom_ref

    cmd = " ".join(loom_ref())
    for line in (f"{cmd} demo --dir {tmp_path} | head -1",
                 f"{cmd} journal show {journal} | head -1"):
        done = subprocess.run(["bash", "-c", f"set -o pipefail; {line}"],
                              capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stderr, done.stdout.count("\n")) == (0, "", 1), line
