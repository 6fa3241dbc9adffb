"""A headless Chromium for tests, driven over the Chrome DevTools Protocol, stdlib only.

Chromium is started with ``--remote-debugging-pipe``: it reads protocol messages on its file
descriptor 3 and writes them on 4, each one JSON object followed by a NUL byte, so no
websocket library is needed. One :class:`Browser` serves a whole test module (start it in a
module-scoped fixture); :meth:`Browser.open` gives a fresh page (tab) for one test.

- ``find_chromium()`` is Debian's ``/usr/bin/chromium`` (or ``$LOOM_REF_CHROMIUM``), or None.
- ``require_browser()`` returns its path, or skips the test with the reason; with
  ``LOOM_REF_REQUIRE_BROWSER=1`` (set by ``.ci/run``) a missing browser FAILS instead, so CI
  can never go green without having looked at the pages.
- ``artifacts_dir()`` is where screenshots go: ``$LOOM_REF_ARTIFACTS`` (``.ci/run`` sets it),
  else ``ci-artifacts/`` in the checkout (gitignored).

Example::

    with Browser() as browser:
        page = browser.open(Path("page.html").resolve().as_uri())
        assert page.evaluate("document.title") == "..."
        page.click("[data-seq='3']")
        page.screenshot(artifacts_dir() / "page.png")
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

__all__ = ["Browser", "BrowserError", "Page", "artifacts_dir", "find_chromium",
           "require_browser"]

ROOT = Path(__file__).resolve().parents[1]

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
    "--remote-debugging-pipe",
)


class BrowserError(Exception):
    """The browser answered a command with an error, died, or did not answer in time."""


def find_chromium() -> str | None:
    """The Chromium executable to use, or None when there is none."""
    configured = os.environ.get("LOOM_REF_CHROMIUM")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def require_browser() -> str:
    """The Chromium path; skip (or, under ``LOOM_REF_REQUIRE_BROWSER=1``, fail) without one."""
    path = find_chromium()
    if path is not None:
        return path
    reason = ("no Chromium found (/usr/bin/chromium or $LOOM_REF_CHROMIUM): the browser tests "
              "need it; on Debian: apt-get install -y chromium")
    if os.environ.get("LOOM_REF_REQUIRE_BROWSER") == "1":
        pytest.fail(reason + " (LOOM_REF_REQUIRE_BROWSER=1)", pytrace=False)
    pytest.skip(reason)


def artifacts_dir(*parts: str) -> Path:
    """A folder under the CI run's artifacts (created), for screenshots and pages."""
    base = Path(os.environ.get("LOOM_REF_ARTIFACTS") or ROOT / "ci-artifacts")
    path = base.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


class Browser:
    """One headless Chromium process, spoken to over the DevTools pipe."""

    def __init__(self, executable: str | None = None, *, timeout: float = 20.0,
                 width: int = 1400, height: int = 900) -> None:
        exe = executable or find_chromium()
        if exe is None:
            raise BrowserError("no Chromium executable found")
        self.timeout = timeout
        self.width, self.height = width, height
        self.profile = tempfile.mkdtemp(prefix="loom-chromium-")
        to_child_r, self._to_child = os.pipe()   # the child reads commands on fd 3
        self._from_child, from_child_w = os.pipe()  # the child writes answers on fd 4

        def wire() -> None:  # in the child, before exec: put the two ends on fds 3 and 4
            high_r = os.dup(to_child_r) if to_child_r in (3, 4) else to_child_r
            high_w = os.dup(from_child_w) if from_child_w in (3, 4) else from_child_w
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self._log = open(os.path.join(self.profile, "chromium.log"), "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
            pass_fds=(3, 4), preexec_fn=wire,  # the tests are single-threaded
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        try:
            self.send("Browser.getVersion")  # fails fast when the browser cannot start
        except BaseException:
            self.close()
            raise

    # -- the wire ----------------------------------------------------------------------
    def _write(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode() + b"\0"
        while data:
            try:
                n = os.write(self._to_child, data)
            except BrokenPipeError:
                raise BrowserError(f"chromium exited ({self.proc.poll()}): {self.log()}"
                                   ) from None
            data = data[n:]

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"no answer from chromium in {self.timeout} s")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise BrowserError(f"chromium closed the pipe ({self.proc.poll()}): "
                                   f"{self.log()}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def send(self, method: str, params: dict[str, Any] | None = None, *,
             session: str | None = None) -> dict[str, Any]:
        """Send one command and return its result; events that arrive meanwhile are kept."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method,
                                   "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self._write(message)
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self._events.append(answer)

    def wait_event(self, method: str, *, session: str | None = None) -> dict[str, Any]:
        """The params of the first event ``method`` (of ``session``) not seen yet."""
        deadline = time.monotonic() + self.timeout
        while True:
            for i, event in enumerate(self._events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self._events[i]
                    params: dict[str, Any] = event.get("params", {})
                    return params
            self._events.append(self._read(deadline))

    def log(self) -> str:
        """The tail of chromium's own output (for error messages)."""
        self._log.flush()
        with open(self._log.name, "rb") as f:
            return f.read()[-2000:].decode(errors="replace")

    # -- pages -------------------------------------------------------------------------
    def open(self, url: str) -> Page:
        """A new tab showing ``url``, loaded (the load event fired)."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        page.send("Page.enable")
        page.send("Runtime.enable")
        page.send("Network.enable")
        page.send("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1,
                   "mobile": False})
        page.navigate(url)
        return page

    def close(self) -> None:
        """Quit the browser and remove its profile."""
        if self.proc.poll() is None:
            try:
                self._write({"id": 0, "method": "Browser.close", "params": {}})
                self.proc.wait(timeout=10)
            except (BrowserError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Page:
    """One tab: navigate, evaluate JavaScript, click, screenshot."""

    def __init__(self, browser: Browser, target: str, session: str) -> None:
        self.browser = browser
        self.target = target
        self.session = session
        self.console: list[str] = []

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session)

    def navigate(self, url: str) -> None:
        answer = self.send("Page.navigate", {"url": url})
        if answer.get("errorText"):
            raise BrowserError(f"cannot open {url}: {answer['errorText']}")
        self.browser.wait_event("Page.loadEventFired", session=self.session)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (JSON-serialisable), or BrowserError with
        the exception it threw."""
        answer = self.send("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"{expression!r} threw: {text}")
        return answer["result"].get("value")

    def click(self, selector: str) -> None:
        """Click the first element matching ``selector`` as a user would (a mouse event at
        its centre), so that what covers it gets the click instead, as in a real browser."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return null; e.scrollIntoView({block: 'center', inline: 'nearest'});"
            " const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        if box is None:
            raise BrowserError(f"nothing matches {selector!r}")
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y,
                                                   "button": "left", "clickCount": 1})

    def screenshot(self, path: Path, *, selector: str | None = None,
                   viewport: bool = False) -> Path:
        """Write a PNG of the whole page, of the element matching ``selector``, or of what is
        on screen now (``viewport``: a long page's whole height takes long to draw), to
        ``path``."""
        if viewport:
            data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(base64.b64decode(data))
            return path
        if selector is None:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"]}
        else:
            clip = self.evaluate(
                f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                " if (!e) return null; const r = e.getBoundingClientRect();"
                " return {x: r.left + window.scrollX, y: r.top + window.scrollY,"
                " width: r.width, height: r.height}; })()")
            if clip is None:
                raise BrowserError(f"nothing matches {selector!r}")
        data = self.send("Page.captureScreenshot", {"format": "png",
                                                    "captureBeyondViewport": True,
                                                    "clip": {**clip, "scale": 1}})["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def _seen(self, method: str) -> list[dict[str, Any]]:
        return [e.get("params", {}) for e in self.browser._events
                if e.get("method") == method and e.get("sessionId") == self.session]

    def exceptions(self) -> list[str]:
        """The uncaught JavaScript exceptions of the page so far."""
        return [str(e.get("exceptionDetails", {}).get("exception", {}).get("description")
                    or e.get("exceptionDetails", {}).get("text"))
                for e in self._seen("Runtime.exceptionThrown")]

    def requests(self) -> list[str]:
        """The URLs the page asked for so far (the page itself included)."""
        return [str(e.get("request", {}).get("url"))
                for e in self._seen("Network.requestWillBeSent")]

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})
