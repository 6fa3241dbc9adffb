"""The journal chapter (``spec/journal.md``): events, the JSONL line format, stores, the
torn-tail and corruption rules, fault injection, and ``fold``."""

from loom_ref.journal.codec import ChecksumError, MalformedLineError, decode_line, encode_line
from loom_ref.journal.events import REQUIRED, Event, EventKind, PayloadError
from loom_ref.journal.faults import Crash, FaultInjectingStore
from loom_ref.journal.fold import (
    TRANSITIONS,
    ExecutionState,
    Frame,
    FrameStatus,
    IllegalTransitionError,
    Status,
    fold,
)
from loom_ref.journal.logstore import LogStore, ParsedLog, parse_log
from loom_ref.journal.reader import CorruptJournalError, ParsedJournal, TornTail, parse_journal
from loom_ref.journal.store import (
    FileStore,
    FsyncPolicy,
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
    "REQUIRED",
    "TRANSITIONS",
    "ChecksumError",
    "CorruptJournalError",
    "Crash",
    "Event",
    "EventKind",
    "ExecutionState",
    "FaultInjectingStore",
    "FileStore",
    "Frame",
    "FrameStatus",
    "FsyncPolicy",
    "IllegalTransitionError",
    "Journal",
    "JournalClosedError",
    "JournalExistsError",
    "JournalLockedError",
    "JournalNotFoundError",
    "JournalStore",
    "LineJournal",
    "LogStore",
    "MalformedLineError",
    "MemoryStore",
    "ParsedJournal",
    "ParsedLog",
    "PayloadError",
    "Status",
    "TornTail",
    "decode_line",
    "encode_line",
    "fold",
    "parse_journal",
    "parse_log",
    "read_journal_file",
]
