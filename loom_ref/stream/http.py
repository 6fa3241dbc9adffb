"""The HTTP edge the real adapters share (stdlib ``http.client`` only): an endpoint taken from
an injected base URL, one streaming ``POST``, and the body read back under a signal.

Rules (``spec/stream.md`` § The OpenAI-compatible adapter, § The Anthropic Messages adapter):

- Configuration is injected: an http(s) base URL and a positive timeout of at most
  :data:`MAX_TIMEOUT` seconds; anything else is ``argument.invalid``.
- A request that cannot be made, or a read that breaks, raises ``stream.provider.transport``;
  a status other than 200 raises ``stream.provider.http-status`` with ``details["status"]``
  (the first sanctioned error path, spec: stream.adapter.two-error-paths).
- The signal is checked before the request and before every read; a read blocked on the
  socket is bounded by the timeout. An aborted signal raises ``stream.aborted``.
"""

from __future__ import annotations

import http.client
import json
import urllib.parse
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

import attrs

from loom_ref.errors import InvalidArgument
from loom_ref.stream.errors import ProviderError, StreamAborted

if TYPE_CHECKING:
    from loom_ref.signals import Signal

__all__ = ["HTTP_STATUS", "MAX_TIMEOUT", "TRANSPORT", "Endpoint", "env_value", "json_body",
           "read_lines", "read_pieces", "streaming_post"]

HTTP_STATUS = "stream.provider.http-status"
"""Error code: the endpoint answered with a status other than 200."""

TRANSPORT = "stream.provider.transport"
"""Error code: the connection failed or broke."""

#: The longest ``timeout`` accepted, in seconds (about 31 years): every platform's socket
#: timeout holds it (a larger one overflows when the connection is made).
MAX_TIMEOUT = 1e9


@attrs.frozen
class Endpoint:
    """Where an adapter posts: ``scheme://host[:port]`` and a base path, with its timeout."""

    scheme: str
    host: str
    port: int | None
    base_path: str
    timeout: float

    @classmethod
    def parse(cls, base_url: object, timeout: object) -> Endpoint:
        """An endpoint from an injected base URL (spec: errors.invalid-argument)."""
        if not isinstance(base_url, str):
            raise InvalidArgument(f"base_url must be a str, got {type(base_url).__name__}")
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InvalidArgument(f"base_url must be an http(s) URL, got {base_url!r}")
        if (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                or not 0 < timeout <= MAX_TIMEOUT):  # NaN fails the comparison too
            raise InvalidArgument(f"timeout must be a positive number of seconds, at most "
                                  f"{MAX_TIMEOUT:g}, got {timeout!r}")
        return cls(parts.scheme, parts.hostname, parts.port, parts.path.rstrip("/"),
                   float(timeout))

    def url(self, path: str) -> str:
        port = f":{self.port}" if self.port else ""
        return f"{self.scheme}://{self.host}{port}{self.base_path}{path}"

    def connect(self) -> http.client.HTTPConnection:
        if self.scheme == "https":
            return http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout)
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)


def env_value(environ: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    """The first of ``names`` set (non-empty) in ``environ``: what an adapter's explicit
    ``from_env`` factory reads, and the only place that reads an environment."""
    if not isinstance(environ, Mapping):
        raise InvalidArgument(f"environ must be a mapping, got {type(environ).__name__}")
    return next((environ[k] for k in names if environ.get(k)), None)


def json_body(value: object) -> bytes:
    """A request body as UTF-8 JSON; a value that is not JSON (a tool's parameters holding
    one) is ``argument.invalid``, refused before anything is sent."""
    try:
        return json.dumps(value).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"the request is not made of JSON values: {exc}") from None


def _check(signal: Signal) -> None:
    if signal.aborted:
        raise StreamAborted(f"aborted: {signal.reason}", reason=signal.reason)


@contextmanager
def streaming_post(endpoint: Endpoint, path: str, body: bytes, headers: Mapping[str, str],
                   signal: Signal) -> Iterator[http.client.HTTPResponse]:
    """``POST base_path + path`` and yield the 200 response; the connection is closed after."""
    _check(signal)
    connection = endpoint.connect()
    try:
        try:
            connection.request("POST", endpoint.base_path + path, body=body,
                               headers=dict(headers))
            response = connection.getresponse()
        except (OSError, http.client.HTTPException) as error:
            raise ProviderError(f"request to {endpoint.url(path)} failed: {error}",
                                code=TRANSPORT) from error
        if response.status != 200:
            detail = response.read(2048).decode("utf-8", "replace")
            raise ProviderError(f"{endpoint.url(path)} answered {response.status}: {detail}",
                                code=HTTP_STATUS, status=response.status)
        yield response
    finally:
        connection.close()


def read_pieces(response: http.client.HTTPResponse, signal: Signal, size: int = 8192
                ) -> Iterator[bytes]:
    """The body as it arrives, in pieces of at most ``size`` bytes cut anywhere."""
    while True:
        _check(signal)
        try:
            piece = response.read1(size)
        except (OSError, http.client.HTTPException) as error:
            raise ProviderError(f"reading the stream failed: {error}", code=TRANSPORT) from error
        if not piece:
            return  # the connection closed
        yield piece


def read_lines(response: http.client.HTTPResponse, signal: Signal) -> Iterator[str]:
    """The body line by line (a line ends at LF, so no UTF-8 sequence is cut)."""
    while True:
        _check(signal)
        try:
            raw = response.readline()
        except (OSError, http.client.HTTPException) as error:
            raise ProviderError(f"reading the stream failed: {error}", code=TRANSPORT) from error
        if not raw:
            return
        yield raw.decode("utf-8", "replace")
