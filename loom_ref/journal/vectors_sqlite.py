"""The SQLite store's conformance function (an extension): JSON in, JSON out
(``conformance/INTERPRETING.md`` section 3; ``spec/journal.md`` section 1.9,
``journal.sqlite-trace``).

- ``journal.sqlite-trace``: ``{"fsync": <policy>, "steps": [...]}`` -> ``{"answers": [...],
  "calls": [...]}``: the steps of ``journal.store-on-disk`` (``create``, ``open``, ``read``,
  ``close``, ``append``, ``reopen``; no ``tornAppend``: a SQLite transaction is atomic) run
  on a :class:`~loom_ref.journal.SqliteStore` in a fresh temporary directory, each answer as
  there, and what the store did to make its writes durable, in order: each SQL statement
  that sets a durability level or a mode (``{"call": "synchronous", "level": "FULL" |
  "NORMAL"}``, ``{"call": "journalMode", "mode"}``, ``{"call": "lockingMode", "mode"}``),
  begins or ends a transaction (``begin``, ``commit``, ``rollback``) or writes a row
  (``{"call": "insert", "table"}``, ``{"call": "delete", "table"}``), each directory sync
  (``{"call": "fsyncDir"}``), and ``{"call": "open"}`` / ``{"call": "close"}`` for the store
  (``journal.sqlite-wal``, ``journal.dir-sync``). Reads are not listed.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from typing import Any

from loom_ref.errors import InvalidArgument, LoomError
from loom_ref.journal.durability import FsyncPolicy
from loom_ref.journal.events import kind_from_name
from loom_ref.journal.fs import OsFileSystem
from loom_ref.journal.sqlitestore import SqliteStore
from loom_ref.journal.vectors_disk import _check_steps, _obj

__all__ = ["VECTOR_FUNCTIONS", "journal_sqlite_trace"]

_STATEMENTS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], dict[str, Any]]], ...] = (
    (re.compile(r"PRAGMA synchronous=(\w+)"), lambda m: {"call": "synchronous",
                                                       "level": m[1]}),
    (re.compile(r"PRAGMA journal_mode=(\w+)"), lambda m: {"call": "journalMode",
                                                        "mode": m[1]}),
    (re.compile(r"PRAGMA locking_mode=(\w+)"), lambda m: {"call": "lockingMode",
                                                        "mode": m[1]}),
    (re.compile(r"BEGIN\b"), lambda m: {"call": "begin"}),
    (re.compile(r"COMMIT\b"), lambda m: {"call": "commit"}),
    (re.compile(r"ROLLBACK\b"), lambda m: {"call": "rollback"}),
    (re.compile(r"INSERT INTO (\w+)"), lambda m: {"call": "insert", "table": m[1]}),
    (re.compile(r"DELETE FROM (\w+)"), lambda m: {"call": "delete", "table": m[1]}),
)


class _RecordingFs(OsFileSystem):
    """The real disk, its directory syncs recorded."""

    def __init__(self, calls: list[dict[str, Any]]) -> None:
        self.calls = calls

    def sync_dir(self, path: str) -> None:
        self.calls.append({"call": "fsyncDir"})
        super().sync_dir(path)


def journal_sqlite_trace(input: Any) -> dict[str, Any]:
    """``journal.sqlite-trace`` (see the module docstring; spec: journal.sqlite-trace)."""
    data = _obj(input, "input")
    try:
        policy = FsyncPolicy(data.get("fsync"))
    except ValueError:
        raise InvalidArgument(f"fsync must be one of {[p.value for p in FsyncPolicy]}") from None
    steps = data.get("steps")
    if not isinstance(steps, list):
        raise InvalidArgument("journal.sqlite-trace takes {'steps': [...]}")
    checked = _check_steps(steps)
    for i, step in enumerate(checked):
        if step["do"] == "tornAppend":
            raise InvalidArgument(f"steps[{i}]: a SQLite store writes no torn line")
    calls: list[dict[str, Any]] = []

    def statement(sql: str) -> None:
        for pattern, call in _STATEMENTS:
            found = pattern.match(sql.lstrip())
            if found:
                calls.append(call(found))
                return

    fs = _RecordingFs(calls)
    directory = tempfile.mkdtemp(prefix="loom-sqlite-trace-")
    store: SqliteStore | None = None
    journals: dict[str, Any] = {}
    answers: list[Any] = []

    def close_store() -> None:
        for journal in journals.values():
            journal.close()
        journals.clear()
        if store is not None:
            store.close()
            calls.append({"call": "close"})

    try:
        for i, step in enumerate(checked):
            do = step["do"]
            if store is None or do == "reopen":
                close_store()
                calls.append({"call": "open"})
                store = SqliteStore(f"{directory}/store.db", fsync=policy, fs=fs,
                                    trace=statement)
            if do == "reopen":
                answers.append(None)
                continue
            eid: str = step["executionId"]
            try:
                if do == "create":
                    journals[eid] = store.create(eid)
                elif do in ("open", "read"):
                    parsed: Any = store.read(eid) if do == "read" else store.open(eid)
                    if do == "open":
                        journals[eid] = parsed
                    answers.append({"events": [e.kind.value for e in parsed.events],
                                    "torn": parsed.torn is not None})
                    continue
                elif do == "append":
                    if eid not in journals:
                        raise InvalidArgument(f"steps[{i}]: {eid!r} is not open in this store")
                    journals[eid].append(kind_from_name(step.get("kind")), step.get("payload"))
                elif eid in journals:  # close
                    journals.pop(eid).close()
                answers.append(None)
            except InvalidArgument:
                raise
            except LoomError as exc:
                answers.append({"error": exc.code})
        close_store()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return {"answers": answers, "calls": calls}


VECTOR_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = {
    "journal.sqlite-trace": journal_sqlite_trace}
