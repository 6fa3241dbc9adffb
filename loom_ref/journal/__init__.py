"""The journal chapter (``spec/journal.md``): events, the JSONL line format, stores, the
torn-tail and corruption rules, fault injection, durability (fsync policies, the file layer,
the power-loss simulation), ``fold``, and the content-resolving store (an extension)."""

from loom_ref.journal.codec import (
    NESTING_LIMIT,
    ChecksumError,
    MalformedLineError,
    decode_line,
    encode_header,
    encode_line,
)
from loom_ref.journal.contentstore import AGENT_TRANSCRIPT, ContentResolvingStore
from loom_ref.journal.durability import (
    DEFAULT_POLICY,
    GUARANTEES,
    SYNC_AFTER,
    FsyncPolicy,
    Guarantee,
    Invariant,
)
from loom_ref.journal.events import REQUIRED, Event, EventKind, PayloadError
from loom_ref.journal.faults import Crash, FaultInjectingStore
from loom_ref.journal.filestore import FileStore
from loom_ref.journal.fold import (
    TRANSITIONS,
    ExecutionState,
    Frame,
    FrameStatus,
    IllegalTransitionError,
    Status,
    fold,
)
from loom_ref.journal.frozen import FrozenDict, FrozenList, FrozenValueError, frozen_json
from loom_ref.journal.fs import FileHandle, FileSystem, NotRegularFileError, OsFileSystem
from loom_ref.journal.ids import check_execution_id
from loom_ref.journal.logstore import LogStore, ParsedLog, parse_log
from loom_ref.journal.oserrors import (
    JournalFileError,
    JournalIOError,
    JournalReplacedError,
    JournalWriteError,
    NotAFileError,
)
from loom_ref.journal.reader import CorruptJournalError, ParsedJournal, TornTail, parse_journal
from loom_ref.journal.sqlitestore import SqliteStore
from loom_ref.journal.store import (
    Backend,
    Journal,
    JournalClosedError,
    JournalExistsError,
    JournalLockedError,
    JournalNotFoundError,
    JournalStore,
    LineJournal,
    MemoryStore,
    read_journal_file,
)

__all__ = [
    "AGENT_TRANSCRIPT",
    "DEFAULT_POLICY",
    "GUARANTEES",
    "NESTING_LIMIT",
    "REQUIRED",
    "SYNC_AFTER",
    "TRANSITIONS",
    "Backend",
    "ChecksumError",
    "ContentResolvingStore",
    "CorruptJournalError",
    "Crash",
    "Event",
    "EventKind",
    "ExecutionState",
    "FaultInjectingStore",
    "FileHandle",
    "FileStore",
    "FileSystem",
    "Frame",
    "FrameStatus",
    "FrozenDict",
    "FrozenList",
    "FrozenValueError",
    "FsyncPolicy",
    "Guarantee",
    "IllegalTransitionError",
    "Invariant",
    "Journal",
    "JournalClosedError",
    "JournalExistsError",
    "JournalFileError",
    "JournalIOError",
    "JournalLockedError",
    "JournalNotFoundError",
    "JournalReplacedError",
    "JournalStore",
    "JournalWriteError",
    "LineJournal",
    "LogStore",
    "MalformedLineError",
    "MemoryStore",
    "NotAFileError",
    "NotRegularFileError",
    "OsFileSystem",
    "ParsedJournal",
    "ParsedLog",
    "PayloadError",
    "SqliteStore",
    "Status",
    "TornTail",
    "check_execution_id",
    "decode_line",
    "encode_header",
    "encode_line",
    "fold",
    "frozen_json",
    "parse_journal",
    "parse_log",
    "read_journal_file",
]
