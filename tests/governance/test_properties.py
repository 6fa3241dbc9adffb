"""Property tests: the delta guards agree with the output form, whatever the split.

spec: guards.running-text, guards.before-delivery, guards.hold-back, guards.hold-back-flush.
"""

from __future__ import annotations

import re

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from loom_ref.governance import (
    DeltaSevered,
    HoldBackGuard,
    PatternScan,
    RunningTextGuard,
    SafetyValidator,
    SafetyViolation,
    deny_patterns,
    pii_validator,
)
from loom_ref.testing.strategies import splits

# ---- strategies (splits: the kit's, loom_ref.testing.strategies) ---------------------------


# Monotone deny patterns in the portable dialect: literals and one-character classes over a
# small alphabet (the dialect has no anchors or look-around), so a match inside a substring is
# a match inside the whole text.
ATOMS = st.sampled_from(["a", "b", "c", "[ab]", "[bc]", "[^x]"])
DENY = st.lists(
    st.lists(ATOMS, min_size=1, max_size=5).map("".join), min_size=1, max_size=3, unique=True
)
TEXT = st.text(alphabet="abcx", max_size=60)


def rejects(v: SafetyValidator, text: str) -> bool:
    try:
        v.check_output(text)
    except SafetyViolation:
        return True
    return False


def first_start(v: SafetyValidator, text: str) -> int | None:
    """The leftmost start of any accepted match of any rule (not only the reported one)."""
    assert isinstance(v.output_form, PatternScan)
    starts = [m.start() for r in v.output_form.rules if (m := r.first_match(text)) is not None]
    return min(starts, default=None)


def first_rejected_prefix(v: SafetyValidator, deltas: list[str]) -> int | None:
    """Index of the first delta after which the text so far is rejected by the output form."""
    so_far = ""
    for i, d in enumerate(deltas):
        so_far += d
        if rejects(v, so_far):
            return i
    return None


def run(guard: RunningTextGuard, deltas: list[str]) -> tuple[str, int | None]:
    delivered = ""
    for i, d in enumerate(deltas):
        try:
            guard.check(d)
        except DeltaSevered as err:
            assert err.details["delta_index"] == i
            return delivered, i
        delivered += d
    return delivered, None


def width(v: SafetyValidator) -> int:
    assert isinstance(v.delta_form, PatternScan)
    w = v.delta_form.max_width
    assert w is not None
    return w


# ---- the running-text guard -----------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(data=st.data(), patterns=DENY, text=TEXT)
def test_deny_guard_severs_iff_output_rejects(
    data: st.DataObject, patterns: list[str], text: str
) -> None:
    v = deny_patterns(patterns)
    window = data.draw(st.integers(width(v), width(v) + 10), label="window")
    deltas = data.draw(splits(text), label="deltas")
    delivered, severed_at = run(RunningTextGuard([v], window), deltas)
    assert text.startswith(delivered)  # delivered before a sever is a prefix of the text
    assert (severed_at is not None) == rejects(v, text)
    # and it severs exactly at the first delta that completes a match
    assert severed_at == first_rejected_prefix(v, deltas)
    if severed_at is not None:
        assert delivered == "".join(deltas[:severed_at])


PII_PIECES = st.sampled_from(
    [
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "378282246310005",
        "4111111111111112",
        "1234",
        "5",
        "-",
        " ",
        "bob@example.com",
        "a.b@mail.example.co.uk",
        "@",
        ".",
        "com",
        "123-45-6789",
        "12-34",
        "hello",
        "x",
    ]
)
PII_TEXT = st.lists(PII_PIECES, max_size=8).map("".join)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), text=PII_TEXT)
def test_pii_guard_severs_at_first_rejected_prefix(data: st.DataObject, text: str) -> None:
    """The pii delta form is conservative (a card-valid prefix of a longer digit run severs),
    but exact against the output form applied to the text delivered so far plus the delta."""
    v = pii_validator()
    deltas = data.draw(splits(text), label="deltas")
    delivered, severed_at = run(RunningTextGuard([v]), deltas)
    assert text.startswith(delivered)
    assert severed_at == first_rejected_prefix(v, deltas)
    if rejects(v, text):  # the delta form never misses what the output form rejects
        assert severed_at is not None


@settings(max_examples=200, deadline=None)
@given(data=st.data(), text=PII_TEXT)
def test_pii_tail_scan_equals_whole_window_scan(data: st.DataObject, text: str) -> None:
    """The tail-scan optimization never changes a verdict (spec: guards.tail-scan): compare with
    a validator whose delta form is the same scan but opaque, so the guard hands it the whole
    running text."""
    v = pii_validator()
    assert isinstance(v.delta_form, PatternScan)
    scan = v.delta_form
    opaque = SafetyValidator(name="pii", delta_form=lambda t: scan(t))
    window = data.draw(st.integers(345, 400), label="window")
    deltas = data.draw(splits(text * 3), label="deltas")
    assert run(RunningTextGuard([v], window), deltas) == run(
        RunningTextGuard([opaque], window), deltas
    )


# ---- hold-back ------------------------------------------------------------------------------


def feed_all(guard: HoldBackGuard, deltas: list[str]) -> tuple[str, int | None, str | None]:
    released = ""
    for i, d in enumerate(deltas):
        try:
            released += guard.feed(d)
        except DeltaSevered:
            return released, i, None
    return released, None, guard.flush()


@settings(max_examples=300, deadline=None)
@given(data=st.data(), patterns=DENY, text=TEXT)
def test_deny_hold_back_never_releases_a_match_start(
    data: st.DataObject, patterns: list[str], text: str
) -> None:
    v = deny_patterns(patterns)
    window = data.draw(st.integers(width(v), width(v) + 10), label="window")
    deltas = data.draw(splits(text), label="deltas")
    released, severed_at, flushed = feed_all(HoldBackGuard([v], window), deltas)
    assert text.startswith(released)
    start = first_start(v, text)
    if start is None:
        assert severed_at is None and released + (flushed or "") == text
    else:
        assert severed_at is not None and flushed is None
        assert len(released) <= start  # the first character of a match never got out


@settings(max_examples=300, deadline=None)
@given(data=st.data(), text=PII_TEXT)
def test_pii_hold_back_never_releases_a_match_start(data: st.DataObject, text: str) -> None:
    v = pii_validator()
    deltas = data.draw(splits(text), label="deltas")
    released, severed_at, flushed = feed_all(HoldBackGuard([v]), deltas)
    assert text.startswith(released)
    if severed_at is None:
        assert flushed is not None and released + flushed == text
        assert not rejects(v, text)
    else:
        prefix = "".join(deltas[: severed_at + 1])
        start = first_start(v, prefix)
        assert start is not None and len(released) <= start


def test_regex_sanity_for_strategies() -> None:
    # every generated deny pattern compiles and has a bounded width
    for p in ["a", "[ab]c", "[^x]b[^x]"]:
        assert re.compile(p)
        assert width(deny_patterns([p])) == len(re.sub(r"\[..\]", "x", p))


@settings(max_examples=300, deadline=None)
@given(text=PII_TEXT, noise=st.text(alphabet="ab@.-1 ", max_size=80))
def test_rule_shortcuts_never_change_a_verdict(text: str, noise: str) -> None:
    """``required`` / ``required_offset`` only skip work: first_match equals a plain scan."""
    v = pii_validator()
    assert isinstance(v.output_form, PatternScan)
    for sample in (text, noise + text, text + noise):
        for rule in v.output_form.rules:
            bare = attrs.evolve(rule, required=None, required_offset=None)
            plain = next((m.span() for m in bare.finditer(sample)), None)
            got = rule.first_match(sample)
            assert (None if got is None else got.span()) == plain
