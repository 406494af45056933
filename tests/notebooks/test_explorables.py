"""Explorables work as a learner uses them: a hand drags a slider in headless Chromium, the chart
changes, and the values it writes are the crate's for the new setting (issue 28).

Three places, each with before/after screenshots:

  (a) live       `make lab`'s JupyterLab on a cleared copy of the notebook: Restart and Run All,
                 then drag; the run's saved output carries JupyterLab's PNG beside the spec and
                 stays under OUTPUT_CAP bytes;
  (b) untrusted  the executed notebook's explorable cell, with its saved output and the lab's title,
                 opened in JupyterLab without running it and without trust;
  (c) html       the HTML edition (scripts/handouts.py) opened from disk with the network off; the
                 print view shows the static picture instead.

The expected values are the spec's data at the slider's new setting (the grid the crate computed;
tests/suite/explorable.rs recomputes grid points through the public API and compares them with it).

Which explorables: CASES (notebook, cell id[, slider][, live=False to skip (a), which runs the whole
notebook]); more with RESHARD_EXPLORE="path.ipynb#cell-id[#slider]" (space-separated), e.g. a lab's:
    RESHARD_EXPLORE="notebooks/05-weights-and-bounded-loads.ipynb#c17" .venv/bin/python -m pytest \
        tests/notebooks/test_explorables.py
Screenshots go to $EXPLORE_SHOTS (default: pytest's temporary directory), named
<notebook>-<cell>-{a-live,b-untrusted,c-html}-{before,after}.png and ...-c-html-print.png.

The notebook each case reads comes from the fixture `executed` (path → notebook): the committed
one (test_notebooks proves its outputs are what the crate computes today). A session fixture that
executes each lab once can hand its executed copy in instead; (b) and (c) then need no kernel, and
only (a) runs one: on a fixture of four cells, a few seconds of CPU with a warm build directory
(the kernel takes a kept build slot that no running kernel holds, while the test pool's workers
hold theirs: a new slot starts as a copy of theirs, kernel/launch.py's seed_slot).
"""

from __future__ import annotations

import copy
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import browser  # noqa: E402
import editions  # noqa: E402
import handouts  # noqa: E402
import vega_inline  # noqa: E402

OUTPUT_CAP = 200_000  # bytes of one explorable output in a notebook JupyterLab saved (PNG included)
RUN_TIMEOUT = float(os.environ.get("EXPLORE_RUN_TIMEOUT", "900"))  # a cold first cell compiles reshard
WORK = REPO / "target" / "explore-lab"  # JupyterLab's folder, kept between runs


@dataclass(frozen=True)
class Case:
    notebook: Path
    cell: str  # the cell id of the code cell whose output is the explorable
    slider: str | None = None  # the slider to drag (default: the first range slider)
    live: bool = True  # also (a): Run All in JupyterLab (a lab's whole run; its servers too)

    @property
    def name(self) -> str:
        return f"{self.notebook.stem}-{self.cell}"


CASES = [
    Case(HERE / "fixtures" / "explorable.ipynb", "explore"),
    Case(REPO / "notebooks/01-hash-mod-n-and-the-ring.ipynb", "join-explore", live=False),  # nodes, vnodes
    Case(REPO / "notebooks/02-rendezvous-hashing.ipynb", "weight-explore"),  # new_weight; the one live lab
    Case(REPO / "notebooks/03-fixed-shards.ipynb", "3e7c0a52", live=False),  # shard count S
    Case(REPO / "notebooks/04-jump-slots-and-maglev.ipynb", "4e7c0a52", live=False),  # Maglev M
    Case(REPO / "notebooks/05-weights-and-bounded-loads.ipynb", "5e7c0a52", live=False),  # ε
    Case(REPO / "notebooks/06-a-real-redis-cluster.ipynb", "c06x1", live=False),
    Case(REPO / "notebooks/07-hot-keys-and-replicas.ipynb", "cq5", "rf", live=False),
    Case(REPO / "notebooks/08-proxies-twemproxy-and-nginx.ipynb", "c30y", live=False),
    Case(REPO / "notebooks/09-key-ranges-that-split.ipynb", "e7a1c09d5b22", live=False),  # threshold
    Case(REPO / "notebooks/10-secondary-indexes-across-shards.ipynb", "f3b8d10a6c42", live=False),  # p_slow
]
for item in os.environ.get("RESHARD_EXPLORE", "").split():
    nb, cell, *slider = item.split("#")
    CASES.append(Case((REPO / nb).resolve(), cell, slider[0] if slider and slider[0] else None))
LIVE = [c for c in CASES if c.live]


@pytest.fixture(scope="session")
def executed():
    """path → the executed notebook: the committed one (test_notebooks proves its outputs are what
    the crate computes today). A session fixture that executes each lab once plugs in here:
    return its lookup instead (no test below runs a notebook it is handed)."""
    return lambda path: nbformat.read(path, as_version=4)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    d = Path(os.environ["EXPLORE_SHOTS"]) if os.environ.get("EXPLORE_SHOTS") else tmp_path_factory.mktemp("shots")
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture(scope="module")
def page():
    if browser.find_chromium() is None:
        pytest.skip("no Chromium (Debian: apt install chromium)")
    with browser.chromium() as p:
        yield p


@pytest.fixture(scope="module")
def lab():
    WORK.mkdir(parents=True, exist_ok=True)
    with browser.jupyterlab(WORK) as server:
        yield server


# ---- reading the notebook -------------------------------------------------------------------


def moved_to(nb, home: Path, there: Path):
    """The notebook, written to `there`, with its `:dep reshard = { path = "…" }` still pointing at
    the crate (the path was relative to `home`)."""
    nb = copy.deepcopy(nb)

    def rebase(m):
        crate = (home / m.group(2)).resolve()
        return f'{m.group(1)}"{os.path.relpath(crate, there.resolve())}"'

    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = re.sub(r'(:dep reshard = \{ path = )"([^"]*)"', rebase, cell.source)
    return nb


def cell_index(nb, case: Case) -> int:
    for i, c in enumerate(nb.cells):
        if c.get("id") == case.cell:
            return i
    raise AssertionError(f"{case.notebook.name}: no cell with id {case.cell!r}")


def explorable_output(nb, case: Case) -> dict:
    outs = [o for o in nb.cells[cell_index(nb, case)].get("outputs", []) if vega_inline.is_explorable(o)]
    assert len(outs) == 1, f"{case.name}: {len(outs)} explorable outputs in the cell (want 1)"
    return outs[0]


def spec_of(output) -> dict:
    spec = output["data"][vega_inline.VEGA_LITE_MIME]
    return spec if isinstance(spec, dict) else json.loads("".join(spec))


def snap(spec: dict, name: str, value: float) -> float:
    """The grid value the chart shows for slider `name` at `value` (the nearest computed one)."""
    grid = sorted({row[name] for row in vega_inline.rows(spec)})
    return min(grid, key=lambda g: (abs(g - value), g))


def expected_labels(spec: dict, setting: dict[str, float]) -> list[float]:
    """The values the chart writes at `setting`: its rows there (on a line of several series, the
    first series only, as the chart labels only that one)."""
    rows = [r for r in vega_inline.rows(spec) if all(r[k] == v for k, v in setting.items())]
    text_layer = spec["layer"][1]
    for t in text_layer.get("transform", []):
        m = re.fullmatch(r'datum\.series == (".*")', t.get("filter", ""))
        if m:
            rows = [r for r in rows if r.get("series") == json.loads(m.group(1))]
    return [r["y"] for r in rows]


def label_value(text: str) -> tuple[float, float]:
    """A label as written ("12.3%", "1,234", "1.500") → (value, half its last digit)."""
    t = text.strip().replace(",", "").replace("\u2212", "-")
    pct = t.endswith("%")
    t = t.rstrip("%")
    decimals = len(t.split(".")[1]) if "." in t else 0
    scale = 0.01 if pct else 1.0
    return float(t) * scale, 0.5 * 10 ** -decimals * scale + 1e-12


def js_number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(v)


# ---- the chart in the page --------------------------------------------------------------------

# The chart's state under a root element: title, value labels, slider inputs, and a signature of
# the drawn marks (their path data), so that "the chart changed" is a comparison.
STATE_JS = """(root => {
  if (!root) return null;
  const svg = root.querySelector('.vega-embed svg.marks');
  if (!svg) return null;
  const texts = sel => [...svg.querySelectorAll(sel)].map(e => e.textContent);
  const inputs = [...root.querySelectorAll('.vega-bindings input, .vega-bindings select')].map(e => ({
    name: e.name, type: e.type, value: +e.value, min: +e.min, max: +e.max, step: +e.step}));
  const marks = [...svg.querySelectorAll('.role-mark path, .role-mark rect')]
    .map(e => e.getAttribute('d') || e.getAttribute('transform') || '').join('|');
  return {title: texts('.role-title-text text, .role-title text').join(' '),
          labels: texts('.mark-text.role-mark text'), inputs, marks};
})(%s)"""


def state(page, root_js: str):
    return page.js(STATE_JS % root_js)


def slider_box(page, root_js: str, name: str):
    return page.js(f"""(() => {{ const root = {root_js};
      const e = root.querySelector('.vega-bindings input[type=range][name={json.dumps(name)}]');
      if (!e) return null; e.scrollIntoView({{block: 'center', behavior: 'instant'}});
      const r = e.getBoundingClientRect();
      return {{x: r.x, y: r.y, width: r.width, height: r.height}}; }})()""")


def chart_box(page, root_js: str):
    """The chart with its sliders, scrolled into the middle of the view."""
    box = page.js(f"""(() => {{ const e = ({root_js}).querySelector('.vega-embed');
      e.scrollIntoView({{block: 'center', behavior: 'instant'}});
      const r = e.getBoundingClientRect(); return {{x: r.x, y: r.y, width: r.width, height: r.height}}; }})()""")
    time.sleep(0.3)  # JupyterLab paints a cell scrolled into view on the next frame
    return box


def explore(page, root_js: str, spec: dict, case: Case, shots: Path, where: str) -> dict:
    """Drag the slider from its default to the far end of its range, check that the chart changed
    and writes the crate's values for the new setting; before/after screenshots."""
    page.wait_for(f"(() => {{ const s = {STATE_JS % root_js}; return s && s.labels.length > 0; }})()", 60,
                  f"{case.name}: the chart drawn ({where})")
    before = state(page, root_js)
    ranges = [i for i in before["inputs"] if i["type"] == "range"]
    assert ranges, f"{case.name} ({where}): no range slider"
    slider = next((i for i in ranges if i["name"] == case.slider), None) if case.slider else ranges[0]
    assert slider, f"{case.name} ({where}): no range slider named {case.slider}"
    name = slider["name"]
    defaults = {p["name"]: p["value"] for p in spec["params"] if "bind" in p}
    assert slider["value"] == defaults[name], f"{case.name} ({where}): the slider does not start at the default"
    assert f"{name} = {js_number(snap(spec, name, defaults[name]))}" in before["title"], before["title"]
    shown = {i["name"]: snap(spec, i["name"], i["value"]) for i in before["inputs"]}
    assert sorted_close(before["labels"], expected_labels(spec, shown)), \
        f"{case.name} ({where}): default view {before['labels']} ≠ the crate's {expected_labels(spec, shown)}"
    page.shot(shots / f"{case.name}-{where}-before.png", chart_box(page, root_js))

    # The far end from the default, then a hand's drag: press on the thumb, move, release.
    lo, hi, value = slider["min"], slider["max"], slider["value"]
    target = lo if value - lo >= hi - value else hi
    box = slider_box(page, root_js, name)
    thumb = 16.0  # Chromium's default range thumb, px
    at = lambda v: box["x"] + thumb / 2 + (v - lo) / (hi - lo) * (box["width"] - thumb)  # noqa: E731
    y = box["y"] + box["height"] / 2
    page.drag(at(value), y, at(target), y)
    page.wait_for(f"(() => {{ const s = {STATE_JS % root_js}; return s && s.marks !== {json.dumps(before['marks'])}; }})()",
                  20, f"{case.name}: the chart to change after the drag ({where})")
    after = state(page, root_js)
    moved = next(i for i in after["inputs"] if i["name"] == name)
    now = snap(spec, name, moved["value"])
    assert now != snap(spec, name, value), f"{case.name} ({where}): the drag did not move {name}"
    shown = {i["name"]: snap(spec, i["name"], i["value"]) for i in after["inputs"]}
    expected = expected_labels(spec, shown)
    assert after["labels"] != before["labels"], f"{case.name} ({where}): the values did not change"
    assert f"{name} = {js_number(now)}" in after["title"], f"{case.name} ({where}): title {after['title']!r}"
    assert sorted_close(after["labels"], expected), \
        f"{case.name} ({where}) at {shown}: the chart writes {after['labels']}, the crate computed {expected}"
    page.shot(shots / f"{case.name}-{where}-after.png", chart_box(page, root_js))
    return {"slider": name, "from": value, "to": moved["value"], "shown": shown, "labels": after["labels"]}


def sorted_close(labels: list[str], expected: list[float]) -> bool:
    if len(labels) != len(expected):
        return False
    got = sorted(label_value(t) for t in labels)
    return all(abs(v - e) <= tol for (v, tol), e in zip(got, sorted(expected)))


# The notebook on show (one tab: each is opened with ?reset, which clears the layout).
NOTEBOOK_JS = "document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook')"


def lab_cell_js(index: int) -> str:
    return f"{NOTEBOOK_JS}.querySelectorAll('.jp-Cell')[{index}]"


def open_in_lab(page, lab, name: str, index: int) -> None:
    page.go(lab.url(f"lab/tree/{name}?reset"))
    page.wait_for(f"!!{NOTEBOOK_JS} && {NOTEBOOK_JS}.querySelectorAll('.jp-Cell').length > {index}", 90,
                  f"{name} open")
    page.js(f"{lab_cell_js(index)}.scrollIntoView({{block: 'center', behavior: 'instant'}})")


# ---- without a browser ------------------------------------------------------------------------


def in_file_bytes(output) -> int:
    """Bytes the output takes in a saved .ipynb, as nbformat writes it (indented JSON)."""
    def size(outputs):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("", outputs=outputs)]
        return len(nbformat.writes(nb).encode())
    return size([output]) - size([])


NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb")) + [c.notebook for c in CASES]


@pytest.mark.parametrize("path", sorted(set(NOTEBOOKS)), ids=lambda p: p.name)
def test_explorable_outputs_are_one_small_bundle_without_html(path):
    nb = nbformat.read(path, as_version=4)
    found = 0
    for i, cell in enumerate(nb.cells):
        outs = [o for o in cell.get("outputs", []) if vega_inline.is_explorable(o)]
        assert len(outs) <= 1, f"{path.name} cell {i}: {len(outs)} explorables in one cell"
        for out in outs:
            found += 1
            data = out["data"]
            assert "text/html" not in data, f"{path.name} cell {i}: text/html beside the chart hides it"
            assert {"image/svg+xml", "text/plain"} <= set(data), f"{path.name} cell {i}: {sorted(data)}"
            size = in_file_bytes(out)
            assert size <= OUTPUT_CAP, f"{path.name} cell {i}: {size:,} bytes in the notebook (cap {OUTPUT_CAP:,})"
    if path in [c.notebook for c in CASES]:
        assert found >= 1, f"{path.name}: no explorable output committed"


def test_the_output_check_ignores_the_png_jupyterlab_adds():
    import nbcheck

    spec = {"data": {"values": "k,x,y\n1,A,0.5"}, "mark": "bar"}
    fresh = nbformat.v4.new_code_cell("ex", outputs=[nbformat.v4.new_output(
        "execute_result", data={vega_inline.VEGA_LITE_MIME: spec, "image/svg+xml": "<svg/>", "text/plain": "t"})])
    saved = nbformat.v4.new_code_cell("ex", outputs=[nbformat.v4.new_output(
        "execute_result", data={vega_inline.VEGA_LITE_MIME: dict(reversed(list(spec.items()))),
                                "image/svg+xml": "<svg/>", "text/plain": "t", "image/png": "iVBORw0KGgo="})])
    assert nbcheck.normalized_outputs(saved) == nbcheck.normalized_outputs(fresh)
    changed = {**spec, "data": {"values": "k,x,y\n1,A,0.6"}}
    fresh.outputs[0]["data"][vega_inline.VEGA_LITE_MIME] = changed
    assert nbcheck.normalized_outputs(saved) != nbcheck.normalized_outputs(fresh), "a changed grid must show"
    # A PNG that is not beside a chart is still compared.
    png = nbformat.v4.new_code_cell("p", outputs=[nbformat.v4.new_output("display_data", data={"image/png": "AA=="})])
    assert ("data", "image/png", "AA==") in nbcheck.normalized_outputs(png)


def test_the_html_box_keeps_the_picture_and_a_spec_that_cannot_end_its_script(tmp_path, monkeypatch):
    spec = {"title": "a </script><script>alert(1)</script> title", "data": {"values": "k,x,y\n1,A,0.5"}}
    out = nbformat.v4.new_output("execute_result", data={
        vega_inline.VEGA_LITE_MIME: spec, "image/svg+xml": "<svg></svg>", "text/plain": "t", "image/png": "AA=="})
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("ex", outputs=[out])]
    live = vega_inline.live_outputs(nb).cells[0].outputs[0]["data"]
    assert set(live) == {"text/html", "text/plain"}
    box = live["text/html"]
    assert box.count("</script>") == 1 and '<img class="reshard-explorable-static" src="data:image/svg+xml;base64,' in box
    payload = box.split('class="reshard-explorable-spec">')[1].split("</script>")[0]
    assert json.loads(payload) == spec
    assert set(vega_inline.static_outputs(nb).cells[0].outputs[0]["data"]) == {"image/svg+xml", "text/plain"}
    # Without npm the page is left as it is: the picture shows, the chart is not drawn.
    monkeypatch.setattr(vega_inline.shutil, "which", lambda _: None)
    page = f"<html><head></head><body>{box}</body></html>"
    assert vega_inline.add_scripts(page, repo=tmp_path) == page


# ---- the three places -------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_explorable_in_the_html_edition_offline(page, shots, executed, case):
    if not vega_inline.ensure_installed() and os.environ.get("CI") != "true":
        pytest.skip("npm not found: the HTML edition shows the picture only (Debian: apt install npm)")
    nb = executed(case.notebook)
    spec = spec_of(explorable_output(nb, case))
    html = WORK / f"{case.notebook.stem}.html"
    WORK.mkdir(parents=True, exist_ok=True)
    html.write_text(handouts.to_html(editions.teacher_edition(nb), "teacher"))
    page.events.clear()
    page.offline()
    try:
        page.go(html.as_uri())
        k = sum(1 for c in nb.cells[:cell_index(nb, case)] for o in c.get("outputs", []) if vega_inline.is_explorable(o))
        root = f"document.querySelectorAll('.{vega_inline.BOX}')[{k}]"
        page.wait_for(f"!!{root} && {root}.classList.contains('{vega_inline.BOX}-ready')", 30,
                      "the HTML edition's chart")
        explore(page, root, spec, case, shots, "c-html")
        web = [u for u in page.requests() if not u.startswith(("file:", "data:", "blob:"))]
        assert not web, f"the HTML edition asked the network for {web}"
        # On paper: the static picture of the default view, no live chart.
        page.call("Emulation.setEmulatedMedia", media="print")
        shown = page.js(f"""(() => {{ const b = {root};
          const vis = e => !!e && getComputedStyle(e).display !== 'none';
          return [vis(b.querySelector('.{vega_inline.BOX}-static')), vis(b.querySelector('.{vega_inline.BOX}-live'))]; }})()""")
        assert shown == [True, False], f"print view: static picture shown, live chart hidden? {shown}"
        page.shot(shots / f"{case.name}-c-html-print.png", page.box(f".{vega_inline.BOX}-static"))
    finally:
        page.call("Emulation.setEmulatedMedia", media="")
        page.call("Network.emulateNetworkConditions", offline=False, latency=0, downloadThroughput=-1,
                  uploadThroughput=-1)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_explorable_in_an_untrusted_notebook(page, lab, shots, executed, case):
    nb = executed(case.notebook)
    spec = spec_of(explorable_output(nb, case))
    # The lab's title and the explorable's cell, its saved output as the lab has it: what is
    # checked is that bundle in an untrusted notebook. JupyterLab rendering the lab's other
    # cells (dozens of tables and pictures) took most of this case's 16-33 s beside the kernel
    # pool's lab runs, and tells nothing about the explorable.
    title = next(c for c in nb.cells if c.cell_type == "markdown")
    nb = copy.deepcopy(nb)
    nb.cells = [title, nb.cells[cell_index(nb, case)]]
    index = cell_index(nb, case)
    untrusted = moved_to(nb, case.notebook.parent, WORK)
    # A probe that only a trusted notebook would run: it must stay "untrusted".
    probe = nbformat.v4.new_output("display_data", data={"text/html": (
        '<span class="trust-probe">untrusted<script>document.querySelector(".trust-probe")'
        '.textContent = "trusted"</script></span>')})
    untrusted.cells[index].outputs.append(probe)
    name = f"{case.name}-untrusted.ipynb"
    nbformat.write(untrusted, WORK / name)
    try:
        open_in_lab(page, lab, name, index)
        page.wait_for(f"!!{lab_cell_js(index)}.querySelector('.vega-embed svg.marks')", 60, "the untrusted chart")
        assert page.js("document.querySelector('.trust-probe').textContent") == "untrusted"
        explore(page, lab_cell_js(index), spec, case, shots, "b-untrusted")
    finally:
        page.go("about:blank")
        lab.shut_down_kernels()  # JupyterLab started one on opening the notebook; nothing ran in it


@pytest.mark.parametrize("case", LIVE, ids=lambda c: c.name)
def test_explorable_live_in_jupyterlab(page, lab, shots, executed, case, kernel_pool):
    # JupyterLab's kernel runs the whole lab on the cores the pool's lab executions use: beside
    # two of them its Run All took many times its own time (and once ran past RUN_TIMEOUT), so
    # the pool starts nothing while it runs.
    with kernel_pool.exclusive():
        try:
            run_live(page, lab, shots, executed, case)
        except BaseException:
            # Where Run All stood: each code cell's prompt ("[*]" running, "[ ]" waiting). A page
            # that no longer answers must not put its own error in place of the test's.
            try:
                prompts = page.js("[...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]"
                                  ".map(e => e.textContent.trim()).join(' ')")
            except Exception as e:  # noqa: BLE001
                prompts = f"(unreadable: {e})"
            print(f"{case.name}: the cells' prompts when it stopped: {prompts}")
            raise


def run_live(page, lab, shots, executed, case):
    nb = executed(case.notebook)
    index = cell_index(nb, case)
    name = f"{case.name}-live.ipynb"
    nbformat.write(editions.clear_outputs(moved_to(nb, case.notebook.parent, WORK)), WORK / name)
    lab.shut_down_kernels()  # this notebook's kernel gets the kept build directory
    open_in_lab(page, lab, name, index)
    page.wait_for("!!document.querySelector('[data-command=\"notebook:restart-run-all\"]')", 60, "the toolbar")
    idle = ("(() => { const s = [...document.querySelectorAll('.jp-Notebook-ExecutionIndicator')];"
            " return s.length > 0 && s.every(e => e.getAttribute('data-status') === 'idle'); })()")
    page.wait_for(idle, 300, "the kernel to start")
    assert page.click('[data-command="notebook:restart-run-all"]'), "no Restart and Run All button"
    page.wait_for("!!document.querySelector('.jp-Dialog-button.jp-mod-accept')", 60, "the restart dialog")
    page.click(".jp-Dialog-button.jp-mod-accept")
    # Drawn, or a cell failed (a compile error, an error result): then say which and why.
    drawn = page.wait_for(
        f"(() => {{ const c = {lab_cell_js(index)}; if (c) c.scrollIntoView({{block: 'center', behavior: 'instant'}});"
        " if (c && c.querySelector('.vega-embed svg.marks')) return 'drawn';"
        f" const err = {NOTEBOOK_JS}.querySelector('.jp-OutputArea-output[data-mime-type=\"application/vnd.jupyter.stderr\"]');"
        " return err ? 'error: ' + err.textContent.slice(0, 1500) : null; })()", RUN_TIMEOUT,
        f"{case.name}: Run All to draw the chart")
    assert drawn == "drawn", f"{case.name}: a cell failed in JupyterLab: {drawn}"
    page.wait_for("(() => { const p = [...document.querySelectorAll('.jp-InputArea-prompt')].map(e => e.textContent);"
                  " return p.length > 0 && !p.some(t => t.includes('*')); })()", RUN_TIMEOUT, "Run All to finish")
    # Save, and read what JupyterLab wrote: the spec, the SVG, the text line and its own PNG.
    page.click('[data-command="docmanager:save"]')
    page.wait_for("!document.querySelector('.lm-TabBar-tab.jp-mod-current.jp-mod-dirty')", 30, "the save")
    saved = nbformat.read(WORK / name, as_version=4)
    out = explorable_output(saved, case)
    assert {"image/png", "image/svg+xml", "text/plain", vega_inline.VEGA_LITE_MIME} <= set(out["data"]), \
        f"saved output has {sorted(out['data'])}"
    assert "text/html" not in out["data"]
    size = len(json.dumps(out))
    assert size <= OUTPUT_CAP, f"{case.name}: the saved output takes {size:,} bytes (cap {OUTPUT_CAP:,})"
    spec = spec_of(out)
    assert spec == spec_of(explorable_output(nb, case)), "the live run's grid differs from the executed notebook's"
    explore(page, lab_cell_js(index), spec, case, shots, "a-live")
    print(f"{case.name}: saved output {size:,} bytes (PNG {len(''.join(out['data']['image/png'])):,})")
