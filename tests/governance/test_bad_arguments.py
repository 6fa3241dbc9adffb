"""Every public entry point of the governance layer answers a bad argument with a loom_ref error
carrying a stable code, never an internal exception (spec: errors.invalid-argument).

Each entry point is called with one argument replaced by each value of ``BAD`` (every other
argument good). The call may accept the value (some are valid for some parameters: any value
is a request for ``guard_request``); if it raises, the error MUST be a
:class:`~loom_ref.errors.LoomError` whose ``code`` is a non-empty string. A ``TypeError``,
``KeyError`` or ``AttributeError`` from inside loom_ref fails the test. A record built with a
bad field is used the way the layer uses it, since that is where a bad field would surface.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from loom_ref.errors import InvalidArgument
from loom_ref.governance import (
    VECTOR_FUNCTIONS,
    DeltaSevered,
    GuardChain,
    GuardEvent,
    GuardState,
    GuardStateError,
    HoldBackGuard,
    NotTaintedError,
    PatternRule,
    PatternScan,
    Phase,
    RunningTextGuard,
    SafetyValidator,
    SafetyViolation,
    StreamTokenBudgetExceeded,
    StreamTokenBudgetGuard,
    TaintedRequestError,
    TaintedValue,
    approx_token_count,
    compile_rule,
    deny_patterns,
    guard_request,
    has_delta_form,
    hold_back_width,
    is_tainted,
    luhn_ok,
    pattern_validator,
    pii_rules,
    pii_validator,
    stream_token_budget,
    taint,
    unwrap_tainted,
)

from ..badargs import leaks

TEXT = "mail a@example.com, key KEY-1234"


def key_rule(**override: Any) -> PatternRule:
    """A :class:`PatternRule` as compile_rule builds it, with ``override`` fields."""
    fields: dict[str, Any] = {"name": "key", "pattern": re.compile("KEY-[0-9]{4}"),
                              "min_width": 8, "max_width": 8, "accept": None,
                              "required": "KEY-", "required_offset": 0}
    fields.update(override)
    return PatternRule(**fields)


def key() -> SafetyValidator:
    return pattern_validator("key", [key_rule()])


def scan(**override: Any) -> PatternScan:
    fields: dict[str, Any] = {"validator": "key", "phase": Phase.OUTPUT, "rules": (key_rule(),)}
    fields.update(override)
    return PatternScan(**fields)


def use(validator: SafetyValidator) -> None:
    """Use a validator in every phase it has, as a middleware and a guard would."""
    for check in (lambda: validator.check_input({"q": TEXT}),
                  lambda: validator.check_output(TEXT),
                  lambda: RunningTextGuard([validator]).check(TEXT)):
        try:
            check()
        except (SafetyViolation, DeltaSevered):
            pass


def guarded(guard: Any) -> None:
    """Feed a guard a few deltas, reset it, feed it again (a retry)."""
    for _ in range(2):
        for delta in ("ab", "cd"):
            guard.check(delta)
        guard.reset()


def held(guard: HoldBackGuard) -> str:
    released = guard.feed("abc") + guard.feed("def")
    return released + guard.flush()


#: entry point name -> a function of the bad value that calls it with that value in one place
ENTRY_POINTS: dict[str, Callable[[Any], Any]] = {
    # enums
    "Phase": lambda v: Phase(v),
    "GuardEvent": lambda v: GuardEvent(v),
    "GuardState": lambda v: GuardState(v),
    # errors
    "DeltaSevered(message)": lambda v: DeltaSevered(v).again(),
    "GuardStateError(message)": lambda v: GuardStateError(v),
    "NotTaintedError(message)": lambda v: NotTaintedError(v),
    "StreamTokenBudgetExceeded(message)": lambda v: StreamTokenBudgetExceeded(v).again(),
    "SafetyViolation(validator)": lambda v: SafetyViolation(validator=v, phase="output",
                                                            rule="r", span=(0, 1)),
    "SafetyViolation(phase)": lambda v: SafetyViolation(validator="v", phase=v, rule="r",
                                                        span=(0, 1)),
    "SafetyViolation(rule)": lambda v: SafetyViolation(validator="v", phase="output", rule=v,
                                                       span=(0, 1)),
    "SafetyViolation(span)": lambda v: SafetyViolation(validator="v", phase="output", rule="r",
                                                       span=v),
    "SafetyViolation(path)": lambda v: SafetyViolation(validator="v", phase="input", rule="r",
                                                       span=(0, 1), path=v),
    "SafetyViolation(message)": lambda v: SafetyViolation(validator="v", phase="output",
                                                          rule="r", span=(0, 1), message=v),
    "TaintedRequestError(path)": lambda v: TaintedRequestError(path=v, origin="o"),
    "TaintedRequestError(origin)": lambda v: TaintedRequestError(path="", origin=v),
    "TaintedRequestError(key)": lambda v: TaintedRequestError(path="", origin="o", key=v),
    # taint
    "TaintedValue(value)": lambda v: TaintedValue(value=v, origin="o"),
    "TaintedValue(origin)": lambda v: TaintedValue(value="x", origin=v),
    "taint(value)": lambda v: taint(v, "o"),
    "taint(origin)": lambda v: taint("x", v),
    "is_tainted": lambda v: is_tainted(v),
    "unwrap_tainted": lambda v: unwrap_tainted(v),
    "guard_request": lambda v: guard_request(v),
    "guard_request(tainted inside)": lambda v: guard_request({"a": [taint(v, "o")]}),
    # rules
    "luhn_ok": lambda v: luhn_ok(v),
    "compile_rule(name)": lambda v: compile_rule(v, "a"),
    "compile_rule(regex)": lambda v: compile_rule("r", v),
    "compile_rule(flags)": lambda v: compile_rule("r", "a", v),
    "compile_rule(max_width)": lambda v: compile_rule("r", "a+", max_width=v),
    "compile_rule(accept)": lambda v: compile_rule("r", "a", accept=v),
    "compile_rule(required)": lambda v: compile_rule("r", "a", required=v),
    "compile_rule(required_offset)": lambda v: compile_rule("r", "a", required="a",
                                                            required_offset=v),
    "compile_rule(compiled regex, flags)": lambda v: compile_rule("r", re.compile("a"), v),
    **{f"PatternRule({field})": (lambda f: lambda v: use(pattern_validator(
        "key", [key_rule(**{f: v})])))(field)
       for field in ("name", "pattern", "min_width", "max_width", "accept", "required",
                     "required_offset")},
    "PatternRule.first_match(text)": lambda v: key_rule().first_match(v),
    "PatternRule.first_match(fresh)": lambda v: key_rule().first_match(TEXT, v),
    "pii_rules": lambda v: [rule.first_match(v) for rule in pii_rules()],
    # validators
    "SafetyValidator(name)": lambda v: use(SafetyValidator(name=v)),
    "SafetyValidator(input_form)": lambda v: use(SafetyValidator(name="n", input_form=v)),
    "SafetyValidator(output_form)": lambda v: use(SafetyValidator(name="n", output_form=v)),
    "SafetyValidator(delta_form)": lambda v: use(SafetyValidator(name="n", delta_form=v)),
    "SafetyValidator.check_input": lambda v: pii_validator().check_input(v),
    "SafetyValidator.check_output": lambda v: pii_validator().check_output(v),
    "SafetyValidator.check_delta": lambda v: pii_validator().check_delta(v),
    "has_delta_form": lambda v: has_delta_form(v),
    "pattern_validator(name)": lambda v: use(pattern_validator(v, [key_rule()])),
    "pattern_validator(rules)": lambda v: use(pattern_validator("n", v)),
    "pattern_validator(rules[i])": lambda v: use(pattern_validator("n", [key_rule(), v])),
    "pattern_validator(input)": lambda v: use(pattern_validator("n", [key_rule()], input=v)),
    "pattern_validator(output)": lambda v: use(pattern_validator("n", [key_rule()], output=v)),
    "pattern_validator(delta)": lambda v: use(pattern_validator("n", [key_rule()], delta=v)),
    **{f"PatternScan({field})": (lambda f: lambda v: scan(**{f: v})(TEXT))(field)
       for field in ("validator", "phase", "rules")},
    "PatternScan(rules[i])": lambda v: scan(rules=(key_rule(), v))(TEXT),
    "PatternScan.__call__": lambda v: scan()(v),
    "PatternScan.find(text)": lambda v: scan().find(v),
    "PatternScan.find(fresh)": lambda v: scan().find(TEXT, v),
    "PatternScan.violation(rule)": lambda v: scan().violation(v, re.search("a", "a")),
    "PatternScan.violation(match)": lambda v: scan().violation(key_rule(), v),
    "PatternScan.violation(path)": lambda v: scan().violation(key_rule(), re.search("a", "a"),
                                                              path=v),
    "pii_validator(name)": lambda v: use(pii_validator(name=v)),
    "pii_validator(delta)": lambda v: use(pii_validator(delta=v)),
    "deny_patterns(patterns)": lambda v: use(deny_patterns(v)),
    "deny_patterns(patterns[i])": lambda v: use(deny_patterns(["KEY", v])),
    "deny_patterns(patterns{name: v})": lambda v: use(deny_patterns({"key": v})),
    "deny_patterns(flags)": lambda v: use(deny_patterns(["KEY"], v)),
    "deny_patterns(name)": lambda v: use(deny_patterns(["KEY"], name=v)),
    "deny_patterns(delta)": lambda v: use(deny_patterns(["KEY"], delta=v)),
    "deny_patterns(max_width)": lambda v: use(deny_patterns(["KEY+"], max_width=v)),
    # guards
    "approx_token_count": lambda v: approx_token_count(v),
    "StreamTokenBudgetGuard(max_tokens)": lambda v: guarded(StreamTokenBudgetGuard(v)),
    "StreamTokenBudgetGuard(count)": lambda v: guarded(StreamTokenBudgetGuard(9, v)),
    "StreamTokenBudgetGuard.check": lambda v: StreamTokenBudgetGuard(9).check(v),
    "StreamTokenBudgetGuard.stage": lambda v: StreamTokenBudgetGuard(9).stage(v)(),
    "stream_token_budget(max_tokens)": lambda v: guarded(stream_token_budget(v)),
    "stream_token_budget(count)": lambda v: guarded(stream_token_budget(9, v)),
    "RunningTextGuard(validators)": lambda v: guarded(RunningTextGuard(v)),
    "RunningTextGuard(validators[i])": lambda v: guarded(RunningTextGuard([key(), v])),
    "RunningTextGuard(window)": lambda v: guarded(RunningTextGuard([key()], v)),
    "RunningTextGuard.check": lambda v: RunningTextGuard([key()]).check(v),
    "RunningTextGuard.stage": lambda v: RunningTextGuard([key()]).stage(v)(),
    "GuardChain(guards)": lambda v: guarded(GuardChain(v)),
    "GuardChain(guards[i])": lambda v: guarded(GuardChain([RunningTextGuard([key()]), v])),
    "GuardChain(guards[-1])": lambda v: guarded(GuardChain([v])),
    "GuardChain.check": lambda v: GuardChain([RunningTextGuard([key()])]).check(v),
    "GuardChain.stage": lambda v: GuardChain([RunningTextGuard([key()])]).stage(v)(),
    "hold_back_width(validators)": lambda v: hold_back_width(v),
    "hold_back_width(validators[i])": lambda v: hold_back_width([key(), v]),
    "HoldBackGuard(validators)": lambda v: held(HoldBackGuard(v)),
    "HoldBackGuard(validators[i])": lambda v: held(HoldBackGuard([key(), v])),
    "HoldBackGuard(window)": lambda v: held(HoldBackGuard([key()], v)),
    "HoldBackGuard(after)": lambda v: held(HoldBackGuard([key()], after=v)),
    "HoldBackGuard(after[i])": lambda v: held(HoldBackGuard([key()], after=[v])),
    "HoldBackGuard.feed": lambda v: HoldBackGuard([key()]).feed(v),
    **{f"VECTOR_FUNCTIONS[{name!r}]": function for name, function in VECTOR_FUNCTIONS.items()},
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_bad_argument_is_a_loom_error_with_a_code(entry: str, capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    leaked = leaks(entry, ENTRY_POINTS[entry])
    assert not leaked, f"{entry} leaked internal exceptions:\n" + "\n".join(leaked)


def test_the_good_arguments_of_the_table_work() -> None:
    # the table's defaults are good: with them each helper runs to completion
    with pytest.raises(SafetyViolation):
        key().check_output(TEXT)
    assert scan().find(TEXT) is not None
    guarded(GuardChain([RunningTextGuard([key()]), StreamTokenBudgetGuard(9)]))
    assert held(HoldBackGuard([key()])) == "abcdef"
    use(key())
    with pytest.raises(InvalidArgument):
        hold_back_width([deny_patterns(["a+"])])


def test_regex_width_without_the_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the interpreter's regex parser cannot be imported, a python-re rule's width is
    ``(1, None)``: at least one character, unbounded (so hold-back needs a max_width)."""
    from loom_ref.governance import rules

    def no_parser(name: str) -> object:
        raise ImportError(name)

    assert rules.regex_width(re.compile("ab")) == (2, 2)
    monkeypatch.setattr(rules.importlib, "import_module", no_parser)
    assert rules.regex_width(re.compile("ab")) == (1, None)


def test_compile_rule_refuses_a_compiled_bytes_pattern() -> None:
    """A compiled pattern must be a text pattern: a bytes one is argument.invalid."""
    with pytest.raises(InvalidArgument, match="a text"):
        compile_rule("b", re.compile(b"ab"), dialect="python-re")


def test_a_compiled_pattern_too_deep_to_measure_is_argument_invalid() -> None:
    """A python-re pattern compiled (and cached by re) under a higher recursion limit, handed
    over where re's parser cannot re-parse it to measure its width: argument.invalid, never a
    RecursionError."""
    import sys

    source = "(" * 3000 + "a" + ")" * 3000
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        pattern = re.compile(source)
    finally:
        sys.setrecursionlimit(limit)
    with pytest.raises(InvalidArgument, match="too deep"):
        compile_rule("deep", pattern, dialect="python-re")
