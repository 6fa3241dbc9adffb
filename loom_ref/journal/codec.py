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
- ``journal.nesting-limit``: a line nests at most :data:`NESTING_LIMIT` arrays and objects
  (its own object is the first). A reader counts them in the bytes before it decodes a
  line, so Python's recursive decoder never meets a deeper one, and a writer refuses an
  event whose line would be deeper; the number does not move with the caller's stack.
- ``journal.duplicate-names``: no object of a line repeats a member name (I-JSON, RFC 7493
  section 2.3); the reader refuses one, the writer never writes one.
- ``journal.json-values``: an integer too large for a double is refused like ``1e999``.

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
import sys
import zlib
from collections.abc import Callable
from itertools import accumulate, count
from operator import sub
from typing import Any

from loom_ref.errors import InvalidArgument, JournalError
from loom_ref.journal.events import EventKind

__all__ = [
    "NESTING_LIMIT",
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "ChecksumError",
    "MalformedLineError",
    "decode_line",
    "encode_header",
    "encode_line",
    "event_line",
    "from_json_text",
    "from_written_text",
    "is_schema_version",
    "json_string",
    "may_escape_surrogate",
    "nesting_depth",
    "parse_json",
    "seal_line",
    "to_json_text",
]

SCHEMA_NAME = "loom-ref.journal"
SCHEMA_VERSION = 1

#: The most arrays and objects a line may nest, its own object being the first
#: (``journal.nesting-limit``): serde_json's default recursion limit, well inside what every
#: recursive JSON decoder in common use survives on its default stack.
NESTING_LIMIT = 128


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


class _NotJournalJson(ValueError):
    """Text that is JSON but not a JSON value the journal takes (the message says why)."""


def _with_headroom(call: Callable[[Any], Any], arg: Any) -> Any:
    """``call(arg)`` for one of the json module's recursive C functions, given enough stack
    for :data:`NESTING_LIMIT` levels wherever it is called from (``journal.nesting-limit``:
    the limit is a number, not what is left of the caller's stack). A call deeper than that
    still raises RecursionError."""
    try:
        return call(arg)
    except RecursionError:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(old + 8 * NESTING_LIMIT)
        try:
            return call(arg)
        finally:
            sys.setrecursionlimit(old)


def _dumps(value: Any) -> str:
    """``value``'s JSON text as the journal writes it; TypeError or ValueError if it is not
    made of JSON values (a cycle included)."""
    try:
        return _with_headroom(_encode, value)  # type: ignore[no-any-return]
    except RecursionError:
        raise ValueError(f"the value is cyclic, or nests deeper than the journal's limit of "
                         f"{NESTING_LIMIT} arrays and objects") from None


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _NotJournalJson(f"the number {_short(text)} is too large to be finite")
    return value


def _finite_int(text: str) -> int:
    """An integer token, refused when a double cannot hold it finitely (``journal.json-values``,
    as ``1e999`` is): the same numbers every reader that reads numbers as doubles refuses,
    and never Python's own digit limit."""
    if len(text) > 310:  # more digits than DBL_MAX's 309 (and a sign): too large for sure
        raise _NotJournalJson(f"the number {_short(text)} ({len(text.lstrip('-'))} digits) is "
                              f"too large to be finite")
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise _NotJournalJson(f"the number {_short(text)} is too large to be finite") from None
    return value


def _short(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:10]}...{text[-10:]}"


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members, refused when a name repeats (``journal.duplicate-names``)."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        name = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise _NotJournalJson(f"a duplicate member name: an object repeats {json_string(name)} "
                              f"(I-JSON, RFC 7493: the names in an object are unique)")
    return obj


# str in, no encoding sniffing (a journal is UTF-8); spec: journal.json-values -- no NaN or
# infinities, which Python's decoder would otherwise accept
_decoder = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite)
_loads = _decoder.decode
#: The reader's decoder: what ``_decoder`` refuses, and a repeated member name
#: (``journal.duplicate-names``); a repeated name is a malformed line, never a member a
#: reader keeps the first or the last of.
_line_decoder = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite,
                                 object_pairs_hook=_unique)
_line_raw_decode: Callable[[str], tuple[Any, int]] = _line_decoder.raw_decode
#: The same, integers checked too (``journal.json-values``): for a line that may hold one too
#: large for a double.
_strict_decoder = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite,
                                   parse_int=_finite_int, object_pairs_hook=_unique)
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
    return _with_headroom(_raw_decode, text)[0]


def from_written_text(text: str) -> Any:
    """:func:`from_json_text` for a line about to be written: ValueError if two members of
    an object have one name in JSON (``journal.duplicate-names``: keys such as ``1`` and
    ``"1"``, which the encoder spells alike), as a reader would refuse the line."""
    return _with_headroom(_line_raw_decode, text)[0]


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


_BOM = b"\xef\xbb\xbf"
_DIGITS = b"0123456789"
#: 309 digits in a row: the shortest run that may be an integer too large for a double
_LONG_DIGITS = re.compile(rb"[0-9]{309}")
#: a JSON string token, as the decoder pairs its quotes (``journal.nesting-limit``)
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_OPEN_2 = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")


def nesting_depth(text: bytes) -> int:
    """The most arrays and objects open at once in JSON ``text``, counted in its bytes
    (strings left out) without decoding it, so a line of any depth costs no recursion
    (``journal.nesting-limit``). For text that is not JSON the count is of the text as far as
    a decoder would read it before it fails."""
    opens = _STRING.sub(b"", text).translate(_OPEN_2, _NOT_BRACKETS)
    # each byte is now 2 (an open) or 0 (a close): the running sum less the count of bytes
    # read is opens - closes, the depth after each one
    return max(map(sub, accumulate(opens), count(1)), default=0)


def check_line_text(line: bytes) -> None:
    """Raise ValueError if a line's bytes nest deeper than :data:`NESTING_LIMIT` or hold an
    integer too large for a double (``journal.nesting-limit``, ``journal.json-values``):
    what the writer checks before it writes a line, as the reader checks it."""
    if len(line) > NESTING_LIMIT and line.count(b"[") + line.count(b"{") > NESTING_LIMIT:
        depth = nesting_depth(line)
        if depth > NESTING_LIMIT:
            raise _NotJournalJson(f"the line nests {depth} arrays and objects, more than the "
                                  f"journal's limit of {NESTING_LIMIT}")
    if len(line) > 308 and len(line) - len(line.translate(None, _DIGITS)) > 308 and (
            _LONG_DIGITS.search(line)):
        # finds the number, if it is one (the depth is checked: only the caller's stack may
        # be short of room)
        _with_headroom(_strict_decoder.decode, line.decode("utf-8"))


def _suffix_problem(line: bytes) -> str:
    if line.endswith(b'"}\r'):
        return ("the line ends with CR LF; a journal line ends with LF alone (was the file "
                "given Windows line endings?)")
    return "line does not end with a crc member"


def _mismatch(line: bytes) -> str:
    if line.startswith(_BOM):
        if b"%08x" % zlib.crc32(line[3:-_SUFFIX_LEN]) == line[-10:-2]:
            return ("the line starts with a UTF-8 byte order mark (EF BB BF), which a journal "
                    "never holds; without it the checksum matches (was the file saved by an "
                    "editor that adds one?)")
        return "checksum mismatch (and the line starts with a UTF-8 byte order mark)"
    return "checksum mismatch"


def _check_line_bytes(line: object) -> None:
    """InvalidArgument unless ``line`` is bytes (the Python API's check of its argument)."""
    if not isinstance(line, bytes | bytearray):
        raise InvalidArgument(f"a line is read from bytes, got {type(line).__name__}")


def decode_line(line: bytes, *, surrogate_escapes: bool = True) -> dict[str, Any]:
    """Check and parse one line (without its ``\\n``); return the object minus ``crc``.

    ``surrogate_escapes=False`` is the caller's word that the line holds no ``\\ud`` or
    ``\\uD`` escape (see :func:`may_escape_surrogate`), which skips searching the line for
    one. Raises :class:`ChecksumError` or :class:`MalformedLineError`; the caller adds file
    and line number to the error's details.

    The nesting limit, and integers too large for a double, are checked in the bytes first
    (``journal.nesting-limit``, ``journal.json-values``); the decoder refuses a repeated
    member name (``journal.duplicate-names``).
    (spec: journal.line-shape)
    """
    _check_line_bytes(line)
    # the suffix alone (18 bytes) is spelled right: its CRC, over no bytes, is checked next
    if len(line) < _SUFFIX_LEN or line[-_SUFFIX_LEN:-10] != _CRC_OPEN or line[-2:] != b'"}':
        raise MalformedLineError(_suffix_problem(line))
    # a bytes slice, not a memoryview: for lines of a few hundred bytes the copy is cheaper
    if b"%08x" % zlib.crc32(line[:-_SUFFIX_LEN]) != line[-10:-2]:
        if not _CRC_DIGITS.fullmatch(line[-10:-2]):  # one spelling: "00ab12cd", not "00AB12CD"
            raise MalformedLineError("crc is not 8 lowercase hexadecimal digits")
        raise ChecksumError(_mismatch(line))
    try:
        if len(line) > NESTING_LIMIT:  # a shorter line can neither nest nor hold 309 digits
            check_line_text(line)
        text = line.decode("utf-8")
        obj: dict[str, Any]  # JSON text that ends in '}' (the suffix check) is an object
        try:  # within the limit; with headroom if the caller's stack is deep
            obj, end = _with_headroom(_line_raw_decode, text)
        except _NotJournalJson:
            raise
        except ValueError:  # leading whitespace, or the precise error
            obj, end = _with_headroom(_line_decoder.decode, text), len(text)
        if end != len(text) and text[end:].strip():
            raise MalformedLineError("data after the JSON object")
    except _NotJournalJson as exc:
        raise MalformedLineError(str(exc)) from None
    except (ValueError, UnicodeDecodeError) as exc:
        if line.startswith(_BOM):
            raise MalformedLineError("the line starts with a UTF-8 byte order mark (EF BB BF), "
                                     "which a journal never holds") from None
        # (never Python's digit limit: check_line_text refused any integer of 309 digits)
        raise MalformedLineError(f"not valid JSON: {exc}") from None
    if surrogate_escapes and may_escape_surrogate(line) and _has_lone_surrogate(obj):
        raise MalformedLineError("a string holds a lone surrogate")  # spec: journal.json-values
    del obj["crc"]
    return obj


def parse_json(text: str) -> Any:
    """The value of JSON ``text`` if it is made of JSON values as the journal counts them
    (``journal.json-values``); else ``ValueError``: bad syntax, ``NaN``, ``Infinity``, a number
    too large to be finite, or a string holding a lone surrogate. For JSON that arrives from
    outside and will be journaled (a model's tool-call arguments)."""
    data = text.encode("utf-8", "surrogatepass")
    check_line_text(data)  # spec: journal.nesting-limit -- refused before it is decoded
    value = _with_headroom(_loads, text)
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
