"""What only a Python caller of the stream API can see (issue 30, sample 456059): each test
here covers a line declared Python-only in ``tools/coverage/python-only.toml`` and fails when
that line is changed.
"""

from __future__ import annotations

import pytest

from loom_ref.stream.sse import SseDecoder
from loom_ref.stream.wire import WireError, chunk_from_json


def test_a_decoder_fed_after_close_starts_without_the_dropped_partial_line() -> None:
    # close() drops the text after the last line end (stream.anthropic.sse); every protocol
    # path closes a decoder once, at the body's end, so only a Python caller feeding it again
    # could see that partial line come back
    decoder = SseDecoder()
    assert [e.data for e in decoder.feed("data: a\n\ndata: par")] == ["a"]
    assert decoder.close() is None
    assert decoder.feed("tial\n\n") == []  # "tial" alone: an unknown field, no data


def test_a_wire_error_names_a_string_and_a_boolean_it_got() -> None:
    # the message names what the JSON held; the protocol compares the code alone
    # (stream.wire.field-type, INTERPRETING.md section 15)
    with pytest.raises(WireError) as info:
        chunk_from_json({"type": "text-delta", "index": "0", "text": "x"})
    assert info.value.code == "stream.wire.field-type"
    assert info.value.message.endswith("expected a number, got string")
    with pytest.raises(WireError) as info:
        chunk_from_json({"type": "text-delta", "index": False, "text": "x"})
    assert info.value.message.endswith("expected a number, got boolean")
