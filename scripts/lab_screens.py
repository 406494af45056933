"""Look at a lab as a learner does: JupyterLab in headless Chromium, screenshots at each step.

    .venv/bin/python scripts/lab_screens.py --root workspace --lab 02-rendezvous-hashing.ipynb --out /tmp/screens

Starts JupyterLab on 127.0.0.1 (a free port, a random token) on ROOT, opens the lab, and saves
PNGs: 1-opened.png (the first screen), 2-run-all.png (after Restart Kernel and Run All Cells and the
kernel going idle), 3-collapsed.png and 4-revealed.png (the first
Why after the run, closed, then clicked open). Everything it starts
is stopped at the end. Uses Chromium's DevTools protocol over a websocket (websocket-client,
which JupyterLab's server already depends on); no browser automation package is needed.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import websocket

REPO = Path(__file__).resolve().parent.parent


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
            time.sleep(0.5)
    raise SystemExit(f"timed out waiting for {url}")


class Page:
    def __init__(self, ws_url: str):
        self.ws = websocket.create_connection(ws_url, timeout=120)
        self.n = 0

    def call(self, method: str, **params):
        self.n += 1
        self.ws.send(json.dumps({"id": self.n, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.n:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def js(self, expr: str):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        return r.get("result", {}).get("value")

    def wait_for(self, expr: str, timeout: float, what: str):
        end = time.time() + timeout
        while time.time() < end:
            if self.js(expr):
                return
            time.sleep(0.5)
        raise SystemExit(f"timed out waiting for {what}")

    def click(self, selector: str) -> bool:
        """A real mouse click (pressed, released) at the middle of the first match: JupyterLab's
        toolbar buttons act on mousedown, which a scripted element.click() does not send."""
        box = self.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                      " if (!e) return null; e.scrollIntoView({block: 'center'});"
                      " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        if not box:
            return False
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)
        return True

    def shot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        print("wrote", path)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=REPO / "workspace")
    ap.add_argument("--lab", required=True)
    ap.add_argument("--out", type=Path, default=Path("/tmp/lab-screens"))
    ap.add_argument("--run-all", action="store_true", help="also Run All and reveal an answer")
    ap.add_argument("--wait", type=float, default=300, help="seconds to wait for Run All")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not chromium:
        raise SystemExit("no Chromium found (Debian: apt install chromium)")
    port, token, cdp = free_port(), secrets.token_hex(16), free_port()
    jl = subprocess.Popen(
        [str(REPO / ".venv" / "bin" / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1",
         f"--port={port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={a.root.resolve()}",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    profile = tempfile.mkdtemp(prefix="lab-screens-chromium-")
    browser = None
    try:
        wait_http(f"http://127.0.0.1:{port}/api/status?token={token}", 60)
        browser = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", f"--remote-debugging-port={cdp}", "--window-size=1400,1000",
             "about:blank"],
            env={**os.environ, "TMPDIR": profile},  # its org.chromium.Chromium.* goes with the profile
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        wait_http(f"http://127.0.0.1:{cdp}/json/version", 30)
        targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{cdp}/json").read())
        page = Page(next(t for t in targets if t["type"] == "page")["webSocketDebuggerUrl"])
        page.call("Page.enable")
        page.call("Emulation.setDeviceMetricsOverride", width=1400, height=1000, deviceScaleFactor=1, mobile=False)
        page.call("Page.navigate", url=f"http://127.0.0.1:{port}/lab/tree/{a.lab}?token={token}")
        page.wait_for("document.querySelectorAll('.jp-Notebook .jp-Cell').length > 3", 90, "the notebook")
        page.wait_for("[...document.querySelectorAll('.jp-Notebook-ExecutionIndicator, .jp-Toolbar')]"
                      ".length > 0", 30, "the toolbar")
        time.sleep(4)
        page.shot(a.out / "1-opened.png")

        if not a.run_all:
            return 0
        # The toolbar's "Restart the kernel and run all cells" (⏩), then the dialog's accept button.
        if not page.click('[data-command="notebook:restart-run-all"]'):
            raise SystemExit("could not find the toolbar's restart-and-run-all button")
        page.wait_for("!!document.querySelector('.jp-Dialog-button.jp-mod-accept')", 20, "the restart dialog")
        page.click(".jp-Dialog-button.jp-mod-accept")
        time.sleep(5)
        idle = ("(() => { const p = [...document.querySelectorAll('.jp-InputArea-prompt')]"
                ".map(e => e.textContent); return p.length > 0 && !p.some(t => t.includes('*')); })()")
        page.wait_for(idle, a.wait, "Run All to finish")
        time.sleep(2)
        page.shot(a.out / "2-run-all.png")
        # The first Why: after a run, a closed disclosure (scripts/editions.py); a click opens it.
        why = ".jp-MarkdownCell details:not([open]) summary"
        # JupyterLab renders only the cells near the view: scroll down until one is in the page.
        page.js("(() => { const o = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');"
                " if (o) o.scrollTop = 0; })()")
        for _ in range(60):
            if page.js(f"(() => {{ const e = document.querySelector({json.dumps(why)});"
                       " if (!e) return false; e.scrollIntoView({block: 'center'}); return true; })()"):
                break
            page.js("(() => { const o = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');"
                    " if (o) o.scrollTop += 700; })()")
            time.sleep(0.4)
        else:
            raise SystemExit("no collapsed Why found to reveal")
        time.sleep(1)
        page.shot(a.out / "3-collapsed.png")
        page.click(why)
        time.sleep(2)
        page.shot(a.out / "4-revealed.png")
        return 0
    finally:
        for p in (browser, jl):
            if p is not None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                    p.wait(timeout=20)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    os.killpg(p.pid, signal.SIGKILL)
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
