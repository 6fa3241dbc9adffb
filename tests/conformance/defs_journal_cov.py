"""Definitions of the journal.* cases of issue 30 (suite power, the journal layer): what the
conformance suite did not reach of ``loom_ref/journal/`` (``python -m tools.coverage``) and
what a fresh mutant sample of the layer found, each pinned by a case; and the store log's
torn bytes kept for the next writer (a read-only process truncates nothing)."""

from __future__ import annotations

from typing import Any

from .defs_journal_blind import SOD, refused
from .defs_journal_disk import EVENTS, STARTED, answers, appends, calls, on_disk
from .gen_cases import vector

_TORN_E1 = {"do": "tornAppend", "executionId": "e1", "kind": "STEP_STARTED",
            "payload": EVENTS[1][1], "bytes": 24}
_READ = {"do": "read", "executionId": "e1"}


def _deep_text(levels: int) -> dict[str, Any]:
    """An EXECUTION_STARTED append whose payloadText nests ``levels`` arrays and objects."""
    inner = "[" * (levels - 1) + "]" * (levels - 1)
    text = '{"executionId":"e1","workflow":"w","input":' + inner + "}"
    return {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
            "payloadText": text}


def _payload_text(name: str, levels: int, description: str, claim: Any) -> dict[str, Any]:
    return vector(f"journal.disk/{name}", SOD, description, function="journal.store-on-disk",
                  input={"store": "files", "fsync": "never",
                         "steps": [{"do": "create", "executionId": "e1"}, _deep_text(levels)]},
                  claim=claim)

DEFINITIONS: list[dict[str, Any]] = [
    on_disk("log-torn-tail-kept-for-the-writer", "journal.log-torn-tail",
            "Torn bytes that name an execution stay in the store log while a store only "
            "reads: a second store, opened after one that read, still reports them, and the "
            "store truncates them when a writer opens the execution they name.",
            "log", "never",
            [{"do": "create", "executionId": "e1"}, *appends(events=EVENTS[:1]), _TORN_E1,
             {"do": "reopen"}, _READ, {"do": "reopen"}, _READ,
             {"do": "open", "executionId": "e1"}, _READ],
            lambda r: answers(r)[3:] == [None, {"events": ["EXECUTION_STARTED"], "torn": True},
                                         None, {"events": ["EXECUTION_STARTED"], "torn": True},
                                         {"events": ["EXECUTION_STARTED"], "torn": True},
                                         {"events": ["EXECUTION_STARTED"], "torn": False}]
            and calls(r)[-7:] == ["open", "lock", "close", "open", "lock", "truncate", "close"]),
    on_disk("log-torn-tail-gone-before-an-append", "journal.log-torn-tail",
            "Torn bytes that name an execution go before the store's first append, whichever "
            "execution it is for: the store truncates them, then writes; a later store finds "
            "no torn tail.",
            "log", "never",
            [{"do": "create", "executionId": "e1"}, *appends(events=EVENTS[:1]), _TORN_E1,
             {"do": "reopen"}, {"do": "create", "executionId": "e2"},
             *appends("e2", [("EXECUTION_STARTED", {**STARTED, "executionId": "e2"})]),
             {"do": "reopen"}, _READ],
            lambda r: calls(r, "truncate", "append")[-2:] == ["truncate", "append"]
            and calls(r, "truncate") == ["truncate"]
            and answers(r)[-1] == {"events": ["EXECUTION_STARTED"], "torn": False}),
    _payload_text("files-payload-text-at-512-levels", 512,
                  "A payloadText may nest 512 arrays and objects: it is read, and the append "
                  "refuses the event past the journal's nesting limit (journal.bad-payload).",
                  lambda r: answers(r) == [None, {"error": "journal.bad-payload"}]
                  and calls(r, "append") == ["append"]),
    _payload_text("files-payload-text-past-512-levels", 513,
                  "A payloadText that nests 513 arrays and objects is argument.invalid, the "
                  "whole call refused before any step runs.",
                  refused("argument.invalid")),
    _payload_text("files-payload-text-5000-levels", 5000,
                  "A payloadText of any depth is counted, never decoded past the bound: 5000 "
                  "levels are argument.invalid, the whole call refused.",
                  refused("argument.invalid")),
]

# -- journal.content: the content-resolving store's encoding and reading (an extension) -------
CV = "journal.content-vector"
_ST = {"kind": "EXECUTION_STARTED", "payload": {"executionId": "e1", "workflow": "w",
                                               "input": None}}


def _turn(i: int, messages: Any) -> dict[str, Any]:
    """A STEP_STARTED whose input.messages is ``messages`` (ADR 0087's path)."""
    return {"kind": "STEP_STARTED", "payload": {"stepId": f"m#{i}", "toolId": "m",
                                                "input": {"messages": messages},
                                                "idempotencyKey": f"e1/m#{i}"}}


def _done(i: int) -> dict[str, Any]:
    return {"kind": "STEP_COMPLETED", "payload": {"stepId": f"m#{i}", "output": i}}


def _ref(**ref: Any) -> dict[str, Any]:
    return {"$content": ref}


def _messages(events: list[Any]) -> list[Any]:
    return [e["payload"]["input"]["messages"] for e in events if e["kind"] == "STEP_STARTED"]


def _content(name: str, description: str, input: Any, claim: Any,
             rule: str | None = None) -> dict[str, Any]:
    """A journal.content case, anchored to the rule it pins: the encoding
    (journal.content-refs) for appends, the errors (journal.content-errors) or the
    resolution (journal.content-resolve) for stored references, the function's own input
    rules (journal.content-vector) for an argument.invalid; ``rule`` names another."""
    anchor = ("journal.content-refs" if isinstance(input, dict) and "appends" in input
              and "externalize" not in input else CV)
    if isinstance(input, dict) and "stored" in input and "appends" not in input:
        anchor = "journal.content-resolve" if name == "read-resolves" else "journal.content-errors"
    anchor = rule or anchor
    return vector(f"journal.content/{name}", anchor, description, function="journal.content",
                  input=input, claim=claim)


def _stored_refs(*refs: Any) -> Any:
    """The claim: the stored references are exactly ``refs`` and the events read back hold
    the arrays appended."""
    def claim(r: Any) -> bool:
        res = r.get("result", {})
        return (_messages(res.get("stored", [])) == list(refs)
                and [e["seq"] for e in res["stored"]] == [e["seq"] for e in res["events"]])
    return claim


def _corrupt(line: int, reason: str) -> Any:
    return lambda r: r.get("error", {}).get("code") == "journal.corrupt" and (
        r["error"].get("line"), r["error"].get("reason")) == (line, reason)


def _resolved(*arrays: Any) -> Any:
    return lambda r: _messages(r.get("result", {}).get("events", [])) == list(arrays)


_A, _B, _C = {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, "c"
_TRANSCRIPT = [_ST, _turn(1, [_A]), _done(1), _turn(2, [_A, _B, _C]), _done(2),
               _turn(3, [_A, _B, _C]), _done(3), _turn(4, [_C, _A, _B, "d"])]

DEFINITIONS += [
    _content("each-item-once",
             "Through the store each message is stored once per journal: a turn's reference "
             "holds in new only what the table lacks, and items as maximal runs [first, "
             "count]; a turn that adds nothing leaves new out; reading back gives every "
             "array whole.",
             {"appends": _TRANSCRIPT},
             lambda r: _stored_refs(_ref(new=[_A], items=[[0, 1]]),
                                    _ref(new=[_B, _C], items=[[0, 3]]),
                                    _ref(items=[[0, 3]]),
                                    _ref(new=["d"], items=[[2, 1], [0, 2], [3, 1]]))(r)
             and _messages(r["result"]["events"]) == [[_A], [_A, _B, _C], [_A, _B, _C],
                                                      [_C, _A, _B, "d"]]),
    _content("repeated-within-one-array",
             "A value repeated inside one array is added to new once and referred to at each "
             "place: [x, y, x] is new [x, y], items [[0, 2], [0, 1]].",
             {"appends": [_ST, _turn(1, ["x", "y", "x"])]},
             _stored_refs(_ref(new=["x", "y"], items=[[0, 2], [0, 1]]))),
    _content("empty-array",
             "An empty array is a reference too, with no items and no new: {items: []}; it "
             "reads back as [].",
             {"appends": [_ST, _turn(1, [])]},
             lambda r: _stored_refs(_ref(items=[]))(r)
             and _messages(r["result"]["events"]) == [[]]),
    _content("not-an-array-kept-inline",
             "A value at the path that is not an array, or a path that is not there, is "
             "journaled as it is.",
             {"appends": [_ST, _turn(1, "hello"),
                          {"kind": "STEP_STARTED", "payload": {
                              "stepId": "m#2", "toolId": "m", "input": 7,
                              "idempotencyKey": "e1/m#2"}}]},
             lambda r: [e["payload"]["input"] for e in r["result"]["stored"][1:]]
             == [{"messages": "hello"}, 7] and r["result"]["stored"] == r["result"]["events"]),
    _content("content-member-refused",
             "An object with a $content member at a configured path is refused "
             "(journal.bad-payload): in such a journal every such object is a reference.",
             {"appends": [_ST, _turn(1, {"$content": {"items": []}})]},
             lambda r: r.get("error", {}).get("code") == "journal.bad-payload"),
    _content("other-kinds-untouched",
             "Only the configured kind's path is by reference: the same array in another "
             "kind's payload is journaled inline.",
             {"appends": [_ST, _turn(1, ["x"]), {"kind": "STEP_COMPLETED", "payload": {
                 "stepId": "m#1", "output": {"input": {"messages": ["x"]}}}}]},
             lambda r: r["result"]["stored"][2] == r["result"]["events"][2]
             and r["result"]["stored"][2]["payload"]["output"] == {"input": {"messages": ["x"]}}),
    _content("configured-paths",
             "externalize names other kinds and paths: each configured path of a payload is a "
             "reference over the one table, in the order configured.",
             {"externalize": {"STEP_COMPLETED": ["output.a", "output.b"]},
              "appends": [_ST, _turn(1, ["x"]), {"kind": "STEP_COMPLETED", "payload": {
                  "stepId": "m#1", "output": {"a": ["p", "q"], "b": ["q", "r"]}}}]},
             lambda r: r["result"]["stored"][1] == r["result"]["events"][1]
             and r["result"]["stored"][2]["payload"]["output"] == {
                 "a": _ref(new=["p", "q"], items=[[0, 2]]),
                 "b": _ref(new=["r"], items=[[1, 2]])}
             and r["result"]["events"][2]["payload"]["output"] == {"a": ["p", "q"],
                                                                  "b": ["q", "r"]}),
    _content("numbers-and-objects",
             "Items may be any JSON value: numbers (1.5 and 2), null, objects and nested "
             "arrays are items like strings, stored once each and read back as they were.",
             {"appends": [_ST, _turn(1, [1.5, 2, None, {"k": [1.5]}, [True]]),
                          _done(1), _turn(2, [{"k": [1.5]}, 2])]},
             lambda r: _stored_refs(_ref(new=[1.5, 2, None, {"k": [1.5]}, [True]],
                                         items=[[0, 5]]),
                                    _ref(items=[[3, 1], [1, 1]]))(r)
             and _messages(r["result"]["events"]) == [[1.5, 2, None, {"k": [1.5]}, [True]],
                                                      [{"k": [1.5]}, 2]]),
    _content("read-resolves",
             "Stored references written by another writer resolve on reading: new values "
             "join the table in order, runs name its items, new: [] is accepted.",
             {"stored": [_ST, _turn(1, _ref(new=["a", "b"], items=[[1, 1], [0, 2]])),
                         _turn(2, _ref(new=[], items=[[0, 1]]))]},
             _resolved(["b", "a", "b"], ["a"])),
    _content("missing-item",
             "A run naming an item no earlier reference defined is journal.corrupt, reason "
             "journal.missing-content, at the line of the reference (the header is line 1, "
             "so the third event is line 4).",
             {"stored": [_ST, _turn(1, _ref(new=["a"], items=[[0, 1]])),
                         _turn(2, _ref(items=[[0, 2]]))]},
             _corrupt(4, "journal.missing-content")),
    _content("missing-item-at-the-edge",
             "A run may end at the table's last item and not one past it: after one new value "
             "[0, 1] resolves, [1, 1] is missing.",
             {"stored": [_ST, _turn(1, _ref(new=["a"], items=[[0, 1], [1, 1]]))]},
             _corrupt(3, "journal.missing-content")),
    _content("member-beside-content",
             "A reference with another member beside $content is journal.bad-content.",
             {"stored": [_ST, _turn(1, {"$content": {"items": []}, "x": 1})]},
             _corrupt(3, "journal.bad-content")),
    _content("items-missing",
             "A reference without items is journal.bad-content.",
             {"stored": [_ST, _turn(1, _ref(new=["a"]))]}, _corrupt(3, "journal.bad-content")),
    _content("unknown-member",
             "A reference with a member other than new and items is journal.bad-content.",
             {"stored": [_ST, _turn(1, _ref(items=[], old=[]))]},
             _corrupt(3, "journal.bad-content")),
    _content("reference-not-an-object",
             "A $content that is not an object is journal.bad-content.",
             {"stored": [_ST, _turn(1, {"$content": [0]})]},
             _corrupt(3, "journal.bad-content")),
    _content("new-not-an-array",
             "A reference whose new is not an array is journal.bad-content.",
             {"stored": [_ST, _turn(1, _ref(new="a", items=[]))]},
             _corrupt(3, "journal.bad-content")),
    _content("items-not-an-array",
             "A reference whose items is not an array is journal.bad-content.",
             {"stored": [_ST, _turn(1, _ref(items={"0": 1}))]},
             _corrupt(3, "journal.bad-content")),
    _content("run-count-zero",
             "A run's count is at least 1: [0, 0] is journal.bad-content.",
             {"stored": [_ST, _turn(1, _ref(new=["a"], items=[[0, 0]]))]},
             _corrupt(3, "journal.bad-content")),
    _content("run-first-negative",
             "A run's first is at least 0: [-1, 1] is journal.bad-content.",
             {"stored": [_ST, _turn(1, _ref(new=["a"], items=[[-1, 1]]))]},
             _corrupt(3, "journal.bad-content")),
    _content("run-not-a-pair",
             "A run is two integers: [0] and [0, 1, 1] are journal.bad-content.",
             {"stored": [_ST, _turn(1, _ref(new=["a"], items=[[0, 1, 1]]))]},
             _corrupt(3, "journal.bad-content")),
    _content("run-not-integers",
             "A run of a string and an integer is journal.bad-content.",
             {"stored": [_ST, _turn(1, _ref(new=["a"], items=[["0", 1]]))]},
             _corrupt(3, "journal.bad-content")),
    _content("run-boolean-refused",
             "A boolean is not an integer: [0, true] is journal.bad-content.",
             {"stored": [_ST, _turn(1, _ref(new=["a"], items=[[0, True]]))]},
             _corrupt(3, "journal.bad-content")),
    _content("first-bad-reference-wins",
             "Reading stops at the first reference it cannot resolve: a missing item on line "
             "3 is reported though line 4 is malformed too.",
             {"stored": [_ST, _turn(1, _ref(items=[[0, 1]])), _turn(2, _ref(items=7))]},
             _corrupt(3, "journal.missing-content")),
]


def _refused_payload(r: Any) -> bool:
    return bool(r.get("error", {}).get("code") == "journal.bad-payload")


def _bad_input(name: str, description: str, input: Any) -> dict[str, Any]:
    return _content(name, description, input,
                    lambda r: r.get("error", {}).get("code") == "argument.invalid")


DEFINITIONS += [
    _bad_input("externalize-empty", "An empty externalize is argument.invalid.",
               {"externalize": {}, "appends": [_ST]}),
    _bad_input("externalize-unknown-kind",
               "An externalize key that names no event kind is argument.invalid.",
               {"externalize": {"STEP_BEGUN": ["input.messages"]}, "appends": [_ST]}),
    _bad_input("externalize-paths-empty",
               "A kind with an empty array of paths is argument.invalid.",
               {"externalize": {"STEP_STARTED": []}, "appends": [_ST]}),
    _bad_input("externalize-paths-not-an-array",
               "A kind whose paths are a string, not an array, is argument.invalid.",
               {"externalize": {"STEP_STARTED": "input.messages"}, "appends": [_ST]}),
    _bad_input("externalize-empty-member-name",
               "A path with an empty member name (input..messages) is argument.invalid.",
               {"externalize": {"STEP_STARTED": ["input..messages"]}, "appends": [_ST]}),
    _bad_input("externalize-path-not-a-string",
               "A path that is not a string is argument.invalid.",
               {"externalize": {"STEP_STARTED": [7]}, "appends": [_ST]}),
    _bad_input("neither-appends-nor-stored",
               "An input with neither appends nor stored is argument.invalid.", {}),
]

# -- journal.content: the reopen, stored lines then a writer's appends (issue 30) ---------------
_HELD = [_ST, _turn(1, _ref(new=[_A, _B], items=[[0, 2]])), _done(1)]


def _seqd(events: list[Any], first: int = 1) -> list[Any]:
    return [{"seq": first + i, **e} for i, e in enumerate(events)]


def _appended_refs(held: int, *refs: Any) -> Any:
    """The claim: the stored lines come back as given and the appended ones' references are
    exactly ``refs``."""
    def claim(r: Any) -> bool:
        res = r.get("result", {})
        return (len(res.get("stored", [])) > held
                and _messages(res["stored"][held:]) == list(refs)
                and [e["seq"] for e in res["stored"]] == [e["seq"] for e in res["events"]])
    return claim


DEFINITIONS += [
    _content("appends-and-stored",
             "An input with both is the reopen: the stored lines written as given and opened "
             "by a writer, which then appends; the answer is appends' form for the whole "
             "journal: stored, the lines as the store underneath holds them (the stored ones "
             "as given, then the appended), and events, every line resolved.",
             {"stored": _HELD[:2], "appends": [_done(1)]},
             lambda r: r.get("result", {}).get("stored") == _seqd([*_HELD[:2], _done(1)])
             and r["result"].get("events") == _seqd(
                 [_ST, _turn(1, [_A, _B]), _done(1)]), rule=CV),
    _content("reopen-repeats-stored-value",
             "After a reopen the table is the one the stored references built: an appended "
             "array of values the stored lines already added is referred to, never added "
             "again (no new), by the stored items' numbers.",
             {"stored": _HELD, "appends": [_turn(2, [_A, _B]), _done(2), _turn(3, [_B])]},
             lambda r: _appended_refs(3, _ref(items=[[0, 2]]), _ref(items=[[1, 1]]))(r)
             and _messages(r["result"]["events"]) == [[_A, _B], [_A, _B], [_B]]),
    _content("reopen-adds-new-value",
             "After a reopen only a value the stored table lacks is in new, numbered after "
             "the stored items: [c, a, b, d] over a table [a, b] is new [c, d], items "
             "[[2, 1], [0, 2], [3, 1]].",
             {"stored": _HELD, "appends": [_turn(2, [_C, _A, _B, "d"])]},
             lambda r: _appended_refs(3, _ref(new=[_C, "d"],
                                              items=[[2, 1], [0, 2], [3, 1]]))(r)
             and _messages(r["result"]["events"])[-1] == [_C, _A, _B, "d"]),
    _content("reopen-value-held-twice",
             "A value another writer's stored references put in the table twice (items 0 and "
             "1 are both a) is referred to by its first item, never added a third time.",
             {"stored": [_ST, _turn(1, _ref(new=["a", "a"], items=[[1, 1]]))],
              "appends": [_turn(2, ["a", "b"])]},
             _appended_refs(2, _ref(new=["b"], items=[[0, 1], [2, 1]]))),
    _content("reopen-inline-array-not-in-table",
             "Only references fill the table: an array a stored line holds inline at the "
             "configured path (no reference) adds no item, so the writer adds its values as "
             "new when it meets them.",
             {"stored": [_ST, _turn(1, ["a"])], "appends": [_turn(2, ["a"])]},
             _appended_refs(2, _ref(new=["a"], items=[[0, 1]]))),
    _content("reopen-stored-refused",
             "A stored reference the reopening store cannot resolve is the call's error "
             "(journal.corrupt at its line), and nothing is appended.",
             {"stored": [_ST, _turn(1, _ref(items=[[0, 1]]))], "appends": [_done(1)]},
             _corrupt(3, "journal.missing-content"), rule="journal.content-errors"),
    _content("reopen-appends-item-not-an-object",
             "Every item of both lists is checked before anything is written: an appended "
             "item that is not an object is argument.invalid, though the stored lines hold "
             "a reference that cannot be resolved.",
             {"stored": [_ST, _turn(1, _ref(items=[[0, 1]]))], "appends": [_done(1), 7]},
             lambda r: r.get("error", {}).get("code") == "argument.invalid", rule=CV),
]

# -- journal.format: the codec's edges a case did not reach ------------------------------------
from .defs_journal import START, corrupt, ev, header, sealed  # noqa: E402

_BOM = "\ufeff"
_STEP_BODY = ('{"seq":2,"kind":"STEP_STARTED","payload":{"stepId":"a#1","toolId":"a",'
              '"input":1,"idempotencyKey":"e1/a#1"}')


def _parse(name: str, anchor: str, description: str, text: str, claim: Any) -> dict[str, Any]:
    return vector(f"journal.format/{name}", anchor, description, function="journal.parse",
                  input={"text": text}, claim=claim)


def _shallow_brackets(obs: Any) -> bool:
    events = obs.get("result", {}).get("events", [])
    return len(events) == 2 and events[1]["payload"]["input"] == [[]] * 130


DEFINITIONS += [
    _parse("bom-checksum-matches-without-it", "journal.checksum",
           "A line that starts with a UTF-8 byte order mark, whose crc is that of the line "
           "without it: the checksum covers every byte before the crc member, the mark "
           "included, so it does not match (journal.bad-checksum).",
           header() + ev(*(1, *START)) + _BOM + sealed(_STEP_BODY),
           corrupt(3, "journal.bad-checksum")),
    _parse("bom-checksum-mismatch", "journal.checksum",
           "A line that starts with a byte order mark and whose crc matches neither with nor "
           "without it: journal.bad-checksum.",
           header() + ev(*(1, *START)) + _BOM + sealed(_STEP_BODY)[:-11] + "0000abcd\"}\n",
           corrupt(3, "journal.bad-checksum")),
    _parse("bom-inside-the-checksum", "journal.checksum",
           "A line that starts with a byte order mark whose crc covers the mark: the checksum "
           "matches, and the line is not JSON (journal.malformed-line).",
           header() + ev(*(1, *START)) + sealed(_BOM + _STEP_BODY),
           corrupt(3, "journal.malformed-line")),
    _parse("integer-past-a-double-309-digits", "journal.json-values",
           "An integer of 309 digits beyond a double's largest finite value (a 9 repeated) is "
           "no finite double, like 1e309: journal.malformed-line.",
           header() + ev(*(1, *START))
           + sealed('{"seq":2,"kind":"STEP_COMPLETED","payload":{"stepId":"a#1","output":'
                    + "9" * 309 + "}"),
           corrupt(3, "journal.malformed-line")),
    _parse("many-brackets-shallow", "journal.nesting-limit",
           "A line with more than 128 brackets that nests only 3 deep is within the nesting "
           "limit: it is the depth that counts, not the number of arrays.",
           header() + ev(*(1, *START)) + ev(2, "STEP_STARTED", {
               "stepId": "a#1", "toolId": "a", "input": [[]] * 130,
               "idempotencyKey": "e1/a#1"}),
           _shallow_brackets),
]

# -- the disk functions' own inputs: each malformed one refused ---------------------------------
from .defs_journal_blind import disk_vector  # noqa: E402
from .defs_journal_disk import power_loss  # noqa: E402

_F = {"op": "create", "path": "/disk/a", "as": "f"}


def _sod_bad(name: str, description: str, input: Any) -> dict[str, Any]:
    return vector(f"journal.disk/{name}", SOD, description, function="journal.store-on-disk",
                  input=input, claim=refused("argument.invalid"))


DEFINITIONS += [
    power_loss("append-of-nothing",
               "An append of no bytes is no write: not a moment, nothing pending, so no image "
               "more than without it.",
               [_F, {"op": "append", "file": "f", "text": "a\n"}, {"op": "fsync", "file": "f"},
                {"op": "append", "file": "f", "text": ""}],
               lambda r: r["result"]["moments"] == 3 and [
                   (i["variant"], i["files"]) for i in r["result"]["images"]]
               == [("synced", {}), ("names", {"/disk/a": "a\n"})]),
    vector("journal.disk/power-loss-input-not-an-object", "journal.power-loss-vector",
           "The input of journal.power-loss is an object: an array is argument.invalid.",
           function="journal.power-loss", input=[_F], claim=refused("argument.invalid"),
           tier="may"),
    disk_vector("directories-not-a-list",
                "directories is an array of absolute paths: a string is argument.invalid.",
                [_F], refused("argument.invalid"), directories="/disk"),
    vector("journal.disk/ops-not-a-list", "journal.power-loss-vector",
           "ops is an array: an object is argument.invalid.", function="journal.power-loss",
           input={"ops": {"0": _F}}, claim=refused("argument.invalid"), tier="may"),
    # issue 30: the survivors of sample 713662 -- a non-array with nothing to iterate
    vector("journal.disk/ops-empty-object", "journal.power-loss-vector",
           "ops is an array: an empty object, which holds no operation to refuse, is "
           "argument.invalid all the same.", function="journal.power-loss",
           input={"ops": {}}, claim=refused("argument.invalid"), tier="may"),
    vector("journal.disk/ops-absent", "journal.power-loss-vector",
           "ops is required: an input without it is argument.invalid.",
           function="journal.power-loss", input={}, claim=refused("argument.invalid"),
           tier="may"),
    disk_vector("unknown-op",
                "An operation that is none of the disk's is argument.invalid, the whole call.",
                [_F, {"op": "rename", "file": "f"}], refused("argument.invalid")),
    disk_vector("truncate-negative-size",
                "A truncate's size is an integer of at least 0: -1 is argument.invalid.",
                [_F, {"op": "truncate", "file": "f", "size": -1}], refused("argument.invalid")),
    disk_vector("truncate-size-zero",
                "A truncate to size 0 is allowed: the file is left empty.",
                [_F, {"op": "append", "file": "f", "text": "ab"},
                 {"op": "truncate", "file": "f", "size": 0}, {"op": "readAll", "file": "f"}],
                lambda r: r["result"]["answers"] == [None, None, None, ""]),
    _sod_bad("store-unknown",
             "store is files or log: another name is argument.invalid.",
             {"store": "sqlite", "fsync": "never", "steps": []}),
    _sod_bad("fsync-unknown",
             "fsync is one of the four policies: another name is argument.invalid.",
             {"store": "files", "fsync": "always", "steps": []}),
    _sod_bad("fsync-absent",
             "fsync is required: an input without it is argument.invalid, not a store built "
             "with the default write-ahead policy.",
             {"store": "files", "steps": []}),
    _sod_bad("members-before-steps",
             "The input's own members are checked before the steps: an unknown store with a "
             "create of an id the rule refuses (CON, argument.execution-id) is argument.invalid.",
             {"store": "sqlite", "fsync": "never",
              "steps": [{"do": "create", "executionId": "CON"}]}),
    _sod_bad("steps-not-a-list",
             "steps is an array: an object is argument.invalid.",
             {"store": "files", "fsync": "never", "steps": {}}),
    _sod_bad("torn-append-zero-bytes",
             "A tornAppend keeps at least 1 byte: bytes 0 is argument.invalid, the whole call.",
             {"store": "files", "fsync": "never",
              "steps": [{"do": "create", "executionId": "e1"},
                        {"do": "tornAppend", "executionId": "e1", "kind": "EXECUTION_STARTED",
                         "payload": STARTED, "bytes": 0}]}),
    _sod_bad("execution-id-not-a-string",
             "A step's executionId is a string: a number is argument.invalid, the whole call.",
             {"store": "files", "fsync": "never", "steps": [{"do": "create", "executionId": 7}]}),
    _sod_bad("payload-text-nan",
             "A payloadText that is not one JSON value (NaN is no JSON value) is "
             "argument.invalid.",
             {"store": "files", "fsync": "never",
              "steps": [{"do": "create", "executionId": "e1"},
                        {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
                         "payloadText": '{"executionId":"e1","workflow":"w","input":NaN}'}]}),
    _sod_bad("payload-text-not-a-string",
             "A payloadText that is not a string is argument.invalid.",
             {"store": "files", "fsync": "never",
              "steps": [{"do": "create", "executionId": "e1"},
                        {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
                         "payloadText": {"executionId": "e1"}}]}),
    _bad_input("appends-not-an-array",
               "appends is an array of {kind, payload}: an object is argument.invalid.",
               {"appends": {"kind": "EXECUTION_STARTED"}}),
    # spec: journal.content-vector -- a kind that names no event kind is the writer's
    # refusal, journal.bad-payload, as on every store (issue 29, the journal's second fresh
    # blind reading, point 1: these three answered argument.invalid in suite 1.4.0)
    _content("appends-unknown-kind",
             "An append whose kind names no event kind is refused by the writer as every "
             "store's writer refuses it: journal.bad-payload.",
             {"appends": [{"kind": "EXECUTION_BEGUN", "payload": {}}]}, _refused_payload),
    _content("appends-kind-not-a-string",
             "An append whose kind is not a string (an array here) names no event kind: "
             "journal.bad-payload, like an unknown name.",
             {"appends": [{"kind": [], "payload": {}}]}, _refused_payload),
    _content("stored-unknown-kind-before-anything",
             "A stored item with an unknown kind is the writer's refusal when it is written "
             "(after a good first event): journal.bad-payload, the call's error.",
             {"stored": [{"kind": "EXECUTION_STARTED", "payload": {
                 "executionId": "e1", "workflow": "w", "input": None}},
                 {"kind": "EXECUTION_BEGUN", "payload": {}}]}, _refused_payload),
]

# -- a journal whose header names another execution -------------------------------------------
from loom_ref.journal.codec import encode_header  # noqa: E402

from .gen_cases import scenario  # noqa: E402

_CUT = 38  # tear keeps the first half of the 77-byte header line of e1: '{"schema":...,"version"'


def _header_naming(eid: str) -> list[dict[str, Any]]:
    """Actions that make e1's header line name ``eid``: the line torn in half, the rest of
    ``eid``'s header line (crc included) appended."""
    assert encode_header("e1")[:_CUT] == encode_header(eid)[:_CUT]
    return [{"do": "tear", "line": 1},
            {"do": "appendBytes", "text": encode_header(eid)[_CUT:].decode("ascii")}]


_ONE_STEP = [{"op": "execute", "tool": "t", "input": 1}]
_T = {"t": {"idempotent": True, "script": [{"return": 2}]}}

DEFINITIONS += [
    {**scenario("journal.format/header-names-another-execution", "journal.header",
                "e1's journal whose header line names e2 (with its own good crc) is corrupt at "
                "line 1 (journal.bad-header): a recovery is refused, and reading it fails.",
                body=_ONE_STEP, effects=_T,
                actions=[{"do": "start"}, *_header_naming("e2"), {"do": "recover"}],
                claims=[{"result": {"status": "completed", "output": None}},
                        {"done": True}, {"done": True}, {"raised": "journal.corrupt"}],
                journal={"error": "journal.corrupt"}),
     "checks": [("line 1, bad-header", lambda o: o["journal"]["error"].get("line") == 1
                 and o["journal"]["error"].get("reason") == "journal.bad-header")]},
    scenario("journal.format/header-names-a-case-twin", "journal.execution-ids",
             "e1's journal whose header line names E1, an id that differs only in case, is "
             "refused as argument.execution-id (what a case-insensitive file system hands "
             "out for the other id), not as a corrupt journal.",
             body=_ONE_STEP, effects=_T,
             actions=[{"do": "start"}, *_header_naming("E1"), {"do": "recover"}],
             claims=[{"result": {"status": "completed", "output": None}},
                     {"done": True}, {"done": True}, {"raised": "argument.execution-id"}]),
]

# -- a store log's execution header, each part refused -----------------------------------------
from .defs_journal import LOG_HEADER, lev, started  # noqa: E402

DEFINITIONS += [
    vector(f"journal.log/{name}", "journal.log-format", description, function="journal.parse-log",
           input={"text": LOG_HEADER + sealed(body) + lev("a", 1, *started("a"))},
           claim=corrupt(2, "journal.bad-header"), tier="may")
    for name, description, body in [
        ("execution-header-other-schema",
         "A header line (it has schema) inside a store log that is not an execution's journal "
         "header (another schema) is journal.bad-header at its line.",
         '{"schema":"loom-ref.other","version":1,"executionId":"a"'),
        ("execution-header-version-2",
         "An execution's header inside a store log with version 2 is journal.bad-header.",
         '{"schema":"loom-ref.journal","version":2,"executionId":"a"'),
        ("execution-header-id-not-a-string",
         "An execution's header inside a store log whose executionId is not a string names "
         "no execution: journal.bad-header.",
         '{"schema":"loom-ref.journal","version":1,"executionId":7'),
    ]
]

# -- journal.sqlite-trace: the SQLite store's commit levels and syncs (an extension) -----------
ST_TRACE = "journal.sqlite-trace"
_STEP_P = EVENTS[1][1]
_DONE_P = EVENTS[2][1]
_END_P = EVENTS[3][1]
_RUN = [{"do": "create", "executionId": "e1"}, *appends(events=EVENTS)]


def _levels(r: Any) -> list[str]:
    """The synchronous level in force at each row of lines written (each its own commit, or
    the first event's with its header)."""
    level, out = "", []
    for call in r["result"]["calls"]:
        if call["call"] == "synchronous":
            level = call["level"]
        elif call["call"] == "insert" and call["table"] == "lines":
            out.append(level)
    return out


def _names(r: Any) -> list[str]:
    return [c["call"] for c in r["result"]["calls"]]


def _sqlite(name: str, description: str, fsync: str, steps: list[Any], claim: Any,
            anchor: str = "journal.sqlite-wal") -> dict[str, Any]:
    return vector(f"journal.sqlite/{name}", anchor, description, function=ST_TRACE,
                  input={"fsync": fsync, "steps": steps}, claim=claim)


def _dir_sync_once_before_events(r: Any) -> bool:
    calls = r["result"]["calls"]
    first_event = calls.index({"call": "insert", "table": "lines"})
    return _names(r).count("fsyncDir") == 1 and _names(r).index("fsyncDir") < first_event


DEFINITIONS += [
    _sqlite("every-event-commits-full",
            "Under every-event each event commits with synchronous=FULL; the directory is "
            "synced once, when the store opens, before any event.",
            "every-event", _RUN,
            lambda r: _levels(r) == ["FULL"] * 4 and _dir_sync_once_before_events(r)),
    _sqlite("write-ahead-levels",
            "Under write-ahead only the events the policy syncs commit FULL (STEP_STARTED "
            "and the boundary EXECUTION_COMPLETED); the others NORMAL.",
            "write-ahead", _RUN,
            lambda r: _levels(r) == ["NORMAL", "FULL", "NORMAL", "FULL"]
            and _dir_sync_once_before_events(r)),
    _sqlite("at-boundaries-levels",
            "Under at-boundaries only the boundary (EXECUTION_COMPLETED) commits FULL.",
            "at-boundaries", _RUN,
            lambda r: _levels(r) == ["NORMAL", "NORMAL", "NORMAL", "FULL"]
            and _dir_sync_once_before_events(r)),
    _sqlite("never-is-normal-not-off",
            "Under never every commit is NORMAL (never OFF), the store's own tables too, and "
            "the directory is never synced.",
            "never", _RUN,
            lambda r: _levels(r) == ["NORMAL"] * 4 and "fsyncDir" not in _names(r)
            and [c["level"] for c in r["result"]["calls"] if c["call"] == "synchronous"]
            == ["NORMAL"]),
    _sqlite("level-set-only-when-it-changes",
            "The store sets synchronous only when the level changes: two FULL commits in a "
            "row under every-event set it once for both.",
            "every-event", _RUN,
            lambda r: [c.get("level") for c in r["result"]["calls"]
                       if c["call"] == "synchronous"] == ["FULL", "NORMAL", "FULL"]),
    _sqlite("open-modes",
            "Opening sets the level its own tables commit with, then the exclusive locking "
            "mode and WAL, and writes the store's row in one transaction.",
            "write-ahead", [{"do": "read", "executionId": "e1"}],
            lambda r: r["result"]["calls"] == [
                {"call": "open"}, {"call": "synchronous", "level": "FULL"},
                {"call": "lockingMode", "mode": "EXCLUSIVE"},
                {"call": "journalMode", "mode": "WAL"}, {"call": "begin"},
                {"call": "insert", "table": "loom_store"}, {"call": "commit"},
                {"call": "synchronous", "level": "NORMAL"}, {"call": "fsyncDir"},
                {"call": "close"}]
            and r["result"]["answers"] == [{"error": "journal.not-found"}],
            anchor="journal.sqlite-trace"),
    _sqlite("header-with-the-first-event",
            "create writes nothing; the header row goes in the same transaction as the first "
            "event, and later events are one autocommitted insert each.",
            "never", _RUN[:3],
            lambda r: _names(r)[_names(r).index("commit") + 1:] == [
                "begin", "insert", "insert", "commit", "insert", "close"]
            and [c.get("table") for c in r["result"]["calls"] if c["call"] == "insert"]
            == ["loom_store", "journals", "lines", "lines"],
            anchor="journal.sqlite-lines"),
    _sqlite("created-never-journaled",
            "An execution created and never journaled leaves nothing in the database: "
            "after a reopen it is not there.",
            "never", [{"do": "create", "executionId": "e1"}, {"do": "reopen"},
                      {"do": "read", "executionId": "e1"}],
            lambda r: r["result"]["answers"] == [None, None, {"error": "journal.not-found"}]
            and "journals" not in [c.get("table") for c in r["result"]["calls"]],
            anchor="journal.sqlite-lines"),
    _sqlite("reopen-reads-back",
            "A reopened store reads each journal back whole, writing nothing but its open.",
            "write-ahead", [*_RUN, {"do": "reopen"}, {"do": "open", "executionId": "e1"}],
            lambda r: r["result"]["answers"][-2:] == [
                None, {"events": [k for k, _ in EVENTS], "torn": False}]
            and _names(r)[_names(r).index("open", 1):] == [
                "open", "synchronous", "lockingMode", "journalMode", "begin", "commit",
                "synchronous", "fsyncDir", "close"],
            anchor="journal.sqlite-lines"),
    _sqlite("one-writer-per-execution",
            "Within the store, an execution has one writer: opening it again while its "
            "writer is open is journal.locked.",
            "never", [*_RUN[:2], {"do": "open", "executionId": "e1"}],
            lambda r: r["result"]["answers"][-1] == {"error": "journal.locked"},
            anchor="journal.sqlite-single-writer"),
    _sqlite("read-and-close",
            "A read takes no writer and writes nothing; a close lets the writer go (a second "
            "close of a journal with no writer answers null), after which it can be opened "
            "again.",
            "never", [*_RUN[:2], {"do": "read", "executionId": "e1"},
                      {"do": "close", "executionId": "e1"}, {"do": "close", "executionId": "e1"},
                      {"do": "open", "executionId": "e1"}],
            lambda r: r["result"]["answers"][2:] == [
                {"events": ["EXECUTION_STARTED"], "torn": False}, None, None,
                {"events": ["EXECUTION_STARTED"], "torn": False}]
            and _names(r).count("insert") == 3, anchor="journal.sqlite-trace"),
    vector("journal.sqlite/append-without-writer", "journal.sqlite-trace",
           "An append to an execution with no writer in the store names no journal to write: "
           "argument.invalid, the whole call refused.", function=ST_TRACE,
           input={"fsync": "never", "steps": [
               {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
                "payload": STARTED}]},
           claim=refused("argument.invalid")),
    vector("journal.sqlite/torn-append-refused", "journal.sqlite-trace",
           "A SQLite transaction is atomic: a tornAppend step is argument.invalid, the whole "
           "call refused.", function=ST_TRACE,
           input={"fsync": "never", "steps": [
               {"do": "create", "executionId": "e1"},
               {"do": "tornAppend", "executionId": "e1", "kind": "EXECUTION_STARTED",
                "payload": STARTED, "bytes": 3}]},
           claim=refused("argument.invalid")),
    vector("journal.sqlite/fsync-unknown", "journal.sqlite-trace",
           "fsync is one of the four policies: another name is argument.invalid.",
           function=ST_TRACE, input={"fsync": "sometimes", "steps": []},
           claim=refused("argument.invalid")),
    vector("journal.sqlite/steps-not-a-list", "journal.sqlite-trace",
           "steps is an array: an object is argument.invalid.",
           function=ST_TRACE, input={"fsync": "never", "steps": {}},
           claim=refused("argument.invalid")),
]
