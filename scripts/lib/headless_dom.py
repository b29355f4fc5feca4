"""The DOMs headless Chromium builds from local pages, all from one browser process.

Starting Chromium is most of the time a page check takes (seconds each), so the checks of the HTML
reports (scripts/check-coverage-html, scripts/check-progress-html) start it once and ask it for every
page over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ending in NUL,
commands on the browser's fd 3, answers on its fd 4): a new target per page, its serialized DOM once
its load event has fired.

    doms = render(browser, ["/abs/index.html", ...], work_dir)   # {path: outerHTML}

Raises BrowserError (the checks exit 4: environment) when the browser cannot start or answer.
"""
import json
import os
import subprocess

TIMEOUT_S = 120


class BrowserError(Exception):
    pass


class _Pipe:
    def __init__(self, browser, work):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The child's fd 3 reads our commands, its fd 4 writes its answers (copied high first, so that
        # neither end is overwritten by the other's dup2; fds 3 and 4 are kept open past close_fds).
        def wire():
            read_end, write_end = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
               "--disable-extensions", "--remote-debugging-pipe", "--user-data-dir=" + os.path.join(work, "profile"),
               "about:blank"]
        try:
            self._proc = subprocess.Popen(cmd, preexec_fn=wire, pass_fds=(3, 4),
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        except OSError as e:
            raise BrowserError("cannot start %s: %s" % (browser, e))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self._events = []  # what arrived while waiting for an answer

    def call(self, method, params=None, session=None):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError("%s: %s" % (method, answer["error"].get("message")))
                return answer.get("result", {})
            if "method" in answer:
                self._events.append(answer)

    def wait_event(self, method, session):
        while True:
            for i, e in enumerate(self._events):
                if e["method"] == method and e.get("sessionId") == session:
                    return self._events.pop(i)
            message = self._read()
            if "method" in message:
                self._events.append(message)

    def _read(self):
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                err = self._proc.stderr.read().decode(errors="replace")[-2000:] if self._proc.stderr else ""
                raise BrowserError("the browser closed its pipe (exit %s):\n%s" % (self._proc.poll(), err))
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def close(self):
        try:
            self.call("Browser.close")
        except BrowserError:
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


def render(browser, paths, work):
    """{path: the DOM Chromium built from file://path} for every path, in one browser process."""
    pipe = _Pipe(browser, work)
    try:
        doms = {}
        for path in paths:
            target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            pipe.call("Page.enable", {}, session)
            nav = pipe.call("Page.navigate", {"url": "file://" + path}, session)
            if nav.get("errorText"):
                raise BrowserError("%s: %s" % (path, nav["errorText"]))
            pipe.wait_event("Page.loadEventFired", session)
            result = pipe.call("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                                     "returnByValue": True}, session)
            value = result.get("result", {}).get("value")
            if not isinstance(value, str) or "<html" not in value:
                raise BrowserError("no DOM for %s: %s" % (path, result))
            doms[path] = value
            pipe.call("Target.closeTarget", {"targetId": target})
        return doms
    finally:
        pipe.close()
