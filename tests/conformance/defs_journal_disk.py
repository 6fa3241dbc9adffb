"""Definitions of the journal.disk vectors: the power-loss model of ``spec/journal.md`` 1.8
(``journal.power-loss``) and what a store does to a disk (``journal.store-on-disk``)."""

from __future__ import annotations

import json
from typing import Any

from .gen_cases import vector

FILE = "/disk/a"


def create(path: str = FILE, name: str = "f") -> dict[str, Any]:
    return {"op": "create", "path": path, "as": name}


def op(name: str, file: str = "f", **kw: Any) -> dict[str, Any]:
    return {"op": name, "file": file, **kw}


def images(result: dict[str, Any]) -> dict[str, Any]:
    return {i["variant"]: i["files"] for i in result["result"]["images"]}


def answers(result: dict[str, Any]) -> list[Any]:
    return list(result["result"]["answers"])


def power_loss(name: str, description: str, ops: list[Any], claim: Any, **extra: Any
               ) -> dict[str, Any]:
    return vector(f"journal.disk/{name}", "journal.power-loss-model", description,
                  function="journal.power-loss", input={"ops": ops, **extra}, claim=claim,
                  tier="may")


STARTED = {"executionId": "e1", "workflow": "w", "input": None}
EVENTS = [("EXECUTION_STARTED", STARTED), ("STEP_STARTED", {
    "stepId": "t#1", "toolId": "t", "input": 1, "idempotencyKey": "e1/t#1"}),
    ("STEP_COMPLETED", {"stepId": "t#1", "output": 2}),
    ("EXECUTION_COMPLETED", {"output": 2})]


def appends(eid: str = "e1", events: Any = EVENTS) -> list[dict[str, Any]]:
    return [{"do": "append", "executionId": eid, "kind": k, "payload": p} for k, p in events]


def calls(result: dict[str, Any], *names: str) -> list[str]:
    """The names of the calls made, keeping only ``names`` if given."""
    return [c["call"] for c in result["result"]["calls"] if not names or c["call"] in names]


def on_disk(name: str, anchor: str, description: str, store: str, fsync: str,
            steps: list[Any], claim: Any) -> dict[str, Any]:
    return vector(f"journal.disk/{name}", anchor, description, function="journal.store-on-disk",
                  input={"store": store, "fsync": fsync, "steps": steps}, claim=claim)


#: ONE_RUN's calls under write-ahead, on either store: the headers, EXECUTION_STARTED and
#: STEP_STARTED synced together (the directory with them), then the rest at the boundary
WRITE_AHEAD_RUN = ["create", "lock", "append", "append", "append", "fsync", "fsyncDir",
                   "append", "append", "fsync", "close"]

ONE_RUN = [{"do": "create", "executionId": "e1"}, *appends(), {"do": "close", "executionId": "e1"}]

DEFINITIONS: list[dict[str, Any]] = [
    # -- the model ---------------------------------------------------------------------------
    power_loss("synced-bytes-unsynced-name",
               "What a file's fsync covered survives, but a name created since its directory's "
               "last fsync may be lost, its file with it: the 'synced' image has no file, "
               "'names' keeps the synced bytes, 'written' everything.",
               [create(), op("append", text="one\n"), op("fsync"), op("append", text="two\n")],
               lambda r: images(r)["synced"] == {}
               and images(r)["names"] == {FILE: "one\n"}
               and images(r)["written"] == {FILE: "one\ntwo\n"}),
    power_loss("directory-sync-keeps-the-name",
               "After the directory's fsync the file's name is durable: the 'synced' image "
               "holds the file as its last fsync left it.",
               [create(), op("append", text="one\n"), op("fsync"),
                {"op": "fsyncDir", "path": "/disk"}, op("append", text="two\n")],
               lambda r: images(r)["synced"] == {FILE: "one\n"}
               and r["result"]["dirSyncs"] == 1 and r["result"]["syncs"] == 1),
    power_loss("torn-and-zeroed",
               "The last unsynced append may be torn at one byte (at 1 + (moment * 7919) mod "
               "(length - 1), moment 4 here) or land as zeros of its length.",
               [create(), {"op": "fsyncDir", "path": "/disk"}, op("append", text="one\n"),
                op("append", text="abcdefgh\n")],
               lambda r: images(r)["torn"] == {FILE: "one\nabcde"}
               and images(r)["zeroed"] == {FILE: "one\n" + "\u0000" * 9}),
    power_loss("prefix-of-the-unsynced",
               "The operations since the last fsync survive as an in-order prefix: 'prefix' "
               "keeps the first half of them.",
               [create(), {"op": "fsyncDir", "path": "/disk"}, op("append", text="a\n"),
                op("fsync"), op("append", text="b\n"), op("append", text="c\n"),
                op("append", text="d\n"), op("append", text="e\n")],
               lambda r: images(r)["prefix"] == {FILE: "a\nb\nc\n"}
               and images(r)["synced"] == {FILE: "a\n"}),
    power_loss("truncate-is-pending-too",
               "A truncation is an operation like an append: until the next fsync a power "
               "loss may undo it; a last operation that is no append is neither torn nor "
               "zeroed.",
               [create(), {"op": "fsyncDir", "path": "/disk"}, op("append", text="keep\ncut"),
                op("fsync"), op("truncate", size=5)],
               lambda r: images(r)["synced"] == {FILE: "keep\ncut"}
               and images(r)["written"] == {FILE: "keep\n"}
               and "torn" not in images(r) and "zeroed" not in images(r)),
    power_loss("equal-images-once",
               "Images that come out equal are given once, in the order synced, names, "
               "written, torn, zeroed, prefix: after a whole sync only 'synced' is left.",
               [create(), op("append", text="x\n"), op("fsync"),
                {"op": "fsyncDir", "path": "/disk"}],
               lambda r: [i["variant"] for i in r["result"]["images"]] == ["synced"]),
    power_loss("directories-are-absolute",
               "The simulated disk's directories are absolute paths: a list holding a "
               "relative one is refused (argument.invalid) before any operation runs.",
               [create()], lambda r: r == {"error": {"code": "argument.invalid"}},
               directories=["/disk", "disk2"]),
    power_loss("boot-from-an-image",
               "A disk booted from an image holds its files durably: nothing of them can be "
               "lost by the next power loss.",
               [{"op": "read", "path": FILE}, {"op": "exists", "path": FILE}],
               lambda r: answers(r) == ["kept\n", True]
               and images(r) == {"synced": {FILE: "kept\n"}},
               image={FILE: "kept\n"}),
    power_loss("image-null-is-absent",
               "An image of null is no image (an optional member given null is absent): the "
               "disk is a fresh one, with no files, not a refusal.",
               [{"op": "read", "path": FILE}, {"op": "exists", "path": FILE}],
               lambda r: answers(r) == [{"error": "not-found"}, False]
               and images(r) == {"synced": {}},
               image=None),
    power_loss("operation-errors",
               "The file layer's refusals: creating a file that exists, opening one that does "
               "not, creating in a directory that does not exist, writing or reading a closed "
               "file, syncing a directory that does not exist.",
               [create(), create(name="g"), {"op": "open", "path": "/disk/none", "as": "h"},
                create("/nowhere/b", "i"), op("close"), op("append", text="x"),
                op("readAll"), {"op": "fsyncDir", "path": "/nowhere"}],
               lambda r: answers(r) == [None, {"error": "exists"}, {"error": "not-found"},
                                        {"error": "not-found"}, None, {"error": "closed"},
                                        {"error": "closed"}, {"error": "not-found"}]),
    power_loss("open-create",
               "Opening with create makes a missing file (a moment), and opens an existing one "
               "without one; reads see every byte written, synced or not.",
               [{"op": "open", "path": FILE, "create": True, "as": "f"},
                op("append", text="hi\n"), {"op": "open", "path": FILE, "create": True,
                                            "as": "g"},
                op("readAll", "g"), {"op": "read", "path": FILE},
                {"op": "isDir", "path": "/disk"}, {"op": "exists", "path": "/disk/none"}],
               lambda r: answers(r) == [None, None, None, "hi\n", "hi\n", True, False]
               and r["result"]["moments"] == 2),
    power_loss("one-lock",
               "An exclusive lock: a second open file of the same path cannot take it until "
               "the first is closed; taking it again is harmless.",
               [create(), {"op": "open", "path": FILE, "as": "g"}, op("lock"), op("lock"),
                op("lock", "g"), op("close"), op("lock", "g")],
               lambda r: answers(r) == [None, None, True, True, False, None, True]),
    # -- a store on the disk -------------------------------------------------------------------
    on_disk("files-every-event", "journal.fsync-policy",
            "The file store under every-event: each append is written, then synced, before it "
            "returns; the directory is synced once, at the first sync of the execution's file.",
            "files", "every-event", ONE_RUN,
            lambda r: calls(r) == ["create", "lock", "append", "append", "fsync", "fsyncDir",
                                   "append", "fsync", "append", "fsync", "append", "fsync",
                                   "close"]),
    on_disk("files-write-ahead", "journal.write-ahead",
            "The file store under write-ahead, every store's default: a sync after "
            "STEP_STARTED (before the step's effect runs, the directory with it) and after "
            "the boundary (before the call returns); the events between are made durable "
            "together by the next sync.",
            "files", "write-ahead", ONE_RUN,
            lambda r: calls(r) == WRITE_AHEAD_RUN
            and r["result"]["calls"][4]["lines"] == ["STEP_STARTED"]
            and r["result"]["calls"][8]["lines"] == ["EXECUTION_COMPLETED"]),
    on_disk("files-at-boundaries", "journal.fsync-policy",
            "Under at-boundaries the file store syncs only after the boundary kinds "
            "(EXECUTION_COMPLETED here), then the directory.",
            "files", "at-boundaries", ONE_RUN,
            lambda r: calls(r, "fsync", "fsyncDir") == ["fsync", "fsyncDir"]),
    on_disk("files-never", "journal.fsync-policy",
            "Under never nothing is synced, the directory included: a power loss may take "
            "the whole journal.",
            "files", "never", ONE_RUN,
            lambda r: calls(r, "fsync", "fsyncDir") == []
            and r["result"]["images"][0] == {"variant": "synced", "files": {}}),
    on_disk("files-unsynced-tail", "journal.fsync-policy",
            "Under at-boundaries the events since the last boundary may be lost to a power "
            "loss: before any boundary nothing is synced, so the synced image holds no file "
            "(its name was never synced), the names image keeps the name with no bytes, and "
            "the prefix image (the first half of the three appends) ends at the header.",
            "files", "at-boundaries",
            [{"do": "create", "executionId": "e1"}, *appends(events=EVENTS[:2])],
            lambda r: images(r)["synced"] == {}
            and images(r)["names"] == {"/disk/e1.jsonl": []}
            and images(r)["prefix"] == {"/disk/e1.jsonl": ["loom-ref.journal"]}
            and images(r)["written"] == {"/disk/e1.jsonl": [
                "loom-ref.journal", "EXECUTION_STARTED", "STEP_STARTED"]}),
    on_disk("files-dir-sync-per-store", "journal.dir-sync",
            "Each store syncs the directory once for every execution it writes, for a file "
            "it opens as for one it creates: a writer cannot know whether its creator lived "
            "to sync the name.",
            "files", "every-event",
            [{"do": "create", "executionId": "e1"}, *appends(events=EVENTS[:1]),
             {"do": "append", "executionId": "e1", "kind": "STEP_STARTED",
              "payload": EVENTS[1][1]},
             {"do": "create", "executionId": "e2"},
             *appends("e2", [("EXECUTION_STARTED", {**STARTED, "executionId": "e2"})]),
             {"do": "reopen"}, {"do": "open", "executionId": "e1"},
             {"do": "append", "executionId": "e1", "kind": "STEP_COMPLETED",
              "payload": EVENTS[2][1]}],
            lambda r: calls(r, "fsyncDir") == ["fsyncDir"] * 3),
    on_disk("files-torn-tail-truncated", "journal.torn-tail",
            "A writer truncates a torn tail before its first append; the journal reads back "
            "whole.",
            "files", "every-event",
            [{"do": "create", "executionId": "e1"}, *appends(events=EVENTS[:1]),
             {"do": "tornAppend", "executionId": "e1", "kind": "STEP_STARTED",
              "payload": EVENTS[1][1], "bytes": 10},
             {"do": "reopen"}, {"do": "open", "executionId": "e1"},
             *appends(events=EVENTS[1:2])],
            lambda r: "truncate" in calls(r)
            and images(r)["synced"] == {"/disk/e1.jsonl": [
                "loom-ref.journal", "EXECUTION_STARTED", "STEP_STARTED"]}),
    on_disk("files-one-writer", "journal.single-writer",
            "A journal has one writer: opening it while a writer holds it is journal.locked; "
            "creating one that exists is journal.exists; opening one that does not is "
            "journal.not-found.",
            "files", "never",
            [{"do": "create", "executionId": "e1"}, {"do": "open", "executionId": "e1"},
             {"do": "create", "executionId": "e1"}, {"do": "open", "executionId": "e9"}],
            lambda r: r["result"]["answers"][1:] == [{"error": "journal.locked"},
                                                     {"error": "journal.exists"},
                                                     {"error": "journal.not-found"}]),
    on_disk("log-every-event", "journal.fsync-policy",
            "The store log under every-event: every line is written and synced before the "
            "append returns, the execution's header in the same write as its first event, "
            "and the directory is synced once per store.",
            "log", "every-event", ONE_RUN,
            lambda r: calls(r) == ["create", "lock", "append", "append", "fsync", "fsyncDir",
                                   "append", "fsync", "append", "fsync", "append", "fsync",
                                   "close"]
            and r["result"]["calls"][3]["lines"] == ["loom-ref.journal", "EXECUTION_STARTED"]),
    on_disk("log-write-ahead", "journal.write-ahead",
            "The store log under write-ahead: synced after STEP_STARTED and after the "
            "boundary only, the directory once per store, at the first sync.",
            "log", "write-ahead", ONE_RUN,
            lambda r: calls(r) == WRITE_AHEAD_RUN
            and r["result"]["calls"][4]["lines"] == ["STEP_STARTED"]),
    on_disk("log-at-boundaries", "journal.fsync-policy",
            "Under at-boundaries the store log syncs after the boundary kinds only.",
            "log", "at-boundaries", ONE_RUN,
            lambda r: calls(r, "fsync", "fsyncDir") == ["fsync", "fsyncDir"]),
    on_disk("bad-execution-id", "journal.execution-ids",
            "A store refuses an execution id that is not a safe file name where it names a "
            "journal, before it touches the disk: the whole call is refused.",
            "files", "write-ahead", [{"do": "create", "executionId": "e1"},
                                     {"do": "create", "executionId": "../e2"}],
            lambda r: r == {"error": {"code": "argument.execution-id"}}),
    on_disk("log-read-refuses-bad-execution-id", "journal.execution-ids",
            "The store log refuses an execution id that is not a safe file name on read too, "
            "as every store does where an id names a journal: argument.execution-id, not "
            "journal.not-found.",
            "log", "write-ahead", [{"do": "create", "executionId": "e1"},
                                   {"do": "read", "executionId": "../e1"}],
            lambda r: r == {"error": {"code": "argument.execution-id"}}),
    on_disk("log-dir-sync-per-store", "journal.dir-sync",
            "The store log syncs its directory once per store: again after the store is "
            "opened anew, since the writer cannot know whether the log's creator synced it.",
            "log", "every-event",
            [*ONE_RUN[:3], {"do": "reopen"}, {"do": "create", "executionId": "e2"},
             *appends("e2", [("EXECUTION_STARTED", {**STARTED, "executionId": "e2"})])],
            lambda r: calls(r, "fsyncDir") == ["fsyncDir", "fsyncDir"]),
    on_disk("log-never", "journal.fsync-policy",
            "Under never the store log syncs nothing.",
            "log", "never", ONE_RUN,
            lambda r: calls(r, "fsync", "fsyncDir") == []),
    on_disk("log-torn-tail-named-once", "journal.log-torn-tail",
            "On the store log, torn bytes that name an execution are reported to that "
            "execution alone, read or opened, until a writer opens it; torn bytes that stop "
            "before the end of the id name none, and are reported to nobody.",
            "log", "every-event",
            [{"do": "create", "executionId": "e1"}, *appends(events=EVENTS[:1]),
             {"do": "create", "executionId": "e2"},
             *appends("e2", [("EXECUTION_STARTED", {**STARTED, "executionId": "e2"})]),
             {"do": "tornAppend", "executionId": "e1", "kind": "STEP_STARTED",
              "payload": EVENTS[1][1], "bytes": 24},
             {"do": "reopen"}, {"do": "read", "executionId": "e2"},
             {"do": "read", "executionId": "e1"}, {"do": "open", "executionId": "e1"},
             {"do": "read", "executionId": "e1"},
             {"do": "append", "executionId": "e1", "kind": "STEP_STARTED",
              "payload": EVENTS[1][1]},
             {"do": "tornAppend", "executionId": "e1", "kind": "STEP_COMPLETED",
              "payload": EVENTS[2][1], "bytes": 10},
             {"do": "reopen"}, {"do": "read", "executionId": "e1"},
             {"do": "open", "executionId": "e1"}],
            lambda r: answers(r)[6:10] == [{"events": ["EXECUTION_STARTED"], "torn": False},
                                           {"events": ["EXECUTION_STARTED"], "torn": True},
                                           {"events": ["EXECUTION_STARTED"], "torn": True},
                                           {"events": ["EXECUTION_STARTED"], "torn": False}]
            and answers(r)[-2:] == [{"events": ["EXECUTION_STARTED", "STEP_STARTED"],
                                     "torn": False},
                                    {"events": ["EXECUTION_STARTED", "STEP_STARTED"],
                                     "torn": False}]),
    on_disk("log-closed-after-a-torn-write", "journal.log-torn-tail",
            "After a torn write nothing may follow it in the store log: the store closes, and "
            "a later append is journal.closed.",
            "log", "never",
            [{"do": "create", "executionId": "e1"}, *appends(events=EVENTS[:1]),
             {"do": "create", "executionId": "e2"},
             {"do": "tornAppend", "executionId": "e1", "kind": "STEP_STARTED",
              "payload": EVENTS[1][1], "bytes": 24},
             *appends("e2", [("EXECUTION_STARTED", {**STARTED, "executionId": "e2"})])],
            lambda r: answers(r)[-1] == {"error": "journal.closed"}),
    on_disk("files-torn-tail-reported", "journal.torn-tail",
            "A file journal's torn tail is reported when it is read and when a writer opens "
            "it; the writer truncates it, so the next reader finds none.",
            "files", "never",
            [{"do": "create", "executionId": "e1"}, *appends(events=EVENTS[:1]),
             {"do": "tornAppend", "executionId": "e1", "kind": "STEP_STARTED",
              "payload": EVENTS[1][1], "bytes": 10},
             {"do": "reopen"}, {"do": "read", "executionId": "e1"},
             {"do": "open", "executionId": "e1"}, {"do": "close", "executionId": "e1"},
             {"do": "read", "executionId": "e1"}],
            lambda r: answers(r)[4:] == [{"events": ["EXECUTION_STARTED"], "torn": True},
                                         {"events": ["EXECUTION_STARTED"], "torn": True},
                                         None,
                                         {"events": ["EXECUTION_STARTED"], "torn": False}]),
]


# -- hostile paths and ids, and the nesting limit on write (issue 32) ---------------------------
def _refused_whole(code: str) -> Any:
    return lambda r: r == {"error": {"code": code}}


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def _text(payload: Any) -> str:
    """A payload's JSON text, for ``payloadText``."""
    return json.dumps(payload, separators=(",", ":"))


def _planted(name: str, description: str, store: str, planted: dict[str, str],
             steps: list[Any], claim: Any) -> dict[str, Any]:
    return vector(f"journal.disk/{name}", "journal.regular-files", description,
                  function="journal.store-on-disk",
                  input={"store": store, "fsync": "every-event", "planted": planted,
                         "steps": steps}, claim=claim)


_OPEN_READ = [{"do": "create", "executionId": "e1"}, {"do": "open", "executionId": "e1"},
              {"do": "read", "executionId": "e1"}]

DEFINITIONS += [
    _planted("files-symlink-refused",
             "A symbolic link at a journal's path is never followed: creating finds something "
             "there (journal.exists), opening and reading refuse it (journal.not-a-file), and "
             "nothing is written.",
             "files", {"/disk/e1.jsonl": "symlink"}, _OPEN_READ,
             lambda r: answers(r) == [{"error": "journal.exists"},
                                      {"error": "journal.not-a-file"},
                                      {"error": "journal.not-a-file"}]
             and not set(calls(r)) & {"append", "truncate", "lock", "fsync"}),
    _planted("files-fifo-refused",
             "A FIFO at a journal's path is refused (journal.not-a-file), never waited on.",
             "files", {"/disk/e1.jsonl": "fifo"}, _OPEN_READ,
             lambda r: answers(r)[1:] == [{"error": "journal.not-a-file"}] * 2
             and not set(calls(r)) & {"append", "truncate", "lock", "fsync"}),
    _planted("log-symlink-refused",
             "A symbolic link where the store log should be is refused: the store does not "
             "open, and every step says why.",
             "log", {"/disk/store.log": "symlink"},
             [{"do": "create", "executionId": "e1"}, {"do": "read", "executionId": "e1"}],
             lambda r: answers(r) == [{"error": "journal.not-a-file"}] * 2
             and not set(calls(r)) & {"append", "truncate", "lock", "fsync"}),
    on_disk("reserved-name-refused", "journal.execution-ids",
            "An id Windows reserves for a device (CON, in any case, before any dot) is no "
            "execution id: the whole call is refused with argument.execution-id.",
            "files", "never", [{"do": "create", "executionId": "Con.order"}],
            _refused_whole("argument.execution-id")),
    on_disk("colon-refused", "journal.execution-ids",
            "':' is not in an execution id, on any store: the whole call is refused.",
            "log", "never", [{"do": "create", "executionId": "a:b"}],
            _refused_whole("argument.execution-id")),
    on_disk("files-case-twin-refused", "journal.execution-ids",
            "A store refuses to create an id that differs only in case from one it holds "
            "(a case-insensitive file system would give both one file), with "
            "argument.execution-id.",
            "files", "never", [{"do": "create", "executionId": "Order-7"},
                               {"do": "close", "executionId": "Order-7"},
                               {"do": "create", "executionId": "order-7"}],
            _refused_whole("argument.execution-id")),
    on_disk("log-case-twin-refused", "journal.execution-ids",
            "The store log refuses a case-only twin as every store does.",
            "log", "never", [{"do": "create", "executionId": "Order-7"},
                             *appends("Order-7", [("EXECUTION_STARTED", {
                                 **STARTED, "executionId": "Order-7"})]),
                             {"do": "create", "executionId": "order-7"}],
            _refused_whole("argument.execution-id")),
    *[on_disk(f"{store}-nesting-limit-on-write", "journal.nesting-limit",
              "A writer takes a payload whose line nests 128 levels and refuses one that "
              "would nest 129 (journal.bad-payload), writing nothing for it (each payload "
              "given as payloadText, its JSON text).",
              store, "never",
              [{"do": "create", "executionId": "e1"},
               # payloadText: a request nests at most 100 levels (INTERPRETING.md 4, Depth)
               {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
                "payloadText": _text({**STARTED, "input": _deep(126)})},
               {"do": "append", "executionId": "e1", "kind": "STREAM_APPENDED",
                "payloadText": _text({"streamId": "s", "data": _deep(127)})},
               {"do": "close", "executionId": "e1"}, {"do": "read", "executionId": "e1"}],
              lambda r: answers(r)[1:] == [None, {"error": "journal.bad-payload"}, None,
                                          {"events": ["EXECUTION_STARTED"], "torn": False}])
      for store in ("files", "log")],
    on_disk("payload-text-not-json", "journal.store-on-disk-vector",
            "An append's payloadText that is not one JSON value refuses the whole call "
            "(argument.invalid), as every malformed step member does.",
            "files", "never",
            [{"do": "create", "executionId": "e1"},
             {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
              "payloadText": '{"workflow": "w", '}],
            _refused_whole("argument.invalid")),
    on_disk("payload-and-payload-text", "journal.store-on-disk-vector",
            "An append gives its payload once: payload and payloadText together refuse the "
            "whole call (argument.invalid).",
            "files", "never",
            [{"do": "create", "executionId": "e1"},
             {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
              "payload": STARTED, "payloadText": _text(STARTED)}],
            _refused_whole("argument.invalid")),
]
