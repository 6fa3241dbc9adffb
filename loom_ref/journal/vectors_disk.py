"""The journal's conformance functions on a simulated disk: the power-loss model itself, and
what a store does to a disk (``spec/journal.md`` section 1.8).

- ``journal.power-loss``: ``{"directories"?: [path], "image"?: {path: text}, "ops": [op,
  ...]}`` runs the operations on a fresh :class:`~loom_ref.journal.powerloss.SimulatedDisk`
  (directories default ``["/disk"]``; with ``image``, a disk booted from those files, every
  byte and name of them durable). It answers ``{"answers": [...], "moments", "syncs",
  "dirSyncs", "images": [{variant, files: {path: text}}]}``: one answer per op, the disk's
  counters, and the distinct images a power loss right after the last op may leave (spec:
  journal.power-loss-model). An op is ``{"op": "create", "path", "as"}``, ``{"op": "open",
  "path", "create"?, "as"}``, ``{"op": "append" | "truncate" | "fsync" | "lock" | "close" |
  "readAll", "file", "text"? | "size"?}`` or ``{"op": "read" | "exists" | "isDir" |
  "fsyncDir", "path"}``; ``file`` names a handle an earlier op bound with ``as``. An answer
  is ``null``, a boolean (``lock``, ``exists``, ``isDir``), the bytes read, or ``{"error":
  "exists" | "not-found" | "closed"}``. A listed directory's path holds no file: ``create``
  of it is ``exists`` (so is ``open`` with ``create``), and an ``image`` file there is
  ``argument.invalid``.
- ``journal.store-on-disk``: ``{"store": "files" | "log", "fsync": <policy>, "planted"?:
  {path: "symlink" | "fifo"}, "steps": [step, ...]}`` runs a file store (``/disk``) or a
  store log (``/disk/store.log``) on a fresh simulated disk, which with ``planted`` also
  holds a link or a FIFO at each path given (spec: journal.regular-files). It answers
  ``{"answers": [...], "calls": [...], "images": [...]}``: one answer per step (``null``,
  or ``{"error": <code>}``), every call the store made of the file layer that changes the
  disk or its locks, in order, and the images after the last step (spec:
  journal.fsync-policy, journal.dir-sync, journal.write-before-act). A step is
  ``{"do": "create" | "open" | "read" | "close", "executionId"}`` (``open`` and ``read``
  answer ``{"events": [kind, ...], "torn": bool}``: what the journal holds, and whether a
  torn tail is reported; ``read`` takes no writer), ``{"do": "append", "executionId",
  "kind", "payload"}``, ``{"do": "tornAppend", "executionId", "kind", "payload", "bytes"}``
  (only the first ``bytes`` of the line are written, as by a crash in mid-write; either append
  may give ``payloadText``, the payload's JSON text, in place of ``payload``) or ``{"do":
  "reopen"}`` (the store is closed and opened again on the same disk, as by a new process).
  A call is ``{"call": <name>, "path", "lines"?}``, the name one of ``create`` (a
  file that did not exist is made), ``open`` (an existing one), ``append``, ``truncate``,
  ``fsync``, ``fsyncDir``, ``lock`` and ``close``; what only reads is not listed. A write,
  and a file of an image, are told by their lines, not their bytes (a writer's member order
  and spacing are its own): each complete line by its header's ``schema`` or its event's
  ``kind``, an unterminated tail as ``"torn"``.

Bytes travel as text, one character per byte (U+0000 to U+00FF, latin-1); input text must
be ASCII, so that every character is one byte in every language.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from loom_ref.errors import InvalidArgument, LoomError
from loom_ref.journal.codec import nesting_depth
from loom_ref.journal.durability import FsyncPolicy
from loom_ref.journal.events import kind_from_name
from loom_ref.journal.filestore import FileStore
from loom_ref.journal.fs import FileHandle
from loom_ref.journal.ids import check_execution_id
from loom_ref.journal.logstore import LogStore
from loom_ref.journal.powerloss import DiskImage, SimulatedDisk, directory_of
from loom_ref.journal.store import LineJournal

__all__ = ["VECTOR_FUNCTIONS", "journal_power_loss", "journal_store_on_disk"]


def _obj(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidArgument(f"{what} must be a JSON object")
    return value


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"{what} must be a non-empty string")
    return value


def _ascii(value: Any, what: str) -> bytes:
    if not isinstance(value, str) or not value.isascii():
        raise InvalidArgument(f"{what} must be ASCII text")
    return value.encode("ascii")


#: the most arrays and objects a ``payloadText`` may nest (``journal.store-on-disk-vector``):
#: far past the journal's limit of 128, which is what a case hands over a deep payload for
PAYLOAD_TEXT_DEPTH = 512


def _step_payload(step: Mapping[str, Any], where: str) -> Any:
    """An append step's payload: ``payload``, or ``payloadText``, its JSON text, for a payload
    that nests deeper than a protocol message may (INTERPRETING.md section 4, *Depth*).

    spec: journal.store-on-disk-vector -- "never both; a text that is not one JSON value is
    ``argument.invalid``"."""
    if "payloadText" not in step:
        return step.get("payload")
    text = step["payloadText"]
    if "payload" in step:
        raise InvalidArgument(f"{where} gives both payload and payloadText")
    if not isinstance(text, str):
        raise InvalidArgument(f"{where}.payloadText must be a string")
    if nesting_depth(text.encode("utf-8", "surrogatepass")) > PAYLOAD_TEXT_DEPTH:
        # counted in the bytes, never decoded: a decoder's stack is no limit of the protocol
        raise InvalidArgument(f"{where}.payloadText nests more than {PAYLOAD_TEXT_DEPTH} "
                              f"arrays and objects")
    def not_json(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")
    try:
        return json.loads(text, parse_constant=not_json)
    except ValueError as exc:
        raise InvalidArgument(f"{where}.payloadText is not one JSON value: {exc}") from None


def _size(value: Any, what: str) -> int:
    if type(value) is not int or value < 0:
        raise InvalidArgument(f"{what} must be an int >= 0")
    return value


def _text(data: bytes) -> str:
    return data.decode("latin-1")


def _lines(data: bytes) -> list[str]:
    """What a journal writer's bytes hold, line by line, whatever its member order or
    spacing: a header line by its ``schema``, an event line by its ``kind``, and an
    unterminated tail as ``"torn"``."""
    *whole, tail = data.split(b"\n")
    # every whole line is one a store wrote: a JSON object (a store writes no other)
    out = [str(doc.get("schema") or doc.get("kind")) for doc in map(json.loads, whole)]
    if tail:
        out.append("torn")
    return out


def _images(images: Sequence[DiskImage], *, lines: bool = False) -> list[dict[str, Any]]:
    def show(data: bytes) -> Any:
        return _lines(data) if lines else _text(data)
    return [{"variant": image.variant,
             "files": {name: show(data) for name, data in sorted(image.files.items())}}
            for image in images]


def _disk_op(disk: SimulatedDisk, handles: dict[str, FileHandle], op: Mapping[str, Any],
             where: str) -> Any:
    """One operation of ``journal.power-loss`` on ``disk``; its answer (or the OS error)."""
    name = op.get("op")
    if name in ("create", "open"):
        path = _str(op.get("path"), f"{where}.path")
        bind = _str(op.get("as"), f"{where}.as")
        # spec: journal.power-loss-vector -- `create` is open's member; a member an operation
        # does not name is ignored (a create operation's `create` included)
        create = op.get("create", False) if name == "open" else False
        if not isinstance(create, bool):
            raise InvalidArgument(f"{where}.create must be a boolean")
        handles[bind] = disk.create(path) if name == "create" else disk.open(path, create=create)
        return None
    if name in ("read", "exists", "isDir", "fsyncDir"):
        path = _str(op.get("path"), f"{where}.path")
        if name == "read":
            return _text(disk.read(path))
        if name == "fsyncDir":
            disk.sync_dir(path)
            return None
        return disk.exists(path) if name == "exists" else disk.is_dir(path)
    if name not in ("append", "truncate", "fsync", "lock", "close", "readAll"):
        raise InvalidArgument(f"{where}.op {name!r} is not a disk operation")
    bound = _str(op.get("file"), f"{where}.file")
    if bound not in handles:
        raise InvalidArgument(f"{where}.file names no handle bound by an earlier op")
    f = handles[bound]
    if name == "append":
        f.append(_ascii(op.get("text"), f"{where}.text"))
    elif name == "truncate":
        f.truncate(_size(op.get("size"), f"{where}.size"))
    elif name == "fsync":
        f.sync()
    elif name == "lock":
        return f.lock()
    elif name == "close":
        f.close()
    else:
        return _text(f.read_all())
    return None


def journal_power_loss(input: Any) -> dict[str, Any]:
    """``journal.power-loss`` (see the module docstring; spec: journal.power-loss-vector)."""
    data = _obj(input, "input")
    directories = data.get("directories", ["/disk"])
    if not isinstance(directories, list):
        raise InvalidArgument("directories must be a list of absolute paths")
    ops = data.get("ops")
    if not isinstance(ops, list):
        raise InvalidArgument("journal.power-loss takes {'ops': [...]}")
    image = data.get("image")
    if image is None:
        disk = SimulatedDisk(directories=directories)
    else:  # a disk booted from what a power loss left: everything on it durable
        files = _obj(image, "image")
        if any(path in directories for path in files):  # spec: journal.power-loss-vector
            raise InvalidArgument("an image holds no file at a listed directory's path")
        disk = SimulatedDisk(image=DiskImage(
            files={_str(k, "an image path"): _ascii(v, f"image[{k!r}]") for k, v in files.items()},
            directories=frozenset(directories), variant="given", moment=0))
    handles: dict[str, FileHandle] = {}
    answers = []
    for i, raw in enumerate(ops):
        op = _obj(raw, f"ops[{i}]")
        where = f"ops[{i}]"
        try:
            answers.append(_disk_op(disk, handles, op, where))
        except FileExistsError:
            answers.append({"error": "exists"})
        except FileNotFoundError:
            answers.append({"error": "not-found"})
        except ValueError as exc:  # I/O on a closed file (InvalidArgument is a ValueError too)
            if isinstance(exc, InvalidArgument):
                raise
            answers.append({"error": "closed"})
    return {"answers": answers, "moments": disk.moments, "syncs": disk.syncs,
            "dirSyncs": disk.dir_syncs, "images": _images(disk.snapshot().images())}


class _RecordingFile:
    """A file handle that records every call made of it."""

    def __init__(self, inner: FileHandle, path: str, calls: list[dict[str, Any]]) -> None:
        self._inner = inner
        self._path = path
        self._calls = calls

    @property
    def closed(self) -> bool:
        return self._inner.closed

    def _note(self, call: str, **extra: Any) -> None:
        self._calls.append({"call": call, "path": self._path, **extra})

    def read_all(self) -> bytes:
        return self._inner.read_all()

    def append(self, data: bytes) -> None:
        self._note("append", lines=_lines(data))
        self._inner.append(data)

    def truncate(self, size: int) -> None:
        self._note("truncate")  # the size is in the writer's bytes: not listed
        self._inner.truncate(size)

    def sync(self) -> None:
        self._note("fsync")
        self._inner.sync()

    def lock(self) -> bool:
        self._note("lock")
        return self._inner.lock()

    def still_named(self) -> bool:
        return self._inner.still_named()

    def close(self) -> None:
        self._note("close")
        self._inner.close()


class _RecordingDisk:
    """The simulated disk, recording every call a store makes of the file layer."""

    def __init__(self, disk: SimulatedDisk) -> None:
        self.disk = disk
        self.calls: list[dict[str, Any]] = []

    def create(self, path: str) -> _RecordingFile:
        self.calls.append({"call": "create", "path": path})
        return _RecordingFile(self.disk.create(path), path, self.calls)

    def open(self, path: str, *, create: bool = False) -> _RecordingFile:
        made = create and not self.disk.exists(path)
        self.calls.append({"call": "create" if made else "open", "path": path})
        return _RecordingFile(self.disk.open(path, create=create), path, self.calls)

    def read(self, path: str) -> bytes:
        return self.disk.read(path)

    def exists(self, path: str) -> bool:
        return self.disk.exists(path)

    def is_dir(self, path: str) -> bool:
        return self.disk.is_dir(path)

    def list_dir(self, path: str) -> list[str]:
        return self.disk.list_dir(path)

    def sync_dir(self, path: str) -> None:
        self.calls.append({"call": "fsyncDir", "path": path})
        self.disk.sync_dir(path)


#: What ``planted`` may put at a path, and the kind the file layer names it by.
_PLANTED = {"symlink": "symbolic link", "fifo": "FIFO"}

_STORES: Mapping[str, Callable[[FsyncPolicy, _RecordingDisk], Any]] = {
    "files": lambda policy, fs: FileStore("/disk", fsync=policy, fs=fs),
    "log": lambda policy, fs: LogStore("/disk/store.log", fsync=policy, fs=fs),
}


_STEPS = ("create", "open", "read", "close", "append", "tornAppend", "reopen")


def _check_steps(steps: Sequence[Any]) -> list[Mapping[str, Any]]:
    """Check every step before any runs (spec: journal.store-on-disk-vector -- the whole
    input is checked before the store is opened): each an object with a known ``do``, an
    ``executionId`` string on every step but ``reopen``, spelled as an id on ``create``,
    ``open`` and ``read`` (``argument.execution-id``), a ``tornAppend``'s ``bytes`` an
    integer of at least 1, and an append's ``payloadText`` one JSON text (the steps come back
    with it decoded into ``payload``); the first problem, in step order, refuses the whole
    call."""
    out = []
    for i, raw in enumerate(steps):
        where = f"steps[{i}]"
        step = _obj(raw, where)
        do = step.get("do")
        if not isinstance(do, str) or do not in _STEPS:
            raise InvalidArgument(f"{where}.do {do!r} is not a store step")
        if do != "reopen":
            eid = step.get("executionId")
            if not isinstance(eid, str):
                raise InvalidArgument(f"{where}.executionId must be a string")
            if do in ("create", "open", "read"):
                check_execution_id(eid)
        if do == "tornAppend" and _size(step.get("bytes"), f"{where}.bytes") < 1:
            raise InvalidArgument(f"{where}.bytes must be at least 1")
        if do in ("append", "tornAppend"):  # the payload, decoded once from payloadText
            step = {**{k: v for k, v in step.items() if k != "payloadText"},
                    "payload": _step_payload(step, where)}
        out.append(step)
    return out


def journal_store_on_disk(input: Any) -> dict[str, Any]:
    """``journal.store-on-disk`` (see the module docstring; spec:
    journal.store-on-disk-vector)."""
    data = _obj(input, "input")
    kind = data.get("store")
    if not isinstance(kind, str) or kind not in _STORES:
        raise InvalidArgument(f"store must be one of {sorted(_STORES)}")
    try:
        policy = FsyncPolicy(data.get("fsync"))
    except ValueError:
        raise InvalidArgument(f"fsync must be one of {[p.value for p in FsyncPolicy]}") from None
    steps = data.get("steps")
    if not isinstance(steps, list):
        raise InvalidArgument("journal.store-on-disk takes {'steps': [...]}")
    planted = _obj(data.get("planted", {}), "planted")
    kinds = {}
    for path, what in planted.items():  # spec: journal.regular-files
        if not isinstance(what, str) or what not in _PLANTED or directory_of(path) != "/disk":
            raise InvalidArgument(f"planted maps a path in /disk to one of {sorted(_PLANTED)}")
        kinds[path] = _PLANTED[what]
    fs = _RecordingDisk(SimulatedDisk(planted=kinds))
    store: Any = None
    journals: dict[str, LineJournal] = {}
    answers: list[Any] = []

    def close_store() -> None:
        for journal in journals.values():
            journal.close()
        journals.clear()
        if isinstance(store, LogStore):
            store.close()

    for i, step in enumerate(_check_steps(steps)):
        do = step.get("do")
        where = f"steps[{i}]"
        try:
            if store is None or do == "reopen":
                close_store()
                store = None
                store = _STORES[kind](policy, fs)
            if do == "reopen":
                answers.append(None)
                continue
            eid: str = step["executionId"]  # a string, spelled as an id where it names one
            if do == "create":
                journals[eid] = store.create(eid)
            elif do in ("open", "read"):  # what the journal holds, and whether it is torn
                parsed: Any = store.read(eid) if do == "read" else store.open(eid)
                if do == "open":
                    journals[eid] = parsed
                answers.append({"events": [e.kind.value for e in parsed.events],
                                "torn": parsed.torn is not None})
                continue
            elif do in ("append", "tornAppend"):
                # spec: journal.store-on-disk-vector -- the order of refusals: the step's own
                # members (argument.invalid), a journal that takes no more appends
                # (journal.closed), the event (journal.bad-payload), then where a torn write
                # may stop
                if eid not in journals:
                    raise InvalidArgument(f"{where}: {eid!r} is not open in this store")
                nbytes: int = step["bytes"] if do == "tornAppend" else 0
                journal = journals[eid]
                journal.check_writable()
                kind_ = kind_from_name(step.get("kind"))
                payload: Any = step.get("payload")  # checked by the writer (journal.bad-payload)
                if do == "append":
                    journal.append(kind_, payload)
                else:  # a crash in the middle of the write: the journal takes no more
                    journal.write_torn(kind_, payload, nbytes)
            else:  # close
                if eid in journals:
                    journals.pop(eid).close()
            answers.append(None)
        except InvalidArgument:
            raise
        except LoomError as exc:
            answers.append({"error": exc.code})
    close_store()
    return {"answers": answers, "calls": fs.calls,
            "images": _images(fs.disk.snapshot().images(), lines=True)}


VECTOR_FUNCTIONS: Mapping[str, Callable[[Any], Any]] = {
    "journal.power-loss": journal_power_loss,
    "journal.store-on-disk": journal_store_on_disk,
}
