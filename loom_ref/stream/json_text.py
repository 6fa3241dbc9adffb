"""How the provider mappings read an event's JSON and write re-stringified tool arguments.

Rules (``spec/stream.md``):

- An event's data is read as JSON text (RFC 8259): ``NaN``, ``Infinity`` and ``-Infinity``
  are not JSON, and a number beyond the range of an IEEE 754 double (``1e400``) is refused
  too (I-JSON, RFC 7493 section 2.2), so a payload means the same to every reader.
  :func:`loads` raises ``ValueError`` for them, as for any text that is not JSON.
  (spec: stream.openai.json-payload, stream.openai.number-range)
- Arguments a provider hands back parsed are re-stringified as ECMAScript's
  ``JSON.stringify`` writes them (what a TypeScript implementation of the seed writes with no
  code of its own): no whitespace, members in the order received, strings escaped as
  ``JSON.stringify`` escapes them (``"``, ``\\``, the controls below U+0020, a lone surrogate
  as ``\\uXXXX``; every other character as it is), and numbers in ECMAScript's
  Number-to-String form, which RFC 8785 section 3.2.2.3 documents: ``1.5``, ``100``,
  ``1e-7``, ``1e+21``, ``0`` for ``-0``. (spec: stream.openai.restringify-form)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, cast

__all__ = ["compact", "es_number", "loads"]

_LARGEST = 1.7976931348623157e308  # the largest finite IEEE 754 double
_SURROGATE = re.compile("[\ud800-\udfff]")  # in a Python str, a surrogate is always lone


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259)")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is beyond the range of a double (I-JSON)")
    return value


def _int(text: str) -> int:
    value = int(text)
    if abs(value) > _LARGEST:
        raise ValueError(f"the number {text[:40]}... is beyond the range of a double (I-JSON)")
    return value


def loads(text: str) -> Any:
    """``text`` read as strict JSON; ``ValueError`` when it is not JSON or holds a number no
    double holds. (spec: stream.openai.json-payload, stream.openai.number-range)"""
    return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)


def es_number(value: int | float) -> str:
    """``value`` as ECMAScript's Number-to-String writes it (RFC 8785 section 3.2.2.3): an
    integer within +-2^53 as its digits; anything else as the double it is, in the shortest
    digits that read back, fixed below 1e21 and above 1e-7, else with an exponent."""
    if isinstance(value, int) and abs(value) <= 2**53:
        return str(value)
    x = float(value)
    if not math.isfinite(x):
        raise ValueError("a number beyond the range of a double has no JSON form")
    if x == 0:
        return "0"  # -0 too, as JSON.stringify writes it
    _, digits_tuple, exponent_or_flag = Decimal(repr(abs(x))).as_tuple()
    exponent = cast(int, exponent_or_flag)  # a finite double's repr is a finite decimal
    digits = "".join(map(str, digits_tuple)).rstrip("0")
    exponent += len(digits_tuple) - len(digits)
    k = len(digits)
    n = exponent + k  # the value is 0.<digits> * 10**n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        e = n - 1
        mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
        text = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return ("-" if x < 0 else "") + text


def _string(value: str) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def compact(value: Any) -> str:
    """``value`` (a JSON value as :func:`loads` reads it) as ``JSON.stringify(value)`` writes
    it. (spec: stream.openai.restringify-form)"""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return es_number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(compact(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_string(str(k))}:{compact(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"{type(value).__name__} is not a JSON value")
