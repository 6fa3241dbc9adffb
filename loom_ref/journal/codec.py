"""The JSONL line format: one header line, then one event per line, each with a checksum.

Spec: ``spec/journal.md``. A line is a JSON object whose LAST member is ``"crc"``::

    {"seq":1,"kind":"EXECUTION_STARTED","payload":{...},"crc":"1c291ca3"}

- ``journal.checksum``: ``crc`` is the CRC-32 (ISO-HDLC, as ``zlib.crc32``) of the line's
  UTF-8 bytes up to, not including, the ``,"crc":"`` that starts the final member, written as
  8 lowercase hex digits (a reader refuses any other spelling of the value as a malformed
  line). The suffix ``,"crc":"xxxxxxxx"}`` is always 18 bytes, so a reader
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

Only Python's public ``json`` API is used (``JSONEncoder.encode``, ``JSONDecoder.raw_decode``
and ``decode``, ``json.encoder.encode_basestring``). The time the interpreter's private fast
paths once saved is won back where the profile of an append showed it: the encoder without
its cycle bookkeeping (a cycle is still refused), and the parts of a line every line spells
(the header's members, each kind's name) written as text once.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from collections.abc import Callable
from typing import Any

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal.events import EventKind

__all__ = [
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "ChecksumError",
    "MalformedLineError",
    "decode_line",
    "encode_header",
    "encode_line",
    "event_line",
    "from_json_text",
    "is_schema_version",
    "json_string",
    "may_escape_surrogate",
    "parse_json",
    "seal_line",
    "to_json_text",
]

SCHEMA_NAME = "loom-ref.journal"
SCHEMA_VERSION = 1


def is_schema_version(value: object) -> bool:
    """Whether a header's ``version`` is :data:`SCHEMA_VERSION`: the integer itself, not
    ``true`` (which Python's ``==`` counts as 1). spec: journal.header"""
    return type(value) is int and value == SCHEMA_VERSION

_SUFFIX_LEN = 18  # len(',"crc":"') + 8 hex digits + len('"}')
_CRC_OPEN = b',"crc":"'
_CRC_DIGITS = re.compile(rb"[0-9a-f]{8}")

#: The journal's JSON writer (``journal.json-values``): compact, non-ASCII kept as UTF-8, no
#: NaN or infinities. The public ``json`` API only. ``check_circular`` is off because a cycle
#: cannot be written anyway: it recurses until Python's recursion limit, which ``_dumps``
#: reports as the ValueError the check would have raised (and a value nested that deep is
#: refused alike); the check's bookkeeping cost a tenth of an event's append.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                            check_circular=False)
_encode = _ENCODER.encode
#: A str as its JSON text (quoted and escaped, non-ASCII kept as _dumps keeps it).
json_string: Callable[[str], str] = json.encoder.encode_basestring


def _dumps(value: Any) -> str:
    """``value``'s JSON text as the journal writes it; TypeError or ValueError if it is not
    made of JSON values (a cycle included)."""
    try:
        return _encode(value)
    except RecursionError:
        raise ValueError("the value is cyclic, or nested deeper than Python's recursion "
                         "limit") from None


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
#: The fast path for text that starts with its value (every line loom-ref writes):
#: ``raw_decode`` parses one value at the start of a str and says where it ended, without
#: ``decode``'s two whitespace scans; leading whitespace falls back to ``decode``.
_raw_decode: Callable[[str], tuple[Any, int]] = _decoder.raw_decode


class MalformedLineError(JournalError):
    """A line is not a well-formed journal line (bad JSON, wrong members, bad types).
    (spec: journal.line-shape)
    """

    code = "journal.malformed-line"


class ChecksumError(JournalError):
    """A line's ``crc`` does not match its content (spec: journal.checksum)."""

    code = "journal.bad-checksum"


def to_json_text(value: Any) -> str:
    """Serialise ``value`` the way the journal does; raise ``TypeError``/``ValueError`` if it
    is not made of JSON values (``journal.json-values``)."""
    return _dumps(value)


def from_json_text(text: str) -> Any:
    """The value of JSON text that :func:`to_json_text` wrote (so: no whitespace around it)."""
    return _raw_decode(text)[0]


def _seal(body: str) -> bytes:
    """``body`` is a JSON object's text without its closing ``}``: append the ``crc`` member
    over its bytes (``journal.checksum``), the ``}`` and the ``\n``."""
    raw = body.encode("utf-8")
    return b'%s,"crc":"%08x"}\n' % (raw, zlib.crc32(raw))


def seal_line(object_text: str) -> bytes:
    """The line for a JSON object's compact text: its ``crc`` member added last, newline
    included (``journal.checksum``)."""
    return _seal(object_text[:-1])


def encode_line(seq: int, kind: str, payload: Any) -> bytes:
    """The bytes of one event line, newline included (``journal.line-shape``).

    A codec: it writes whatever ``kind`` and payload it is given (a reader judges them), but
    ``seq`` must be an int, ``kind`` a str and ``payload`` made of JSON values
    (``journal.json-values``), else InvalidArgument."""
    if type(seq) is not int or not isinstance(kind, str):
        raise InvalidArgument(f"seq must be an int and kind a str, got {seq!r} and {kind!r}")
    try:
        return event_line(seq, kind, _dumps(payload))
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError (a lone surrogate) included
        raise InvalidArgument(f"payload is not made of JSON values: {exc}") from None


def event_line(seq: int, kind: str, payload_text: str) -> bytes:
    """:func:`encode_line` for a payload already encoded (by :func:`to_json_text`).

    Written as ``{"seq":N,"kind":"K","payload":...`` around the payload's text: the same
    bytes as encoding the three-member object, without building it; the kernel pays this on
    every append.
    """
    quoted = _QUOTED.get(kind) or json_string(kind)
    return _seal(f'{{"seq":{seq:d},"kind":{quoted},"payload":{payload_text}')


#: The kinds' names as JSON text, quoted once (every line spells one).
_QUOTED: dict[str, str] = {kind.value: json_string(kind.value) for kind in EventKind}

_HEADER_OPEN = f'{{"schema":{json_string(SCHEMA_NAME)},"version":{SCHEMA_VERSION:d},"executionId":'


def encode_header(execution_id: str) -> bytes:
    """The bytes of the header line, newline included (``journal.header``): the object
    ``{"schema", "version", "executionId"}``, written around the id's JSON text."""
    return _seal(_HEADER_OPEN + json_string(execution_id))


def may_escape_surrogate(data: bytes) -> bool:
    """Whether ``data`` holds a ``\\ud``/``\\uD`` escape: the only way JSON text can spell a
    lone surrogate (UTF-8 cannot carry one). A reader asks once for a whole journal, then
    tells :func:`decode_line` whether its lines need the per-line search.

    The journal writes text unescaped (``ensure_ascii=False``), so most journals hold no
    ``\\u`` escape at all: one search for ``\\u`` answers them, and only a journal that has
    one is searched again for the two spellings (``bench/bench_kernel.py``'s replay lines:
    two whole-journal searches were about 7% of a 1 KB-payload replay)."""
    return b"\\u" in data and (b"\\ud" in data or b"\\uD" in data)


def decode_line(line: bytes, *, surrogate_escapes: bool = True) -> dict[str, Any]:
    """Check and parse one line (without its ``\\n``); return the object minus ``crc``.

    ``surrogate_escapes=False`` is the caller's word that the line holds no ``\\ud`` or
    ``\\uD`` escape (see :func:`may_escape_surrogate`), which skips searching the line for
    one. Raises :class:`ChecksumError` or :class:`MalformedLineError`; the caller adds file
    and line number to the error's details.
    (spec: journal.line-shape)
    """
    if not isinstance(line, bytes | bytearray):
        raise InvalidArgument(f"a line is read from bytes, got {type(line).__name__}")
    if len(line) <= _SUFFIX_LEN or line[-_SUFFIX_LEN:-10] != _CRC_OPEN or line[-2:] != b'"}':
        raise MalformedLineError("line does not end with a crc member")
    # a bytes slice, not a memoryview: for lines of a few hundred bytes the copy is cheaper
    if b"%08x" % zlib.crc32(line[:-_SUFFIX_LEN]) != line[-10:-2]:
        if not _CRC_DIGITS.fullmatch(line[-10:-2]):  # one spelling: "00ab12cd", not "00AB12CD"
            raise MalformedLineError("crc is not 8 lowercase hexadecimal digits")
        raise ChecksumError("checksum mismatch")
    try:
        text = line.decode("utf-8")
        try:
            obj, end = _raw_decode(text)
        except ValueError:
            obj, end = _loads(text), len(text)  # leading whitespace, or the precise error
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedLineError(f"not valid JSON: {exc}") from None
    if end != len(text) and text[end:].strip():
        raise MalformedLineError("data after the JSON object")
    if type(obj) is not dict:
        raise MalformedLineError("line is not a JSON object")
    if surrogate_escapes and may_escape_surrogate(line) and _has_lone_surrogate(obj):
        raise MalformedLineError("a string holds a lone surrogate")  # spec: journal.json-values
    del obj["crc"]
    return obj


def parse_json(text: str) -> Any:
    """The value of JSON ``text`` if it is made of JSON values as the journal counts them
    (``journal.json-values``); else ``ValueError``: bad syntax, ``NaN``, ``Infinity``, a number
    too large to be finite, or a string holding a lone surrogate. For JSON that arrives from
    outside and will be journaled (a model's tool-call arguments)."""
    value = _loads(text)
    if "\\u" in text and _has_lone_surrogate(value):
        raise ValueError("a string holds a lone surrogate")
    return value


def _has_lone_surrogate(value: Any) -> bool:
    """Whether a decoded value holds a string with an unpaired surrogate (an escape such as
    ``\\ud800`` that UTF-8 cannot carry): not a JSON value here (``journal.json-values``)."""
    try:
        _dumps(value).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
