"""Messages are validated both ways; capabilities decide skips; expectations never travel."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from loom_ref.conformance.impl import InProcessImplementation
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.runner import Status

from .helpers import SCHEMAS, cases, run


class Spy(LoomRefAdapter):
    """Records every case it receives."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.seen: list[Mapping[str, Any]] = []

    def run(self, case: Mapping[str, Any]) -> dict[str, Any]:
        self.seen.append(case)
        return super().run(case)


def test_the_expected_answer_is_never_sent() -> None:
    spy = Spy()
    run(InProcessImplementation(spy), only=["kernel.gates", "journal.format"])
    assert len(spy.seen) > 100
    assert all("expect" not in c and "excludeModes" not in c for c in spy.seen)
    assert not any("expect" in str(c) for c in spy.seen)


def test_every_case_file_is_schema_valid_and_run_messages_too() -> None:
    for case in cases():
        assert not SCHEMAS.problems("case", dict(case.data)), case.id
        msg = {"cmd": "run", "seq": 1, "case": case.to_run()}
        assert not SCHEMAS.problems("run", msg), case.id


def test_missing_capability_is_skipped_never_passed() -> None:
    adapter = LoomRefAdapter(capabilities=("scenario",), functions={})
    suite = run(InProcessImplementation(adapter), only=["journal.fold", "kernel.replay"])
    fold = [r for r in suite.results if r.group == "journal.fold"]
    assert fold and all(r.status is Status.SKIP for r in fold)
    assert "journal.fold" in fold[0].message
    crash = [r for r in suite.results if r.mode in ("crash", "torn", "always-replay")]
    assert crash and all(r.status is Status.SKIP for r in crash)
    replay = [r for r in suite.results if r.group == "kernel.replay" and r.mode == "base"]
    assert all(r.status is not Status.SKIP for r in replay)


class BadReplies(LoomRefAdapter):
    def run(self, case: Mapping[str, Any]) -> dict[str, Any]:
        reply = super().run(case)
        if case["id"].endswith("/completed"):
            return {"observations": {"result": 1}, "note": "extra member"}
        if case["id"].endswith("/empty"):
            return {"skipped": {}}
        return reply


def test_invalid_replies_are_errors_not_passes() -> None:
    suite = run(InProcessImplementation(BadReplies()), only=["journal.fold"], generated=False)
    by_id = {r.id: r for r in suite.results}
    assert by_id["journal.fold/completed"].status is Status.ERROR
    assert "invalid run reply" in by_id["journal.fold/completed"].message
    assert by_id["journal.fold/empty"].status is Status.ERROR
    assert by_id["journal.fold/prefix"].status is Status.PASS


def test_variants_of_a_failing_case_are_skipped_with_the_reason() -> None:
    class Wrong(LoomRefAdapter):
        def run(self, case: Mapping[str, Any]) -> dict[str, Any]:
            reply = super().run(case)
            if case["id"] == "kernel.gates/two-gates":
                reply["observations"]["journal"] = None
            return reply

    suite = run(InProcessImplementation(Wrong()), only=["kernel.gates"])
    variants = [r for r in suite.results if r.base_id == "kernel.gates/two-gates"]
    assert variants and all(r.status is Status.SKIP for r in variants)
    assert "base case kernel.gates/two-gates did not pass" in variants[0].message


def test_an_invalid_run_message_names_what_its_own_family_refuses() -> None:
    """A case the runner cannot send says why (here an upper-case id), not merely that it
    matches no alternative of the case's oneOf: a blind implementer read that as the
    protocol refusing the resume schema's keywords (spec/blind/kernel.md)."""
    from loom_ref.conformance.runner import Runner
    from loom_ref.errors import LoomError

    from .helpers import SUITE

    case = dict(cases(["kernel.schema"])[0].to_run())
    case["id"] = "kernel.schema/maxLength"
    case["workflow"] = {"name": "w", "body": [{"op": "suspend", "gate": "g",
                                               "resumeSchema": {"maxLength": 1, "$comment": 5}}]}
    runner = Runner(InProcessImplementation(LoomRefAdapter()), SUITE)
    try:
        runner.message("run", {"cmd": "run", "seq": 1, "case": case})
    except LoomError as exc:
        assert "/case/id: does not match" in str(exc), exc
    else:
        raise AssertionError("the runner sent a case with an invalid id")
    case["id"] = "kernel.schema/max-length"
    assert runner.message("run", {"cmd": "run", "seq": 1, "case": case})["case"] is case
