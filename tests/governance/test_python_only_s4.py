"""What only a Python caller of the governance API can see (issue 30, samples 473986, 321483
and 238680): each test here covers a line declared Python-only in
``tools/coverage/python-only.toml`` or a mutant reviewed as beyond the protocol in
``tools/mutation/reviewed/governance.json``, and fails when that line is changed.
"""

from __future__ import annotations

import pytest

from loom_ref.errors import InvalidArgument
from loom_ref.governance import deny_patterns
from loom_ref.governance.dialect import PatternError, Reason, check_pattern
from loom_ref.governance.holdback import hold_back_width


def test_hold_back_refusal_names_the_unbounded_rules_only() -> None:
    # the refusal's code (argument.invalid) is what a case sees; which rules its message
    # names only a Python caller reads
    with pytest.raises(InvalidArgument) as caught:
        hold_back_width([deny_patterns({"open": "x+", "closed": "yz"})])
    message = str(caught.value)
    assert "['open']" in message
    assert "closed" not in message


@pytest.mark.parametrize("pattern", ["[--a]", "[^--a]"])
def test_a_dash_right_after_a_leading_dash_is_a_misplaced_dash(pattern: str) -> None:
    # both readings refuse with reason class at the same position; only the message says
    # whether the class was read as [--] or as a - between two characters
    with pytest.raises(PatternError) as caught:
        check_pattern(pattern)
    assert caught.value.details["reason"] == Reason.CLASS.value
    assert "between two characters" in str(caught.value)
    assert "two dashes" not in str(caught.value)
