"""Explorables in the editions: live in the HTML, the static picture on paper.

An explorable (reshard::present::Explorable) is one output with three parts: a Vega-Lite v5 spec
(`application/vnd.vegalite.v5+json`), the plotters SVG of its default view (`image/svg+xml`) and a
text line; JupyterLab adds an `image/png` of the chart when it draws one and saves it beside the
spec. nbconvert has no Vega renderer: left alone, it shows the SVG. So:

    live_outputs(nb)      for an HTML page: each explorable becomes one text/html output holding
                          the static picture, an empty box for the live chart and the spec as
                          JSON; add_scripts(html) then inlines Vega, Vega-Lite and vega-embed
                          (from node_modules, `npm ci` of the pinned package-lock.json: the
                          versions JupyterLab ships) and a few lines that draw each chart into its
                          box and hide the picture. No network at page load, no CDN.
                          On paper (@media print, so the PDF printed from the same page) the live
                          chart and its sliders are hidden and the picture is shown.
    static_outputs(nb)    the picture and the text only (the spec and JupyterLab's PNG dropped):
                          for an edition that shows outputs without scripts.

`ensure_installed()` runs `npm ci` when node_modules lacks the three packages (`make handouts`
does it first); without npm a page keeps each explorable's picture and says so on stderr.
Standard library only, besides nbformat nodes passed in.
"""

from __future__ import annotations

import base64
import copy
import csv
import html as html_lib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VEGA_LITE_MIME = "application/vnd.vegalite.v5+json"
VEGA_MIMES = (VEGA_LITE_MIME, "application/vnd.vega.v5+json")
# The three scripts, in load order: vega-embed's UMD build reads the globals `vega` and `vegaLite`.
SCRIPTS = (
    "node_modules/vega/build/vega.min.js",
    "node_modules/vega-lite/build/vega-lite.min.js",
    "node_modules/vega-embed/build/vega-embed.min.js",
)
BOX = "reshard-explorable"

CSS = f"""<style>
.{BOX} {{ margin: 0.3em 0; }}
.{BOX}-ready .{BOX}-static {{ display: none; }}
.{BOX} .vega-bindings {{ margin: 0.4em 0 0.2em; font-size: 13px; }}
.{BOX} .vega-bind-name {{ display: inline-block; min-width: 5em; font-weight: 600; }}
@media print {{
  .{BOX}-live {{ display: none !important; }}
  .{BOX}-static {{ display: block !important; }}
}}
</style>
"""

# Draws every explorable of the page; a chart that fails leaves its static picture.
EMBED = f"""<script>
(function () {{
  document.querySelectorAll(".{BOX}").forEach(function (box) {{
    var spec = JSON.parse(box.querySelector("script.{BOX}-spec").textContent);
    var live = box.querySelector(".{BOX}-live");
    vegaEmbed(live, spec, {{mode: "vega-lite", renderer: "svg", actions: false}})
      .then(function () {{ box.classList.add("{BOX}-ready"); }})
      .catch(function (err) {{ live.textContent = ""; console.error("explorable:", err); }});
  }});
}})();
</script>
"""


def is_explorable(output) -> bool:
    """A display output carrying a Vega(-Lite) spec."""
    return any(m in output.get("data", {}) for m in VEGA_MIMES)


def has_explorables(nb) -> bool:
    return any(is_explorable(o) for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))


def _text(v) -> str:
    return "".join(v) if isinstance(v, list) else str(v)


def _spec(output) -> dict:
    data = output["data"]
    mime = next(m for m in VEGA_MIMES if m in data)
    spec = data[mime]
    return json.loads(_text(spec)) if not isinstance(spec, dict) else spec


def _picture(output, alt: str) -> str:
    data = output["data"]
    if "image/svg+xml" in data:
        b64 = base64.b64encode(_text(data["image/svg+xml"]).encode()).decode()
        return f'<img class="{BOX}-static" src="data:image/svg+xml;base64,{b64}" alt="{html_lib.escape(alt)}">'
    if "image/png" in data:
        b64 = _text(data["image/png"]).replace("\n", "")
        return f'<img class="{BOX}-static" src="data:image/png;base64,{b64}" alt="{html_lib.escape(alt)}">'
    return f'<pre class="{BOX}-static">{html_lib.escape(_text(data.get("text/plain", "")))}</pre>'


def rows(spec: dict) -> list[dict]:
    """The data rows of a Vega-Lite spec: inline objects, or the CSV text an explorable writes
    (`format.parse` fields as numbers)."""
    data = spec.get("data", {})
    values = data.get("values", [])
    if not isinstance(values, str):
        return list(values)
    fmt = data.get("format", {})
    if fmt.get("type") != "csv":
        raise ValueError(f"inline data of type {fmt.get('type')!r}: only csv is read here")
    numbers = {k for k, t in (fmt.get("parse") or {}).items() if t == "number"}
    return [{k: (float(v) if k in numbers else v) for k, v in r.items()}
            for r in csv.DictReader(io.StringIO(values))]


def live_outputs(nb):
    """A copy whose explorables are text/html boxes: the static picture, a box for the live chart
    and the spec (JSON in a <script type="application/json">, `</` escaped)."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            if not is_explorable(out):
                continue
            spec = _spec(out)
            alt = _text(out["data"].get("text/plain", "")) or str(spec.get("description", "chart"))
            payload = json.dumps(spec, separators=(",", ":")).replace("</", "<\\/").replace("<!--", "<\\!--")
            box = (f'<div class="{BOX}"><div class="{BOX}-live"></div>{_picture(out, alt)}'
                   f'<script type="application/json" class="{BOX}-spec">{payload}</script></div>')
            out["data"] = {"text/html": box, "text/plain": out["data"].get("text/plain", "")}
    return nb


def static_outputs(nb):
    """A copy whose explorables show only their default view: the SVG (or JupyterLab's PNG when
    there is no SVG) and the text line."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if is_explorable(out):
                data = out["data"]
                keep = ("image/svg+xml", "text/plain") if "image/svg+xml" in data else ("image/png", "text/plain")
                out["data"] = {m: data[m] for m in keep if m in data}
    return nb


def installed(repo: Path = REPO) -> bool:
    return all((repo / s).is_file() for s in SCRIPTS)


def ensure_installed(repo: Path = REPO) -> bool:
    """`npm ci` (the pinned package-lock.json) when a script is missing. False when npm is not
    there (nothing else is fetched)."""
    if installed(repo):
        return True
    npm = shutil.which("npm")
    if not npm:
        return False
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=repo, check=True)
    if not installed(repo):
        raise SystemExit(f"npm ci did not install {', '.join(SCRIPTS)}")
    return True


def _inline_js(path: Path) -> str:
    # A script's text ends at the first "</script": write it as "<\/script" (same string in JS).
    js = path.read_text(encoding="utf-8").replace("</script", "<\\/script").replace("</SCRIPT", "<\\/SCRIPT")
    return f"<script>\n{js}\n</script>\n"


def add_scripts(page: str, repo: Path = REPO) -> str:
    """`page` with Vega, Vega-Lite and vega-embed inlined before </body> when it shows an
    explorable (unchanged otherwise). An AMD `define` on the page is hidden while they load, so
    the bundles set their globals."""
    if f'class="{BOX}"' not in page:
        return page
    if not ensure_installed(repo):
        # The boxes show their picture until a script draws the chart: the page still reads.
        print("npm not found: explorables are shown as their picture, without a slider "
              "(install Node.js and npm, e.g. Debian: apt install npm, and run `make handouts` again)",
              file=sys.stderr)
        return page
    scripts = ("<script>window.__reshardDefine = window.define; window.define = undefined;</script>\n"
               + "".join(_inline_js(repo / s) for s in SCRIPTS)
               + "<script>window.define = window.__reshardDefine;</script>\n" + EMBED)
    page = page.replace("</head>", CSS + "</head>", 1)
    at = page.rfind("</body>")
    return page[:at] + scripts + page[at:] if at >= 0 else page + scripts
