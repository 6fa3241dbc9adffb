"""The provider mappings' JSON reading and re-stringifying (spec: stream.openai.json-payload,
stream.openai.number-range, stream.openai.restringify-form)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loom_ref.stream.json_text import compact, es_number, loads

# ECMAScript's Number-to-String (RFC 8785 section 3.2.2.3), value by value
SPELLED = [
    ("1.50", "1.5"), ("1E2", "100"), ("1e5", "100000"), ("-0", "0"), ("-0.0", "0"),
    ("1e-5", "0.00001"), ("1e-6", "0.000001"), ("1e-7", "1e-7"), ("1.5e-7", "1.5e-7"),
    ("1e20", "100000000000000000000"), ("1e21", "1e+21"), ("123e30", "1.23e+32"),
    ("0.1", "0.1"), ("5e-324", "5e-324"), ("1.7976931348623157e308", "1.7976931348623157e+308"),
    ("9007199254740993", "9007199254740992"), ("9007199254740992", "9007199254740992"),
    ("12345678901234567890", "12345678901234567000"), ("-2.5", "-2.5"), ("100", "100"),
]


@pytest.mark.parametrize(("text", "written"), SPELLED)
def test_numbers_are_written_as_ecmascript_writes_them(text: str, written: str) -> None:
    assert es_number(loads(text)) == written


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_double_reads_back(x: float) -> None:
    assert float(es_number(x)) == x or (x == 0 and es_number(x) == "0")


def test_compact_is_json_stringify_s_text() -> None:
    value = loads('{"q": 1.50, "\\u00e9": ["\\ud800", -0, 1e-7, null, true, "\\u0001\\n\\"\\\\"]}')
    assert compact(value) == '{"q":1.5,"\u00e9":["\\ud800",0,1e-7,null,true,"\\u0001\\n\\"\\\\"]}'
    assert json.loads(compact(value))["q"] == 1.5


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", '{"a": NaN}', "1e400",
                                  "-1e400", "[1" + "0" * 400 + "]", "{not json"])
def test_what_is_not_json_or_no_double_holds_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        loads(text)


def test_the_largest_double_is_read() -> None:
    assert math.isfinite(loads("1.7976931348623157e308"))


@pytest.mark.skipif(shutil.which("node") is None, reason="no node on this machine")
def test_node_s_json_stringify_agrees() -> None:
    texts = [text for text, _ in SPELLED] + ['{"b": [1.25, "\\u00e9", {"c": -0.0}], "a": 3e-9}']
    script = ("const t=JSON.parse(require('fs').readFileSync(0,'utf8'));"
              "console.log(JSON.stringify(t.map(s=>JSON.stringify(JSON.parse(s)))))")
    done = subprocess.run(["node", "-e", script], input=json.dumps(texts), capture_output=True,
                          text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [compact(loads(text)) for text in texts]
