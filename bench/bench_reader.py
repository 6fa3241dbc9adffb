"""The journal reader's time and memory per byte, on ordinary journals and on hostile lines.

Prints (never asserts), for ``parse_journal`` (and ``parse_log`` on the same events as a store
log): nanoseconds per input byte and the peak memory the parse allocates per input byte
(``tracemalloc``), for an ordinary journal (tiny payloads; 1 KB transcript payloads) and for
hostile inputs at and past the limits of ``spec/journal.md`` (``journal.nesting-limit``,
``journal.duplicate-names``, ``journal.json-values``): lines nesting 128 levels (read), one
line nesting 100,000 (refused before it is decoded), a 1 MB string, repeated names, a
5,000-digit integer. Each hostile line's ratio to the ordinary journal's cost per byte is
printed: a reader whose worst input costs a bounded multiple of its ordinary one per byte
cannot be made to hang or to exhaust memory by a journal of a given size.

Run: ``python bench/bench_reader.py`` (about 10-30 s). ``--repeat N`` changes the rounds.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import zlib
from collections.abc import Callable
from typing import Any

from loom_ref.errors import JournalError
from loom_ref.journal import NESTING_LIMIT, parse_journal, parse_log
from loom_ref.journal.codec import encode_header, encode_line
from loom_ref.journal.logstore import encode_log_header, encode_log_line

KILOBYTE = {"messages": [{"role": "user" if k % 2 else "assistant",
                          "content": f"message {k}: " + "lorem ipsum dolor sit amet " * 4}
                         for k in range(8)]}


def seal(body: str) -> bytes:
    raw = body.encode("utf-8")
    return raw + b',"crc":"%08x"}\n' % zlib.crc32(raw)


def started(input_text: str) -> bytes:
    return seal('{"seq":1,"kind":"EXECUTION_STARTED","payload":{"executionId":"e1",'
                '"workflow":"w","input":' + input_text + "}")


def ordinary(events: int, payload: Any) -> bytes:
    """A journal of one EXECUTION_STARTED and ``events - 1`` step events."""
    lines = [encode_header("e1"), encode_line(1, "EXECUTION_STARTED", {
        "executionId": "e1", "workflow": "w", "input": None})]
    for seq in range(2, events + 1):
        step = f"s#{seq // 2}"
        if seq % 2 == 0:
            lines.append(encode_line(seq, "STEP_STARTED", {
                "stepId": step, "toolId": "t", "input": payload, "idempotencyKey": "e1/" + step}))
        else:
            lines.append(encode_line(seq, "STEP_COMPLETED", {"stepId": step, "output": payload}))
    return b"".join(lines)


def as_log(events: int, payload: Any) -> bytes:
    parts = [encode_log_header(), encode_header("e1"),
             encode_log_line("e1", 1, "EXECUTION_STARTED",
                             {"executionId": "e1", "workflow": "w", "input": None})]
    for seq in range(2, events + 1):
        parts.append(encode_log_line("e1", seq, "STEP_COMPLETED",
                                     {"stepId": f"s#{seq}", "output": payload}))
    return b"".join(parts)


def hostile() -> dict[str, bytes]:
    deep_ok = "[" * (NESTING_LIMIT - 2) + "1" + "]" * (NESTING_LIMIT - 2)
    return {
        f"{NESTING_LIMIT}-level lines (read)": encode_header("e1") + started(deep_ok) + b"".join(
            seal(f'{{"seq":{s},"kind":"STREAM_APPENDED","payload":{{"streamId":"s","data":'
                 f'{deep_ok}}}') for s in range(2, 2001)),
        "one line nesting 100,000 (refused)": encode_header("e1") + started(
            "[" * 100_000 + "1" + "]" * 100_000),
        "a 1 MB string (read)": encode_header("e1") + started('"' + "x" * 1_000_000 + '"'),
        "4,000 repeated names (refused)": encode_header("e1") + started(
            "{" + ",".join(['"a":1'] * 4000) + "}"),
        "a 5,000-digit integer (refused)": encode_header("e1") + started("9" * 5000),
        "100,000 empty arrays (read)": encode_header("e1") + started(
            "[" + ",".join(["[]"] * 100_000) + "]"),
    }


def measure(parse: Callable[[bytes], Any], data: bytes, repeat: int) -> tuple[float, float]:
    """(nanoseconds per byte, best of ``repeat``; peak bytes allocated per input byte)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        try:
            parse(data)
        except JournalError:
            pass
        best = min(best, time.perf_counter() - t0)
    tracemalloc.start()
    try:
        parse(data)
    except JournalError:
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return best * 1e9 / len(data), peak / len(data)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--events", type=int, default=20_000)
    args = ap.parse_args()
    print("journal reader, parse only (fsync: none, no journal written; best of "
          f"{args.repeat} rounds; memory: tracemalloc peak of one parse)")
    base = {}
    for label, payload in (("tiny payloads", 1), ("1 KB payloads", KILOBYTE)):
        data = ordinary(args.events, payload)
        ns, mem = measure(parse_journal, data, args.repeat)
        base[label] = ns
        print(f"  ordinary journal, {args.events:,} events, {label}: {len(data):>10,} bytes  "
              f"{ns:7.1f} ns/byte  {mem:5.2f} bytes allocated/byte")
        log = as_log(args.events, payload)
        ns_log, mem_log = measure(parse_log, log, args.repeat)
        print(f"  the same as a store log (parse_log):        {len(log):>10,} bytes  "
              f"{ns_log:7.1f} ns/byte  {mem_log:5.2f} bytes allocated/byte")
    worst = max(base.values())
    for label, data in hostile().items():
        ns, mem = measure(parse_journal, data, args.repeat)
        print(f"  hostile: {label:<38} {len(data):>10,} bytes  {ns:7.1f} ns/byte  "
              f"{mem:5.2f} bytes allocated/byte  ({ns / worst:4.2f}x the ordinary worst per "
              f"byte)")


if __name__ == "__main__":
    main()
