"""The journal against hostile bytes and a hostile store directory: issue 32's breaks, one
test (or a few) each, tried as an attacker would.

1. a symlink at a journal's path is refused, never followed (its target untouched);
2. a FIFO at a journal's path is refused, never waited on;
3. a line nested deeper than the limit is a malformed line, never a RecursionError, and
   the limit does not move with the caller's stack;
4. an operating-system failure is a stable code naming the file, never a raw OSError;
5. a failed header write leaves no descriptor and no lock behind;
6. an EXECUTION_STARTED naming another execution is a corrupt journal;
7. duplicate member names are a malformed line;
8. a journal unlinked or replaced while held is reported at its next sync;
9. ids: Windows' reserved names and ``:`` refused, case-only differences refused up front;
10. the messages say what is wrong in the journal's own terms.

(spec: journal.regular-files, journal.nesting-limit, journal.os-errors,
journal.started-names-header, journal.duplicate-names, journal.held-file,
journal.execution-ids)
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import sqlite3
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from loom_ref.cli.main import main as cli_main
from loom_ref.effects import Effect
from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal import (
    CorruptJournalError,
    EventKind,
    FileStore,
    FsyncPolicy,
    LogStore,
    MemoryStore,
    OsFileSystem,
    SqliteStore,
    parse_journal,
    parse_log,
)
from loom_ref.journal.codec import encode_header, encode_line
from loom_ref.journal.store import check_execution_id
from loom_ref.kernel import EffectRegistry, Runtime, Workflow

K = EventKind
START = {"executionId": "x", "workflow": "w", "input": None}


def sealed(body: str) -> bytes:
    raw = body.encode("utf-8")
    return raw + b',"crc":"%08x"}\n' % zlib.crc32(raw)


def _body(ctx: Any, n: Any) -> Any:
    total = 0
    for i in range(int(n or 0)):
        total += yield ctx.execute("add", i)
    return total


def runtime(store: Any, calls: list[Any] | None = None,
            hook: Callable[[int], None] | None = None) -> Runtime:
    def add(ctx: Any, input: Any) -> int:
        if calls is not None:
            calls.append(input)
        if hook is not None:
            hook(input)
        return int(input)
    effects = EffectRegistry([Effect(tool_id="add", execute=add, idempotent=True)])
    return Runtime(store=store, effects=effects, workflows=[Workflow(name="w", body=_body)],
                   on_warn=lambda message: None)


@contextlib.contextmanager
def no_hang(seconds: int = 10) -> Iterator[None]:
    """Turn a call that would block forever into a failure (a watchdog, not a timing)."""
    def expired(signum: int, frame: Any) -> None:
        raise AssertionError("the call blocked (it waited on a FIFO)")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"),
                                reason="counts descriptors through /proc/self/fd")


def nested(depth: int, leaf: str = "1") -> str:
    """JSON text of ``depth`` nested arrays around ``leaf``."""
    return "[" * depth + leaf + "]" * depth


def started_line(input_text: str, seq: int = 1, eid: str = "x") -> bytes:
    return sealed(f'{{"seq":{seq},"kind":"EXECUTION_STARTED","payload":{{"executionId":"{eid}",'
                  f'"workflow":"w","input":{input_text}}}')


# -- 1. symlinks ---------------------------------------------------------------------------------
def test_a_symlinked_journal_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    target = tmp_path / "precious.txt"
    target.write_bytes(b"the only copy of something that is not a journal")
    (store_dir / "x.jsonl").symlink_to(target)
    store = FileStore(store_dir, fsync=FsyncPolicy.NEVER)
    for call in (lambda: runtime(store).start("w", 1, execution_id="x"),
                 lambda: store.open("x"), lambda: store.read("x"),
                 lambda: runtime(store).state("x")):
        with pytest.raises(JournalError) as info:
            call()
        assert info.value.code == "journal.not-a-file", info.value
        assert info.value.details["file"] == str(store_dir / "x.jsonl")
    assert target.read_bytes() == b"the only copy of something that is not a journal"


@pytest.mark.parametrize("kind", ["log", "sqlite"])
def test_a_symlinked_store_file_is_refused_and_its_target_untouched(
        tmp_path: Path, kind: str) -> None:
    target = tmp_path / "precious.txt"
    target.write_bytes(b"not a store")
    link = tmp_path / ("store.log" if kind == "log" else "store.db")
    link.symlink_to(target)
    with pytest.raises(JournalError) as info:
        (LogStore if kind == "log" else SqliteStore)(link, fsync=FsyncPolicy.NEVER)
    assert info.value.code == "journal.not-a-file"
    assert target.read_bytes() == b"not a store"


# -- 2. FIFOs ------------------------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_at_a_journals_path_is_refused_without_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.jsonl")
    store = FileStore(tmp_path, fsync=FsyncPolicy.NEVER)
    with no_hang():
        for call in (lambda: store.read("x"), lambda: store.open("x"),
                     lambda: runtime(store).state("x"),
                     lambda: runtime(store).recover("x")):
            with pytest.raises(JournalError) as info:
                call()
            assert info.value.code == "journal.not-a-file", info.value
        for command in ("show", "check"):
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                status = cli_main(["journal", command, str(tmp_path / "x.jsonl")])
            assert status in (1, 2) and "journal.not-a-file" in out.getvalue(), out.getvalue()
        for maker in (LogStore, SqliteStore):
            with pytest.raises(JournalError) as info:
                maker(tmp_path / "x.jsonl", fsync=FsyncPolicy.NEVER)
            assert info.value.code == "journal.not-a-file"


# -- 3. deep JSON --------------------------------------------------------------------------------
DEEP = 100_000


def test_a_deep_event_line_is_malformed_not_a_recursion_error() -> None:
    data = encode_header("x") + started_line(nested(DEEP))
    with pytest.raises(CorruptJournalError) as info:
        parse_journal(data)
    assert info.value.details["line"] == 2
    assert info.value.details["reason"] == "journal.malformed-line"
    store = MemoryStore()
    store.data["x"] = bytearray(data)
    with pytest.raises(CorruptJournalError):
        runtime(store).recover("x")


def test_a_deep_header_and_a_deep_store_log_line_are_malformed() -> None:
    header = sealed('{"schema":"loom-ref.journal","version":1,"executionId":"x","extra":'
                    + nested(DEEP))
    with pytest.raises(CorruptJournalError) as info:
        parse_journal(header)
    assert (info.value.details["line"], info.value.details["reason"]) == (
        1, "journal.malformed-line")
    log = (sealed('{"schema":"loom-ref.log","version":1') + encode_header("x")
           + sealed('{"executionId":"x","seq":1,"kind":"EXECUTION_STARTED","payload":'
                    '{"executionId":"x","workflow":"w","input":' + nested(DEEP) + "}"))
    with pytest.raises(CorruptJournalError) as info:
        parse_log(log)
    assert (info.value.details["line"], info.value.details["reason"]) == (
        3, "journal.malformed-line")


def test_a_store_log_with_a_deep_line_opens_to_a_corrupt_error(tmp_path: Path) -> None:
    path = tmp_path / "s.log"
    path.write_bytes(sealed('{"schema":"loom-ref.log","version":1') + encode_header("x")
                     + sealed('{"executionId":"x","seq":1,"kind":"EXECUTION_STARTED",'
                              '"payload":{"executionId":"x","workflow":"w","input":'
                              + nested(DEEP) + "}"))
    with pytest.raises(CorruptJournalError) as info:
        LogStore(path, fsync=FsyncPolicy.NEVER)
    assert info.value.details["line"] == 3


def _at_depth(frames: int, call: Callable[[], Any]) -> Any:
    """``call()`` made ``frames`` Python frames deeper than here."""
    if frames <= 0:
        return call()
    return _at_depth(frames - 1, call)


def test_the_limit_is_a_number_not_the_callers_stack() -> None:
    from loom_ref.journal.codec import NESTING_LIMIT
    at_limit = nested(NESTING_LIMIT - 2)  # the line's object, the payload's, then the arrays
    over = nested(NESTING_LIMIT - 1)
    deep_caller = sys.getrecursionlimit() - 60
    for frames in (0, deep_caller):
        store = MemoryStore()
        journal = store.create("x")
        payload = {**START, "input": __import__("json").loads(at_limit)}
        _at_depth(frames, lambda j=journal, p=payload: j.append(K.EXECUTION_STARTED, p))
        data = bytes(store.data["x"])
        parsed = _at_depth(frames, lambda d=data: parse_journal(d))
        assert len(parsed.events) == 1
        with pytest.raises(JournalError) as info:
            MemoryStore().create("x").append(
                K.EXECUTION_STARTED, {**START, "input": __import__("json").loads(over)})
        assert info.value.code == "journal.bad-payload"
        with pytest.raises(CorruptJournalError) as corrupt:
            parse_journal(encode_header("x") + started_line(over))
        assert corrupt.value.details["reason"] == "journal.malformed-line"


# -- 4. raw OSErrors -----------------------------------------------------------------------------
class FailingFs(OsFileSystem):
    """The real disk, except that the named operations fail with ``error``."""

    def __init__(self, error: int, failing: set[str]) -> None:
        self.error = error
        self.failing = failing

    def _maybe(self, op: str, path: str) -> None:
        if op in self.failing:
            raise OSError(self.error, os.strerror(self.error), path)

    def create(self, path: str) -> Any:
        self._maybe("create", path)
        return super().create(path)

    def open(self, path: str, *, create: bool = False) -> Any:
        self._maybe("open", path)
        return super().open(path, create=create)

    def read(self, path: str) -> bytes:
        self._maybe("read", path)
        return super().read(path)


@pytest.mark.parametrize("error", [errno.EACCES, errno.EROFS, errno.EIO])
def test_file_store_failures_are_stable_codes_naming_the_file(tmp_path: Path, error: int) -> None:
    FileStore(tmp_path, fsync=FsyncPolicy.NEVER).create("x").close()
    store = FileStore(tmp_path, fsync=FsyncPolicy.NEVER,
                      fs=FailingFs(error, {"create", "open", "read"}))
    for call in (lambda: store.create("y"), lambda: store.open("x"), lambda: store.read("x")):
        with pytest.raises(JournalError) as info:
            call()
        assert info.value.code in ("journal.io-failed", "journal.unreadable",
                                   "journal.write-failed"), info.value
        assert info.value.details["file"].endswith(".jsonl"), info.value.details
        assert info.value.details["errno"] == errno.errorcode[error]


def test_a_vanished_store_directory_is_a_stable_code(tmp_path: Path) -> None:
    directory = tmp_path / "gone"
    directory.mkdir()
    store = FileStore(directory, fsync=FsyncPolicy.NEVER)
    directory.rmdir()
    with pytest.raises(JournalError) as info:
        store.create("x")
    assert info.value.code == "journal.io-failed"


@pytest.mark.parametrize("error", [errno.EACCES, errno.EROFS])
def test_a_store_log_that_cannot_be_opened_is_a_stable_code(tmp_path: Path, error: int) -> None:
    with pytest.raises(JournalError) as info:
        LogStore(tmp_path / "s.log", fsync=FsyncPolicy.NEVER, fs=FailingFs(error, {"open"}))
    assert info.value.code == "journal.io-failed"
    assert info.value.details["file"] == str(tmp_path / "s.log")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs a directory SQLite cannot "
                    "create a file in")
def test_a_sqlite_store_that_cannot_be_opened_is_a_stable_code() -> None:
    with pytest.raises(JournalError) as info:
        SqliteStore("/proc/self/loom.db", fsync=FsyncPolicy.NEVER)
    assert info.value.code == "journal.io-failed"
    assert info.value.details["file"] == "/proc/self/loom.db"


# -- 5. a failed header write --------------------------------------------------------------------
class NoSpaceOnFirstAppend(OsFileSystem):
    def __init__(self) -> None:
        self.armed = True

    def create(self, path: str) -> Any:
        handle = super().create(path)
        outer = self

        class Failing:
            closed = property(lambda self: handle.closed)

            def __getattr__(self, name: str) -> Any:
                return getattr(handle, name)

            def append(self, data: bytes) -> None:
                if outer.armed:
                    outer.armed = False
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
                handle.append(data)
        return Failing()


@needs_proc
def test_a_failed_header_write_leaks_no_descriptor_and_no_lock(tmp_path: Path) -> None:
    fs = NoSpaceOnFirstAppend()
    store = FileStore(tmp_path, fsync=FsyncPolicy.NEVER, fs=fs)
    before = open_descriptors()
    with pytest.raises(JournalError) as info:
        store.create("x")
    assert info.value.code == "journal.write-failed"
    assert info.value.details["errno"] == "ENOSPC"
    assert open_descriptors() == before
    result = runtime(store).start("w", 2, execution_id="x")  # the disk has room again
    assert result.output == 1
    assert open_descriptors() == before


# -- 6. a foreign EXECUTION_STARTED --------------------------------------------------------------
def test_an_execution_started_naming_another_execution_is_corrupt(tmp_path: Path) -> None:
    data = encode_header("e1") + encode_line(1, "EXECUTION_STARTED", {
        "executionId": "other", "workflow": "w", "input": 99})
    with pytest.raises(CorruptJournalError) as info:
        parse_journal(data)
    assert info.value.details["line"] == 2
    assert info.value.details["reason"] == "journal.bad-payload"
    (tmp_path / "e1.jsonl").write_bytes(data)
    calls: list[Any] = []
    with pytest.raises(CorruptJournalError):
        runtime(FileStore(tmp_path, fsync=FsyncPolicy.NEVER), calls).recover("e1")
    assert calls == []
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        assert cli_main(["journal", "check", str(tmp_path / "e1.jsonl")]) == 1
    assert out.getvalue().startswith("loom-ref: journal.corrupt"), out.getvalue()


# -- 7. duplicate member names -------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    '{"seq":2,"kind":"STREAM_APPENDED","kind":"EXECUTION_COMPLETED","payload":{"output":1,'
    '"streamId":"s","data":1}',
    '{"seq":2,"kind":"EXECUTION_COMPLETED","payload":{"output":1},"crc":"00000000"',
    '{"seq":2,"kind":"EXECUTION_COMPLETED","payload":{"output":{"a":1,"a":2}}',
])
def test_duplicate_member_names_are_malformed(line: str) -> None:
    data = encode_header("x") + encode_line(1, "EXECUTION_STARTED", START) + sealed(line)
    with pytest.raises(CorruptJournalError) as info:
        parse_journal(data)
    assert (info.value.details["line"], info.value.details["reason"]) == (
        3, "journal.malformed-line")
    assert "duplicate" in info.value.message


def test_the_writer_never_writes_a_duplicate_name() -> None:
    # 1 and "1" are two keys in Python and one name in JSON
    journal = MemoryStore().create("x")
    with pytest.raises(JournalError) as info:
        journal.append(K.EXECUTION_STARTED, {**START, "input": {1: "a", "1": "b"}})
    assert info.value.code == "journal.bad-payload"
    assert journal.events == []


# -- 8. a journal unlinked or replaced while held ------------------------------------------------
@pytest.mark.parametrize("how", ["unlink", "replace"])
def test_a_journal_unlinked_or_replaced_while_held_is_reported(tmp_path: Path, how: str) -> None:
    store = FileStore(tmp_path, fsync=FsyncPolicy.WRITE_AHEAD)
    path = Path(store.path("x"))

    def vandal(i: int) -> None:
        if i == 1:
            path.unlink()
            if how == "replace":
                path.write_bytes(b"")
    with pytest.raises(JournalError) as info:
        runtime(store, hook=vandal).start("w", 3, execution_id="x")
    assert info.value.code == "journal.replaced"
    assert info.value.details["file"] == str(path)


# -- 9. ids ------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["CON", "con", "Nul", "aux.x", "COM1", "lpt9.jsonl", "PRN",
                                 "a:b", "com0"])
def test_ids_unsafe_on_some_system_are_refused(bad: str) -> None:
    with pytest.raises(InvalidArgument) as info:
        check_execution_id(bad)
    assert info.value.code == "argument.execution-id"


@pytest.mark.parametrize("good", ["CONSOLE", "com10", "a.con", "nul_", "e1", "LPT"])
def test_names_that_only_look_reserved_are_fine(good: str) -> None:
    assert check_execution_id(good) == good


def _stores(tmp_path: Path) -> list[Any]:
    return [MemoryStore(), FileStore(tmp_path, fsync=FsyncPolicy.NEVER),
            LogStore(tmp_path / "s.log", fsync=FsyncPolicy.NEVER),
            SqliteStore(tmp_path / "s.db", fsync=FsyncPolicy.NEVER)]


def test_ids_differing_only_in_case_are_refused_up_front(tmp_path: Path) -> None:
    for store in _stores(tmp_path):
        store.create("Order-7").close()
        with pytest.raises(InvalidArgument) as info:
            store.create("order-7")
        assert info.value.code == "argument.execution-id", store


class CaseInsensitiveFs(OsFileSystem):
    """The real disk, creating as a case-insensitive file system does: a name whose twin
    exists is taken."""

    def create(self, path: str) -> Any:
        folder, name = os.path.split(path)
        if any(n.lower() == name.lower() for n in os.listdir(folder)):
            raise FileExistsError(errno.EEXIST, "File exists", path)
        return super().create(path)


def test_a_twin_another_store_created_is_found_where_the_file_system_folds_case(
        tmp_path: Path) -> None:
    mine = FileStore(tmp_path, fsync=FsyncPolicy.NEVER, fs=CaseInsensitiveFs())
    mine.create("a1").close()  # lists the directory: no twin yet
    FileStore(tmp_path, fsync=FsyncPolicy.NEVER).create("Order-7").close()  # another process
    with pytest.raises(InvalidArgument) as info:
        mine.create("order-7")
    assert info.value.code == "argument.execution-id"
    with pytest.raises(JournalError) as exists:
        mine.create("a1")
    assert exists.value.code == "journal.exists"


def test_a_journal_of_a_case_only_twin_is_refused_as_an_id(tmp_path: Path) -> None:
    # what a case-insensitive file system hands a file store that opens "x" when "X" exists
    (tmp_path / "x.jsonl").write_bytes(encode_header("X"))
    store = FileStore(tmp_path, fsync=FsyncPolicy.NEVER)
    for call in (lambda: store.open("x"), lambda: store.read("x")):
        with pytest.raises(InvalidArgument) as info:
            call()
        assert info.value.code == "argument.execution-id"


# -- 10. messages --------------------------------------------------------------------------------
def _message(data: bytes) -> str:
    with pytest.raises(CorruptJournalError) as info:
        parse_journal(data)
    return info.value.message


def test_a_byte_order_mark_is_named() -> None:
    assert "byte order mark" in _message(b"\xef\xbb\xbf" + encode_header("x"))


def test_crlf_is_named() -> None:
    data = encode_header("x") + encode_line(1, "EXECUTION_STARTED", START)[:-1] + b"\r\n"
    assert "CR LF" in _message(data)


def test_a_huge_integer_is_named_in_json_terms() -> None:
    message = _message(encode_header("x") + started_line("1" * 5000))
    assert "set_int_max_str_digits" not in message and "too large" in message


def test_journal_check_refuses_a_header_with_a_bad_execution_id(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(encode_header("../../etc/passwd"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        assert cli_main(["journal", "check", str(path)]) == 1
    assert out.getvalue().startswith("loom-ref: journal.corrupt") and "line 1" in out.getvalue()


# -- 8b. the shared stores: the log or database unlinked, replaced or unreachable while held ----
@pytest.mark.parametrize("kind", ["log", "sqlite"])
@pytest.mark.parametrize("how", ["unlink", "replace"])
def test_a_shared_store_unlinked_or_replaced_while_held_is_reported(
        tmp_path: Path, kind: str, how: str) -> None:
    # spec: journal.held-file -- the log store (LogStore._append's still_named check) and the
    # SQLite store (SqliteStore._check_named) report journal.replaced at the next sync and
    # take no more work, like the file store above
    path = tmp_path / ("store.log" if kind == "log" else "store.db")
    store = (LogStore if kind == "log" else SqliteStore)(path, fsync=FsyncPolicy.EVERY_EVENT)
    journal = store.create("x")
    journal.append(K.EXECUTION_STARTED, START)
    path.unlink()
    if how == "replace":
        path.write_bytes(b"")
    with pytest.raises(JournalError) as info:
        journal.append(K.EXECUTION_COMPLETED, {"output": 1})
    assert info.value.code == "journal.replaced"
    assert info.value.details["file"] == str(path)
    with pytest.raises(JournalError) as info:
        store.create("y")
    assert info.value.code == "journal.closed"


def test_a_sqlite_store_whose_path_cannot_be_looked_at_any_more_closes(tmp_path: Path) -> None:
    # SqliteStore._check_named: the database's directory replaced by a file while held, so
    # looking at the path fails (ENOTDIR), not "absent": an OS error naming the file, and the
    # store closed
    home = tmp_path / "home"
    home.mkdir()
    path = home / "store.db"
    store = SqliteStore(path, fsync=FsyncPolicy.EVERY_EVENT)
    journal = store.create("x")
    journal.append(K.EXECUTION_STARTED, START)
    home.rename(tmp_path / "moved")
    home.write_bytes(b"")
    with pytest.raises(JournalError) as info:
        journal.append(K.EXECUTION_COMPLETED, {"output": 1})
    assert info.value.code == "journal.write-failed"  # not journal.replaced: no answer
    assert (info.value.details["errno"], info.value.details["op"]) == ("ENOTDIR", "sync")
    assert info.value.details["file"] == str(path)
    with pytest.raises(JournalError) as info:
        store.create("y")
    assert info.value.code == "journal.closed"


def test_a_sqlite_store_path_the_system_cannot_look_at_is_an_os_error(tmp_path: Path) -> None:
    # _regular_or_absent: an lstat that fails otherwise than "absent" (a name too long)
    path = tmp_path / ("x" * 300 + ".db")
    with pytest.raises(JournalError) as info:
        SqliteStore(path)
    assert info.value.code == "journal.io-failed"
    assert (info.value.details["errno"], info.value.details["op"]) == ("ENAMETOOLONG", "open")
    assert info.value.details["file"] == str(path)


def test_a_file_put_in_place_of_the_checked_sqlite_database_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # _regular_or_absent(expected=...): the database checked, then another regular file put
    # at its path before SQLite opens it (the race spec: journal.regular-files closes)
    path = tmp_path / "store.db"
    with SqliteStore(path, fsync=FsyncPolicy.NEVER) as store:
        store.create("x").append(K.EXECUTION_STARTED, START)
    before = path.read_bytes()
    other = tmp_path / "other.db"
    other.write_bytes(before)
    connect = sqlite3.connect

    def swapped(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        os.replace(other, path)  # a new inode at the checked path
        return connect(*args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", swapped)
    with pytest.raises(JournalError) as info:
        SqliteStore(path, fsync=FsyncPolicy.NEVER)
    assert info.value.code == "journal.not-a-file"
    assert info.value.details["file"] == str(path)
    monkeypatch.undo()
    with SqliteStore(path, fsync=FsyncPolicy.NEVER) as store:  # nothing was left held
        assert store.exists("x")
