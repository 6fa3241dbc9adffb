"""What only a Python caller of the governance API can see (issue 30, sample 456059): each
test here covers a line declared Python-only in ``tools/coverage/python-only.toml`` or a
mutant reviewed as beyond the protocol in ``tools/mutation/reviewed/governance.json``, and
fails when that line is changed.
"""

from __future__ import annotations

import re
from itertools import islice

import pytest

from loom_ref.errors import InvalidArgument
from loom_ref.governance import Phase, SafetyViolation
from loom_ref.governance.rules import PatternRule, compile_rule
from loom_ref.governance.validators import PatternScan


def test_a_rule_built_by_hand_may_match_empty_text() -> None:
    # compile_rule refuses a regex that can match empty text (validators.rule-nonempty); a
    # PatternRule built by hand may have one (min_width 0), and its scan steps one character
    # past an empty match, so the empty match at 1 is followed by the one at 2 (islice: a
    # scan that resumed at the empty match's end would report it forever)
    rule = PatternRule(name="x", pattern=re.compile("(?=a)|b"), min_width=0, max_width=None)
    spans = [m.span() for m in islice(rule.finditer("baab"), 6)]
    assert spans == [(0, 1), (1, 1), (2, 2), (3, 4)]


def test_a_hand_built_rule_matching_empty_text_at_the_end_stops_there() -> None:
    # Python's search finds an empty match at the end even from an offset past it, so a scan
    # that steps past an empty match at the end must stop, not loop forever
    # (an empty match at 0 ends at no offset after 0, so it is never reported)
    rule = PatternRule(name="x", pattern=re.compile("x*"), min_width=0, max_width=None)
    assert [m.span() for m in islice(rule.finditer("ab"), 4)] == [(1, 1), (2, 2)]
    assert [m.span() for m in rule.finditer("")] == []
    assert rule.first_match("ab", 3) is None


def test_compile_rule_refuses_a_max_width_below_the_regex_width() -> None:
    # deny_patterns hands an explicit max_width to unbounded rules alone, so only a Python
    # caller of compile_rule can ask for a bounded rule narrower than its regex
    with pytest.raises(InvalidArgument, match="below the regex's own width 3"):
        compile_rule("r", "abc", max_width=2)
    assert compile_rule("r", "abc", max_width=3).max_width == 3


def test_a_scan_without_rules_is_zero_wide() -> None:
    # every validator the protocol builds has at least one rule (deny_patterns refuses none,
    # pii has three); a PatternScan built by hand with none can match nothing: width 0
    assert PatternScan(validator="v", phase=Phase.OUTPUT, rules=()).max_width == 0


def test_a_violation_message_says_where_only_for_the_input_phase() -> None:
    # the message is the Python caller's (the protocol compares code and details, never a
    # message: INTERPRETING.md section 15); "at" names the path, the root for ""
    def message(path: str | None) -> str:
        return SafetyViolation(validator="v", phase="input", rule="r", span=(0, 1),
                               path=path).message

    assert message(None).endswith("rule 'r' matched span 0-1")
    assert message("").endswith("rule 'r' matched span 0-1 at the root")
    assert message("/a").endswith("rule 'r' matched span 0-1 at /a")
