"""A headless Chromium and a JupyterLab for tests that look at what a learner sees.

    with jupyterlab(root) as lab, chromium() as page:
        page.go(lab.url("lab/tree/x.ipynb"))
        page.drag(x0, y, x1, y)          # real mouse events, as a hand on a slider
        page.shot(path)

Chromium is driven through its DevTools protocol over a websocket (websocket-client, which
JupyterLab's server already depends on), as scripts/lab_screens.py does: no browser automation
package, nothing downloaded. JupyterLab is `make lab`'s (the venv's `jupyter lab`, 127.0.0.1, a
random token, --allow-root as root) on a free port. Both are stopped, with their directories, when
the `with` ends.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import websocket

REPO = Path(__file__).resolve().parents[2]


def find_chromium() -> str | None:
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float) -> None:
    end = time.time() + timeout
    while time.time() < end:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"timed out waiting for {url}")


def stop(proc: subprocess.Popen | None) -> None:
    """SIGTERM the process group we started, SIGKILL if it lingers."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass


class Page:
    """One Chromium tab over the DevTools protocol."""

    def __init__(self, ws_url: str):
        self.ws = websocket.create_connection(ws_url, timeout=120)
        self.n = 0
        self.events: list[dict] = []  # every event received (Network.requestWillBeSent, …)

    def call(self, method: str, **params):
        self.n += 1
        mine = self.n
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mine:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if msg.get("method") == "Page.javascriptDialogOpening":
                # "Leave this page?" (JupyterLab with an unsaved notebook): leave, so the next
                # navigation is not held up. Its reply is read and dropped in this loop.
                self.n += 1
                self.ws.send(json.dumps({"id": self.n, "method": "Page.handleJavaScriptDialog",
                                         "params": {"accept": True}}))
            if "method" in msg:
                self.events.append(msg)

    def js(self, expr: str):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"page script failed: {r['exceptionDetails'].get('exception', {}).get('description')}")
        return r.get("result", {}).get("value")

    def wait_for(self, expr: str, timeout: float, what: str):
        end = time.time() + timeout
        while time.time() < end:
            v = self.js(expr)
            if v:
                return v
            time.sleep(0.25)
        raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")

    def go(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def mouse(self, kind: str, x: float, y: float, buttons: int = 1) -> None:
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", buttons=buttons, clickCount=1)

    def click_at(self, x: float, y: float) -> None:
        self.mouse("mouseMoved", x, y, 0)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y, 0)

    def click(self, selector: str) -> bool:
        """A real click at the middle of the first match (JupyterLab's toolbar acts on mousedown,
        which element.click() does not send)."""
        box = self.box(selector)
        if not box:
            return False
        self.click_at(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        return True

    def drag(self, x0: float, y0: float, x1: float, y1: float, steps: int = 12) -> None:
        """Press at (x0, y0), move in `steps` to (x1, y1), release: a hand dragging."""
        self.mouse("mouseMoved", x0, y0, 0)
        self.mouse("mousePressed", x0, y0)
        for i in range(1, steps + 1):
            self.mouse("mouseMoved", x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
            time.sleep(0.02)
        self.mouse("mouseReleased", x1, y1, 0)

    def box(self, selector: str, scroll: bool = True) -> dict | None:
        """The first visible match's box in the viewport (scrolled into view first), or None."""
        into = "e.scrollIntoView({block: 'center', behavior: 'instant'});" if scroll else ""
        return self.js(f"(() => {{ const e = [...document.querySelectorAll({json.dumps(selector)})]"
                       " .find(e => e.getClientRects().length > 0); if (!e) return null;"
                       f" {into} const r = e.getBoundingClientRect();"
                       " return {x: r.x, y: r.y, width: r.width, height: r.height}; })()")

    def shot(self, path: Path, clip: dict | None = None, margin: float = 12) -> Path:
        """A PNG of the view, or of `clip` (a box in the viewport, as box() gives) and a margin."""
        params = {"format": "png"}
        if clip:
            # The protocol's clip is in page coordinates: add the page's scroll.
            sx, sy = self.js("[window.scrollX, window.scrollY]")
            clip = {**clip, "x": clip["x"] + sx, "y": clip["y"] + sy}
            params["clip"] = {"x": max(0, clip["x"] - margin), "y": max(0, clip["y"] - margin),
                              "width": clip["width"] + 2 * margin, "height": clip["height"] + 2 * margin,
                              "scale": 1}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", **params)["data"]))
        return path

    def offline(self) -> None:
        """No network from here on (file:// still loads), and every request recorded."""
        self.call("Network.enable")
        self.call("Network.emulateNetworkConditions", offline=True, latency=0, downloadThroughput=-1,
                  uploadThroughput=-1)

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]


@contextlib.contextmanager
def chromium(width: int = 1300, height: int = 1000):
    exe = find_chromium()
    if not exe:
        raise FileNotFoundError("no Chromium (Debian: apt install chromium; or set CHROMIUM)")
    profile = tempfile.mkdtemp(prefix="reshard-chromium-")
    cdp = free_port()
    proc = subprocess.Popen(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", f"--remote-debugging-port={cdp}", f"--window-size={width},{height}",
         "about:blank"],
        # TMPDIR: Chromium makes a directory there (org.chromium.Chromium.*) that it leaves behind
        # when stopped; inside the profile, it goes with it
        env={**os.environ, "TMPDIR": profile},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_http(f"http://127.0.0.1:{cdp}/json/version", 30)
        targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{cdp}/json").read())
        page = Page(next(t for t in targets if t["type"] == "page")["webSocketDebuggerUrl"])
        page.call("Page.enable")
        page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)
        yield page
    finally:
        stop(proc)
        shutil.rmtree(profile, ignore_errors=True)


class Lab:
    def __init__(self, port: int, token: str):
        self.port, self.token = port, token

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"http://127.0.0.1:{self.port}/{path}{sep}token={self.token}"

    def shut_down_kernels(self) -> None:
        """End every kernel this JupyterLab started (the REST API waits for each to stop), so the
        next notebook's kernel gets the kept build directory again (kernel/launch.py gives a second
        live kernel of the same folder a directory of its own: a 100 MB copy of a kept build)."""
        api = f"http://127.0.0.1:{self.port}/api/sessions"
        headers = {"Authorization": f"token {self.token}"}
        sessions = json.loads(urllib.request.urlopen(urllib.request.Request(api, headers=headers)).read())
        for session in sessions:
            req = urllib.request.Request(f"{api}/{session['id']}", headers=headers, method="DELETE")
            urllib.request.urlopen(req, timeout=60).read()


@contextlib.contextmanager
def jupyterlab(root: Path):
    """`make lab`'s JupyterLab (the venv's, its kernelspec `rust` and settings) on `root`: 127.0.0.1,
    a free port, a random token, --allow-root as root. Trust is kept in memory and the open tabs in
    a temporary workspace (the learner's signature database and layout are not touched), so a
    notebook written by the test opens untrusted."""
    jupyter = REPO / ".venv" / "bin" / "jupyter"
    port, token = free_port(), secrets.token_hex(16)
    workspaces = tempfile.mkdtemp(prefix="reshard-lab-workspaces-")
    log = tempfile.NamedTemporaryFile(prefix="reshard-lab-", suffix=".log", delete=False)
    proc = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={Path(root).resolve()}",
         "--NotebookNotary.db_file=:memory:", f"--LabApp.workspaces_dir={workspaces}",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_http(f"http://127.0.0.1:{port}/api/status?token={token}", 90)
        yield Lab(port, token)
    finally:
        stop(proc)
        log.close()
        os.unlink(log.name)
        shutil.rmtree(workspaces, ignore_errors=True)
