"""A scripted HTTP provider on 127.0.0.1 for the real adapters' wire tests (test code only).

``Loopback(responses, require=...)`` answers request *n* with ``responses[n]`` (the last one
repeats): a status and the body's pieces, each written and flushed on its own, so the client
reads them as they come. A request that lacks one of the ``require``d headers (name -> exact
value) is answered 400 and recorded, which is how a test proves a header on the wire. Nothing
listens beyond the loopback interface.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs


@attrs.frozen
class Response:
    """One scripted answer: the body as pieces of bytes, written one after the other."""

    pieces: Sequence[bytes]
    status: int = 200
    content_type: str = "text/event-stream"
    headers: Mapping[str, str] = attrs.field(factory=dict)  # more response headers


@attrs.frozen
class Received:
    path: str
    headers: Mapping[str, str]
    body: Any


class Loopback:
    """Use as a context manager; ``base_url`` is ``http://127.0.0.1:<port>``."""

    def __init__(self, responses: Sequence[Response], *,
                 require: Mapping[str, str] | None = None) -> None:
        self.requests: list[Received] = []
        required = dict(require or {})
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                outer.requests.append(Received(self.path, headers, json.loads(raw or b"null")))
                missing = [k for k, v in required.items() if headers.get(k.lower()) != v]
                if missing:
                    self.send_response(400)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(json.dumps({"missing": missing}).encode())
                    return
                response = responses[min(len(outer.requests), len(responses)) - 1]
                self.send_response(response.status)
                self.send_header("Content-Type", response.content_type)
                for name, value in response.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    for piece in response.pieces:
                        self.wfile.write(piece)
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client went away on purpose (an abort mid-stream)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Loopback:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


def pieces(body: str | bytes, size: int) -> list[bytes]:
    """``body``'s bytes in pieces of ``size`` (so multi-byte characters are cut)."""
    raw = body.encode("utf-8") if isinstance(body, str) else body
    return [raw[i:i + size] for i in range(0, len(raw), size)]
