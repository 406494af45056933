"""The answer key of a lab: one page (two at most) a teacher keeps beside the worksheet.

    handouts/teacher/NN-key.html   title, then per Predict: the question, the measured answer(s),
    handouts/teacher/NN-key.pdf    the common wrong guess and why (printed by a headless Chromium)

Generated from the committed notebook only, nothing re-executed and nothing written twice:

  * the question is the `predict` cell's text (its heading lines and "**Predict.**" label left out);
  * the measured answers are the lines `prediction · <label>: … · measured <X>` that
    `book.share(…)` / `book.count(…)` printed in the outputs of the code cells between this Predict
    and the next (shown as "<label>: <X>");
  * the common wrong guess and the one-line why are the Predict's metadata `reshard.wrong` and
    `reshard.why` (tests/notebooks/teaching.py requires both); where the Predict has them, each
    measured value is followed by the range that counts as right (`reshard.accept`) and, for a value
    that changes from run to run, the range seen over runs (`reshard.run_dependent`);
  * the exercise line names each `solution` cell's function and its check's points.

`make handouts` writes every lab's key (scripts/handouts.py calls `write`); alone:

    .venv/bin/python scripts/answer_key.py [--out handouts/teacher] [--pdf auto|never|always] [notebooks…]
"""

from __future__ import annotations

import argparse
import html
import re
import sys
from pathlib import Path

import nbformat
from nbconvert.filters.markdown import markdown2html

REPO = Path(__file__).resolve().parent.parent

MEASURED = re.compile(r"^prediction · (?P<label>.+?): (?:your guess .*?|no guess written) · measured (?P<value>.+?)\s*$",
                      re.M)

KEY_CSS = """
<style>
@page { size: A4 portrait; margin: 12mm; }
body { font-family: system-ui, sans-serif; font-size: 11.5px; line-height: 1.35; max-width: 703px;
       margin: 0 auto; color: #000; }
h1 { font-size: 16px; margin: 0 0 2px; }
.sub { font-size: 10.5px; color: #333; margin: 0 0 8px; border-bottom: 1px solid #999; padding-bottom: 4px; }
ol { padding-left: 1.4em; margin: 0; }
li { margin: 0 0 7px; break-inside: avoid-page; }
li p { margin: 0 0 2px; }
table { border-collapse: collapse; margin: 2px 0 0; width: 100%; }
th { text-align: left; font-weight: 600; width: 11em; white-space: nowrap; vertical-align: top; padding: 1px 6px 1px 0; }
td { vertical-align: top; padding: 1px 0; }
code { font-size: 10.5px; }
h1 code { font-size: 15px; }
.none { color: #555; font-style: italic; }
.accept { font-size: 10.5px; }
.varies { font-size: 10.5px; font-style: italic; }
.exercise { margin-top: 8px; border-top: 1px solid #999; padding-top: 4px; }
</style>
"""


def tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", []) or []


def outputs_text(cell) -> str:
    out = []
    for o in cell.get("outputs", []) or []:
        if o.get("output_type") == "stream":
            out.append(o.get("text", ""))
        elif "text/plain" in o.get("data", {}):
            out.append(o["data"]["text/plain"])
    return "\n".join(out)


def title_of(nb) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return "untitled"


def question_of(source: str) -> str:
    """A Predict's question: heading lines and the leading bold "Predict" label left out."""
    lines = [l for l in source.splitlines() if not l.lstrip().startswith("#")]
    text = "\n".join(lines).strip()
    return re.sub(r"(^|\n)\*\*Predict[^*]*\*\*[ \t]*", r"\1", text).strip()


def measured_lines(text: str) -> list[tuple[str, str]]:
    """(label, measured) of every prediction line in `text`."""
    return [(m["label"], m["value"]) for m in MEASURED.finditer(text)]


def entries(nb) -> list[dict]:
    """One entry per Predict: question, measured [(label, value)], wrong, why."""
    predicts = [i for i, c in enumerate(nb.cells) if "predict" in tags(c)]
    found = []
    for k, p in enumerate(predicts):
        end = predicts[k + 1] if k + 1 < len(predicts) else len(nb.cells)
        measured = {}
        for cell in nb.cells[p + 1:end]:
            if cell.cell_type == "code":
                for label, value in measured_lines(outputs_text(cell)):
                    measured[label] = value  # a label printed twice: the last run's line
        meta = nb.cells[p].metadata.get("reshard", {}) or {}
        found.append({"question": question_of(nb.cells[p].source), "measured": list(measured.items()),
                      "wrong": str(meta.get("wrong", "")).strip(), "why": str(meta.get("why", "")).strip(),
                      "accept": dict(meta.get("accept", {}) or {}),
                      "run_dependent": dict(meta.get("run_dependent", {}) or {})})
    return found


def exercises(nb) -> list[str]:
    """"`fn …` · 2 points" for each solution cell (its signature and its check's points)."""
    lines = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "solution" not in tags(cell):
            continue
        sig = next((l.strip().rstrip("{").strip() for l in cell.source.splitlines() if re.match(r"\s*(pub\s+)?fn\b", l)),
                   "(no fn)")
        check = next((c for c in nb.cells[i + 1:] if c.cell_type == "code"), None)
        points = (check.metadata.get("nbgrader", {}) or {}).get("points") if check is not None else None
        lines.append(f"`{sig}`" + (f" · check `{check.metadata['nbgrader'].get('grade_id')}`, {points} points"
                                   if points is not None else ""))
    return lines


def inline(md: str) -> str:
    """Markdown of one line or paragraph as HTML without the wrapping <p>."""
    out = markdown2html(md).strip()
    m = re.fullmatch(r"<p>(.*)</p>", out, flags=re.S)
    return m.group(1) if m else out


def key_html(nb, source_name: str) -> str:
    rows = []
    for e in entries(nb):
        def line(label, value):
            out = f"{html.escape(label)}: <b>{html.escape(value)}</b>"
            if e["accept"].get(label):
                out += f' · <span class="accept">right: {inline(str(e["accept"][label]))}</span>'
            if e["run_dependent"].get(label):
                out += f' · <span class="varies">changes from run to run: {inline(str(e["run_dependent"][label]))}</span>'
            return out
        measured = "<br>".join(line(label, value) for label, value in e["measured"]) \
            or '<span class="none">no measured line in the outputs: run the notebook (<code>make notebooks</code>)</span>'
        wrong = inline(e["wrong"]) if e["wrong"] else '<span class="none">not given</span>'
        why = inline(e["why"]) if e["why"] else '<span class="none">not given</span>'
        rows.append(f"<li>{markdown2html(e['question'])}<table>"
                    f"<tr><th>measured</th><td>{measured}</td></tr>"
                    f"<tr><th>common wrong guess</th><td>{wrong}</td></tr>"
                    f"<tr><th>why</th><td>{why}</td></tr></table></li>")
    ex = exercises(nb)
    ex_html = (f'<p class="exercise"><b>Exercise.</b> {"; ".join(inline(x) for x in ex)} '
               f"(model solution in the teacher's edition)</p>") if ex else ""
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>Answer key · {html.escape(title_of(nb))}</title>{KEY_CSS}</head><body>"
            f"<h1>{inline(title_of(nb))}</h1>"
            f'<p class="sub">reshard · answer key · from {html.escape(source_name)} as committed: '
            f"each Predict, the answer this lab measured, the common wrong guess and why.</p>"
            f"<ol>{''.join(rows)}</ol>{ex_html}</body></html>\n")


def key_name(path: Path) -> str:
    """notebooks/01-hash-mod-n-and-the-ring.ipynb → 01-key."""
    return path.stem.split("-", 1)[0] + "-key"


def write(nb, path: Path, out_dir: Path, chromium: str | None) -> list[Path]:
    """Write out_dir/NN-key.html (and .pdf with a Chromium) for the notebook read from `path`.
    Nothing for a notebook without Predicts (00-index)."""
    if not any("predict" in tags(c) for c in nb.cells):
        return []
    out_dir.mkdir(parents=True, exist_ok=True)
    page = out_dir / (key_name(path) + ".html")
    page.write_text(key_html(nb, f"notebooks/{path.name}"))
    written = [page]
    if chromium:
        from handouts import print_pdf  # scripts/handouts.py (which imports this module)

        print_pdf(chromium, page, page.with_suffix(".pdf"))
        written.append(page.with_suffix(".pdf"))
    return written


def main(argv: list[str]) -> int:
    from doctor import find_chromium

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*", type=Path)
    ap.add_argument("--out", type=Path, default=REPO / "handouts" / "teacher")
    ap.add_argument("--pdf", choices=["auto", "never", "always"], default="auto")
    args = ap.parse_args(argv)
    chromium = find_chromium() if args.pdf != "never" else None
    if args.pdf == "always" and not chromium:
        print("no Chromium found for the PDFs: install one (Debian: apt install chromium) or set CHROMIUM")
        return 2
    missing = 0
    for path in args.notebooks or sorted((REPO / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        written = write(nb, path, args.out, chromium)
        for n, e in enumerate(entries(nb), 1):
            if not e["measured"] or not e["wrong"] or not e["why"]:
                missing += 1
                print(f"{path.name}: Predict {n} lacks "
                      + ", ".join(w for w, ok in (("a measured line", e["measured"]), ("reshard.wrong", e["wrong"]),
                                                  ("reshard.why", e["why"])) if not ok))
        if written:
            print(f"key: {', '.join(str(p) for p in written)}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
