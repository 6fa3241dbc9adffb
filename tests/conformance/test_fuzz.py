"""``loom-ref conformance fuzz`` (issue 23): deliberately wrong adapters are found within the
default budget, the disagreement is shrunk and written as a draft case that fails the wrong
adapter and passes loom-ref, and a run is bounded and reproducible."""

from __future__ import annotations

import json
import re
import sys
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from loom_ref.cli.main import main
from loom_ref.conformance.case import load_cases
from loom_ref.conformance.fuzz.engine import SCENARIOS, Fuzzer, write_drafts
from loom_ref.conformance.impl import InProcessImplementation
from loom_ref.conformance.inprocess import LoomRefAdapter
from loom_ref.conformance.lint import lint
from loom_ref.conformance.provenance import Profile
from loom_ref.conformance.random_cases import random_cases
from loom_ref.conformance.runner import Runner, Status

from .helpers import SCHEMAS, SUITE, cases
from .wrong_impls import WRONG


def _without_zero_budget(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_zero_budget(v) for k, v in value.items()
                if not (k == "maxTokens" and v == 0)}
    if isinstance(value, list):
        return [_without_zero_budget(v) for v in value]
    return value


class ZeroBudgetIsUnset(LoomRefAdapter):
    """Wrong: a token budget of 0 (guards.budget: nothing may be delivered) is read as no
    budget at all."""

    def run_vector(self, case: Mapping[str, Any]) -> dict[str, Any]:
        return super().run_vector({**case, "input": _without_zero_budget(case.get("input"))})


class UncheckedChecksum(LoomRefAdapter):
    """Wrong: a journal line's crc is never checked (journal.checksum): every line that ends
    with a crc suffix is read as if its crc matched. (Any change the fuzzer makes to a line's
    body finds it, so the finding does not hang on which inputs the budget draws.)"""

    def run_vector(self, case: Mapping[str, Any]) -> dict[str, Any]:
        text = (case.get("input") or {}).get("text") if isinstance(case.get("input"),
                                                                   dict) else None
        if case.get("function") == "journal.parse" and isinstance(text, str):
            fixed = "\n".join(_reseal(line) for line in text.split("\n"))
            case = {**case, "input": {**case["input"], "text": fixed}}
        return super().run_vector(case)


def _reseal(line: str) -> str:
    body, sep, tail = line.rpartition(',"crc":"')
    if not sep or len(tail) != 10 or not tail.endswith('"}'):
        return line
    try:
        raw = body.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: the reference refuses it either way
        return line
    return f'{body}{sep}{zlib.crc32(raw):08x}"}}'


def _fuzz(adapter: LoomRefAdapter, functions: list[str], **kw: Any) -> Any:
    fuzzer = Fuzzer(InProcessImplementation(adapter), InProcessImplementation(), SUITE,
                    cases(), **kw)
    return fuzzer.run(functions)


@pytest.mark.parametrize(("adapter", "function", "rule"), [
    (ZeroBudgetIsUnset, "guards.run", "maxTokens"),
    (UncheckedChecksum, "journal.parse", "crc"),
])
def test_a_wrong_adapter_is_found_and_its_draft_case_holds_it_to_the_rule(
        adapter: type[LoomRefAdapter], function: str, rule: str, tmp_path: Path) -> None:
    result = _fuzz(adapter(), [function])  # the default budget: 1000 inputs, seed 0
    assert not result.ok and len(result.findings) == 1
    finding = result.findings[0]
    assert finding.function == function and rule in json.dumps(finding.case["input"])
    (path,) = write_drafts(result, str(tmp_path / "cases"), {c.id: c for c in cases()})
    draft = json.loads(Path(path).read_text())
    assert draft["id"].startswith(f"draft.{function}/")
    assert draft["draft"]["answers"]["implementation"] != draft["draft"]["answers"]["reference"]
    assert draft["draft"]["function"] == function and draft["draft"]["seed"] == 0
    assert "DRAFT" in draft["description"] and draft["expect"]
    # the draft runs with --cases: it fails the wrong adapter and passes loom-ref
    drafts, problems = load_cases(str(tmp_path / "cases"))
    assert not problems and len(drafts) == 1
    for impl, wanted in ((adapter(), Status.FAIL), (LoomRefAdapter(), Status.PASS)):
        suite = Runner(InProcessImplementation(impl), SUITE, generated=False).run(drafts)
        assert [r.status for r in suite.results] == [wanted], suite.results
    # and the lint will not let it into the suite as it is
    found = lint(str(tmp_path / "cases"), SUITE.spec_dir, SCHEMAS)
    assert any("draft" in p for p in found), found


def test_the_disagreement_is_shrunk() -> None:
    result = _fuzz(ZeroBudgetIsUnset(), ["guards.run"])
    shrunk = result.findings[0].case["input"]
    grown_from = next(c for c in cases() if c.id == result.findings[0].origin)
    assert len(json.dumps(shrunk)) <= len(json.dumps(grown_from.data["input"])) + 20
    assert shrunk.get("maxTokens") == 0


def test_a_seed_reproduces_a_run_and_another_seed_draws_anew() -> None:
    one = _fuzz(ZeroBudgetIsUnset(), ["guards.run"], seed=3)
    two = _fuzz(ZeroBudgetIsUnset(), ["guards.run"], seed=3)
    assert [f.case["input"] for f in one.findings] == [f.case["input"] for f in two.findings]
    assert one.tallies == two.tallies


def test_agreeing_implementations_agree_and_the_examples_bound_the_run() -> None:
    result = _fuzz(LoomRefAdapter(), ["journal.fold", "stream.check"], examples=15)
    assert result.ok
    assert [(t.function, t.tried) for t in result.tallies] == [("journal.fold", 15),
                                                               ("stream.check", 15)]


def test_the_time_limit_bounds_the_run() -> None:
    ticks = iter(range(10**6))
    result = _fuzz(LoomRefAdapter(), ["journal.fold", "stream.check"], examples=1000,
                   time_limit=20.0, clock=lambda: float(next(ticks)))
    assert result.ok
    assert all(t.tried < 1000 and t.note == "stopped by the time limit" for t in result.tallies)


def test_a_function_one_side_lacks_is_tallied_not_fuzzed() -> None:
    lacking = LoomRefAdapter(functions={}, capabilities=("scenario",))
    result = _fuzz(lacking, ["journal.fold"])
    assert result.ok
    assert [(t.function, t.tried, t.note) for t in result.tallies] == [
        ("journal.fold", 0, "not declared by the implementation")]


def test_the_table_lists_what_ran_unless_asked_for_every_function() -> None:
    from loom_ref.cli.conformance_fuzz import render_table

    lacking = LoomRefAdapter(functions={"journal.fold": LoomRefAdapter().functions[
        "journal.fold"]}, capabilities=("journal.fold",))
    result = _fuzz(lacking, ["journal.fold", "stream.check", "stream.assemble"], examples=5)
    rows = render_table(result).splitlines()
    assert [r.split()[0] for r in rows[1:-1]] == ["journal.fold"]
    assert rows[-1] == ("(2 function(s) not fuzzed: not declared by both sides; --all lists "
                        "them)")
    every = render_table(result, every=True)
    assert "stream.check" in every and "not declared by the implementation" in every


def test_random_scenarios_find_a_kernel_that_reruns_deciders_on_resume(tmp_path: Path) -> None:
    fuzzer = Fuzzer(InProcessImplementation(WRONG["decider-on-replay"]()),
                    InProcessImplementation(), SUITE, cases())
    scenarios = random_cases(40, 5)
    result = fuzzer.run([], scenarios)
    (tally,) = result.tallies
    assert tally.function == SCENARIOS and tally.tried == 40
    assert tally.disagreements == len(result.findings) > 0
    assert any("decider" in d for f in result.findings for d in f.differences)
    paths = write_drafts(result, str(tmp_path), {})
    drafts, problems = load_cases(str(tmp_path))
    assert not problems and len(drafts) == len(paths)
    suite = Runner(InProcessImplementation(), SUITE, generated=False,
                   profile=Profile.LOOM_REF).run(drafts)
    assert suite.ok  # loom-ref passes the scenario drafts: their expectation is its answer
    fuzzer = Fuzzer(InProcessImplementation(), InProcessImplementation(), SUITE, cases())
    assert fuzzer.run([], scenarios).ok  # loom-ref agrees with itself on every one


def test_the_cli_writes_drafts_and_fails_on_a_disagreement(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = f"{sys.executable} -m tests.conformance.zero_budget_adapter"
    argv = ["conformance", "fuzz", "--impl", wrong, "--only", "guards.budget", "--out",
            str(tmp_path), "--quiet"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "DISAGREE guards.run" in out and "draft case: " in out
    assert out.splitlines()[-1].startswith("fuzz: zero-budget 1 against loom-ref")
    assert list(tmp_path.glob("draft.guards.run/*.json"))
    assert main(["conformance", "fuzz", "--impl", f"{sys.executable} -m "
                 "loom_ref.conformance.adapter", "--only", "journal.fold", "--examples", "10",
                 "--quiet"]) == 0
    assert main(["conformance", "fuzz", "--impl", "x", "--only", "no.such"]) == 2
    assert "selects no vector function" in capsys.readouterr().err


class CrashingContentReference(LoomRefAdapter):
    """A reference with a bug: ``journal.content`` raises a Python ``TypeError`` (as loom-ref
    once did for a ``kind`` that is a list), so its reply carries a traceback."""

    def run_vector(self, case: Mapping[str, Any]) -> dict[str, Any]:
        if case.get("function") == "journal.content":
            {}.get([])  # TypeError: unhashable type: 'list', raised inside the adapter
        return super().run_vector(case)


def test_a_draft_shows_no_source_of_a_failing_reference(tmp_path: Path) -> None:
    # issue 29: a blind implementer reads drafts; the reference's traceback (loom_ref's file
    # paths and source lines) must not reach them, only the error's type and message
    reply = CrashingContentReference().run(
        {"id": "x/y", "family": "vector", "function": "journal.content", "input": {}})
    # what the runner itself reports, for loom-ref's own debugging
    assert "Traceback" in json.dumps(reply) and "loom_ref" in json.dumps(reply)
    fuzzer = Fuzzer(InProcessImplementation(), InProcessImplementation(
        CrashingContentReference()), SUITE, cases(), examples=5)
    result = fuzzer.run(["journal.content"])
    (finding,) = result.findings
    (path,) = write_drafts(result, str(tmp_path), {c.id: c for c in cases()})
    text = Path(path).read_text()
    for leak in ("Traceback", "traceback", "loom_ref", "inprocess", "File \""):
        assert leak not in text and all(leak not in d for d in finding.differences), leak
    assert not re.search(r"\.py\b", text)  # no module file ("patterns.python-re" is a name)
    draft = json.loads(text)
    assert draft["draft"]["answers"]["reference"]["errored"] == {
        "message": "TypeError: unhashable type: 'list'"}
    assert finding.differences == ("reference: errored: TypeError: unhashable type: 'list'",)


def test_public_reply_keeps_the_first_line_and_no_path() -> None:
    from loom_ref.conformance.fuzz.compare import public_reply

    reply = {"seq": 3, "errored": {
        "message": "OSError: cannot read /x/site-packages/loom_ref/journal/fs.py now\nline 2",
        "context": {"traceback": "Traceback ..."}}}
    assert public_reply(reply) == {"seq": 3, "errored": {
        "message": "OSError: cannot read <source> now"}}
    assert public_reply({"seq": 1, "crashed": "x\n  File \"/a/loom_ref/b.py\""}) == {
        "seq": 1, "crashed": "x"}
    ok = {"seq": 1, "observations": {"result": {"path": "/a/loom_ref.py"}}}
    assert public_reply(ok) is ok  # an answer is the reference's answer, untouched


def test_a_torn_append_whose_bound_depends_on_a_numbers_spelling_is_not_drawn() -> None:
    """journal.store-on-disk-vector leaves the spelling of numbers other than integers within
    2**53 to each writer, so the fuzzer draws no tornAppend whose payload holds one."""
    from loom_ref.conformance.fuzz.mutations import Corpus, inputs, spelling_open

    def torn(**step: Any) -> dict[str, Any]:
        return {"store": "files", "fsync": "never", "steps": [
            {"do": "create", "executionId": "e1"},
            {"do": "tornAppend", "executionId": "e1", "kind": "EXECUTION_STARTED", "bytes": 9,
             **step}]}

    fn = "journal.store-on-disk"
    started = {"executionId": "e1", "workflow": "w"}
    for payload in ({**started, "input": 0.5}, {**started, "input": [{"a": 1e-7}]},
                    {**started, "input": 2**53 + 1}):
        assert spelling_open(fn, torn(payload=payload)), payload
    for text in ('{"executionId":"e1","workflow":"w","input":1E5}',
                 '{"executionId":"e1","workflow":"w","input":-0}',
                 '{"executionId":"e1","workflow":"w","input":1.0}'):
        assert spelling_open(fn, torn(payloadText=text)), text
    for payload in ({**started, "input": [2**53, -(2**53), 0, -1]}, {**started, "input": "1.5"},
                    {**started, "input": True}):
        assert not spelling_open(fn, torn(payload=payload)), payload
    assert not spelling_open(fn, torn(payloadText='{"input":[1,-2],"x":"1.5e3"}'))
    assert not spelling_open(fn, torn(payloadText="{not json 1.5"))
    # an append that is not torn, and another function, are drawn as they are
    step = {"do": "append", "executionId": "e1", "kind": "EXECUTION_STARTED",
            "payload": {**started, "input": 0.5}}
    assert not spelling_open(fn, {"store": "files", "fsync": "never", "steps": [step]})
    assert not spelling_open("journal.fold", torn(payload={**started, "input": 0.5}))
    # and the strategy never yields one
    from hypothesis import given, settings

    corpus = Corpus.of([c for c in cases() if c.data.get("function") == fn])

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(inputs(corpus, fn))
    def drawn(pair: tuple[str, Any]) -> None:
        assert not spelling_open(fn, pair[1])

    drawn()
