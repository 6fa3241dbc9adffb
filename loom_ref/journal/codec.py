"""The JSONL line format: one header line, then one event per line, each with a checksum.

Spec: ``spec/journal.md``. A line is a JSON object whose LAST member is ``"crc"``::

    {"seq":1,"kind":"EXECUTION_STARTED","payload":{...},"crc":"1c291ca3"}

- ``journal.checksum``: ``crc`` is the CRC-32 (ISO-HDLC, as ``zlib.crc32``) of the line's
  UTF-8 bytes up to, not including, the ``,"crc":"`` that starts the final member, written as
  8 lowercase hex digits. The suffix ``,"crc":"xxxxxxxx"}`` is always 18 bytes, so a reader
  checks a line without re-serialising it: any JSON writer can produce a valid line.
- ``journal.header``: the first line is ``{"schema":"loom-ref.journal","version":1,
  "executionId":...,"crc":...}``, checksummed the same way.
- ``journal.line-shape``: an event line is a JSON object with exactly the members ``seq``,
  ``kind``, ``payload`` and, last, ``crc`` (:func:`encode_line` writes that shape; the reader
  refuses any other).
- ``journal.json-values``: a line holds JSON values only. Python's decoder would accept
  ``NaN``, ``Infinity`` and ``-Infinity`` (which are not JSON) and read a number too large
  for a double as an infinity; :func:`decode_line` refuses all of them as a malformed line.
- ``journal.line-terminator``: a line exists only once its terminating ``\\n`` is written; the
  bytes after the last ``\\n`` are a torn tail (see :mod:`loom_ref.journal.reader`).
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Callable
from typing import Any

from loom_ref.errors import JournalError

__all__ = [
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "ChecksumError",
    "MalformedLineError",
    "decode_line",
    "encode_header",
    "encode_line",
]

SCHEMA_NAME = "loom-ref.journal"
SCHEMA_VERSION = 1

_SUFFIX_LEN = 18  # len(',"crc":"') + 8 hex digits + len('"}')
_CRC_OPEN = b',"crc":"'

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text} is not a finite number")
    return value


# str in, no encoding sniffing (a journal is UTF-8); spec: journal.json-values -- no NaN or
# infinities, which Python's decoder would otherwise accept
_decoder = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite)
_loads = _decoder.decode
# the fast path for a line with no whitespace before its object: the C scanner that
# ``raw_decode`` wraps, called directly (it raises StopIteration where no value starts)
_scan_once: Callable[[str, int], tuple[Any, int]] = _decoder.scan_once  # type: ignore[attr-defined]


class MalformedLineError(JournalError):
    """A line is not a well-formed journal line (bad JSON, wrong members, bad types)."""

    code = "journal.malformed-line"


class ChecksumError(JournalError):
    """A line's ``crc`` does not match its content."""

    code = "journal.bad-checksum"


def to_json_text(value: Any) -> str:
    """Serialise ``value`` the way the journal does; raise ``TypeError``/``ValueError`` if it
    is not made of JSON values (``journal.json-values``)."""
    return _dumps(value)


def _seal(body: str) -> bytes:
    raw = body.encode("utf-8")
    return b'%s,"crc":"%08x"}\n' % (raw, zlib.crc32(raw))


def encode_line(seq: int, kind: str, payload: Any) -> bytes:
    """The bytes of one event line, newline included."""
    body = _dumps({"seq": seq, "kind": kind, "payload": payload})
    return _seal(body[:-1])


def encode_header(execution_id: str) -> bytes:
    """The bytes of the header line, newline included (``journal.header``)."""
    body = _dumps({"schema": SCHEMA_NAME, "version": SCHEMA_VERSION, "executionId": execution_id})
    return _seal(body[:-1])


def decode_line(line: bytes) -> dict[str, Any]:
    """Check and parse one line (without its ``\\n``); return the object minus ``crc``.

    Raises :class:`ChecksumError` or :class:`MalformedLineError`; the caller adds file and
    line number to the error's details.
    """
    if len(line) <= _SUFFIX_LEN or line[-_SUFFIX_LEN:-10] != _CRC_OPEN or line[-2:] != b'"}':
        raise MalformedLineError("line does not end with a crc member")
    try:
        expected = int(line[-10:-2], 16)
    except ValueError:
        raise MalformedLineError("crc is not 8 hex digits") from None
    # a bytes slice, not a memoryview: for lines of a few hundred bytes the copy is cheaper
    if zlib.crc32(line[:-_SUFFIX_LEN]) != expected:
        raise ChecksumError("checksum mismatch")
    try:
        text = line.decode("utf-8")
        try:
            obj, end = _scan_once(text, 0)
        except (StopIteration, ValueError):
            obj, end = _loads(text), len(text)  # leading whitespace, or the precise error
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedLineError(f"not valid JSON: {exc}") from None
    if end != len(text) and text[end:].strip():
        raise MalformedLineError("data after the JSON object")
    if type(obj) is not dict:
        raise MalformedLineError("line is not a JSON object")
    del obj["crc"]
    return obj
