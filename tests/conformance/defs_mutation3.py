"""Definitions of the journal.* cases that close the survivors of a fresh mutation sample
(issue 30, seed 803808): the boundary of the crc suffix's length, a line that is the 18-byte
suffix alone, on both sides of its CRC (``journal.checksum``)."""

from __future__ import annotations

from typing import Any

from .defs_journal import START, corrupt, ev, header
from .gen_cases import vector

P = "journal.parse"

DEFINITIONS: list[dict[str, Any]] = [
    vector("journal.format/suffix-alone-bad-checksum", "journal.checksum",
           "A line that is the 18-byte crc suffix alone is spelled right, so its CRC over no "
           "bytes (00000000) is checked next: other digits are journal.bad-checksum, not a "
           "malformed line.",
           function=P, input={"text": header() + ',"crc":"12345678"}\n' + ev(2, *START)},
           claim=corrupt(2, "journal.bad-checksum")),
    vector("journal.format/suffix-alone-zero-crc", "journal.checksum",
           "A line that is the 18-byte crc suffix alone whose digits are 00000000 (the CRC of "
           "no bytes) passes the checksum and is then not a JSON object: journal.malformed-line.",
           function=P, input={"text": header() + ',"crc":"00000000"}\n' + ev(2, *START)},
           claim=corrupt(2, "journal.malformed-line")),
]
