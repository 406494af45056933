"""The answer key of a lab: a page or two a teacher grades with, beside the worksheet.

    handouts/teacher/NN-key.html   per Predict: the question, and for each value it asks the
    handouts/teacher/NN-key.pdf    measured answer, the range that counts as right and why, whether
                                   it changes from run to run; the common wrong answer and why the
                                   answer is what it is; every quiz answer with its reason; each
                                   exercise's model solution (printed by a headless Chromium)

Generated from the committed notebook only, nothing re-executed and nothing written twice:

  * the question is the `predict` cell's text (its heading lines, its "**Predict.**" label and any
    table or grid for by-hand work left out);
  * the measured answers are the lines `prediction · <label>: … · measured <X>` (or `· model <X>`,
    a model's figure, which the key marks so) that `book.share(…)` / `book.count(…)` (or
    `book.model_share(…)`) printed in the outputs of the code cells between this Predict and the
    next;
  * from the Predict's metadata (tests/notebooks/teaching.py requires them): `reshard.accept`
    {label: the range that counts as right, and why}, `reshard.run_dependent` {label: the range seen
    over runs}, `reshard.wrong` (the common wrong answer and its reason) and `reshard.why` (one line);
    a `{{label}}` in them is the value a line `label: value` of the step's outputs printed, so a
    figure the key quotes is computed ("ranges end {{ranges at the end, at random}} here");
  * the quiz: its questions and tolerances from the Quiz table the cell tagged `quiz` printed, the
    measured answers from the graded table (`quiz.grade(…)`, the answer cell after the reader's),
    and one reason per question from that cell's metadata `reshard.quiz: [{"why": …}, …]`;
  * the exercise: each `solution` cell's stub signature, its check's points, and the model solution
    (the lines between `// BEGIN SOLUTION` and `// END SOLUTION`).

`make handouts` writes every lab's key (scripts/handouts.py calls `write`); alone:

    .venv/bin/python scripts/answer_key.py [--out handouts/teacher] [--pdf auto|never|always] [notebooks…]
"""

from __future__ import annotations

import argparse
import html
import re
import sys
import textwrap
from pathlib import Path

import nbformat
from nbconvert.filters.markdown import markdown2html

REPO = Path(__file__).resolve().parent.parent

MEASURED = re.compile(r"^prediction · (?P<label>.+?): (?:your guess .*?|no guess written) · (?P<kind>measured|model) (?P<value>.+?)\s*$",
                      re.M)

KEY_CSS = """
<style>
@page { size: A4 portrait; margin: 11mm; }
body { font-family: system-ui, sans-serif; font-size: 11.5px; line-height: 1.3; max-width: 710px;
       margin: 0 auto; color: #000; }
h1 { font-size: 15px; margin: 0 0 2px; }
h2 { font-size: 12px; margin: 8px 0 3px; border-top: 1px solid #999; padding-top: 4px; }
.sub { font-size: 9.5px; color: #333; margin: 0 0 6px; border-bottom: 1px solid #999; padding-bottom: 3px; }
ol { padding-left: 1.3em; margin: 0; }
li { margin: 0 0 6px; break-inside: avoid-page; }
li p { margin: 0 0 2px; }
table { border-collapse: collapse; margin: 1px 0 2px; width: 100%; }
th { text-align: left; font-weight: 600; font-size: 10.5px; color: #333; border-bottom: 1px solid #bbb;
     padding: 0 6px 1px 0; }
td { vertical-align: top; padding: 1px 6px 1px 0; border-bottom: 1px dotted #ccc; }
td.label { width: 30%; } td.value { width: 10%; white-space: nowrap; }
code { font-size: 10.5px; }
h1 code { font-size: 14px; }
.none { color: #555; font-style: italic; }
.varies { font-style: italic; }
.ww { font-size: 11px; }
pre { font-size: 10px; line-height: 1.2; margin: 2px 0; padding: 3px 5px; border: 1px solid #bbb;
      white-space: pre-wrap; break-inside: avoid-page; }
.exercise { break-inside: avoid-page; }
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
    """A Predict's question: heading lines, the leading bold "Predict" label, and any table or grid
    given for by-hand work (HTML or markdown) left out."""
    text = re.sub(r"<table.*?</table>", "", source, flags=re.S | re.I)
    lines = [l for l in text.splitlines() if not l.lstrip().startswith("#") and not l.lstrip().startswith("|")]
    text = "\n".join(lines).strip()
    return re.sub(r"(^|\n)\*\*Predict[^*]*\*\*[ \t]*", r"\1", text).strip()


def measured_lines(text: str) -> list[tuple[str, str]]:
    """(label, measured) of every prediction line in `text`; a model's figure (`· model 3.9%`)
    reads "3.9% (the model)"."""
    return [(m["label"], m["value"] + (" (the model)" if m["kind"] == "model" else "")) for m in MEASURED.finditer(text)]


FIGURE_REF = re.compile(r"\{\{(?P<label>[^{}]+)\}\}")


def resolve(text: str, outputs: str) -> str:
    """`text` with each `{{label}}` replaced by the value a line `label: value` of `outputs` printed
    (the step's cells): a figure the key quotes is computed, never typed. One not printed stays
    `{{label}}` (tests/notebooks/teaching.py fails on it)."""
    def value(m):
        found = re.search(r"^\s*" + re.escape(m["label"].strip()) + r":\s*(.+?)\s*$", outputs, re.M)
        return found.group(1) if found else m.group(0)
    return FIGURE_REF.sub(value, text)


def step_outputs(nb, p: int, end: int) -> str:
    """The text every code cell of the step from Predict `p` up to `end` printed."""
    return "\n".join(outputs_text(c) for c in nb.cells[p + 1:end] if c.cell_type == "code")


def entries(nb) -> list[dict]:
    """One entry per Predict: question, measured [(label, value)] (the asked values: the book's
    labels, then any `reshard.accept` label the outputs lack, measured "—"), wrong, why, accept,
    run_dependent, finding."""
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
        shown = step_outputs(nb, p, end)
        accept = {label: resolve(str(v), shown) for label, v in (meta.get("accept", {}) or {}).items()}
        asked = list(measured.items()) + [(label, "—") for label in accept if label not in measured]
        found.append({"question": question_of(nb.cells[p].source), "measured": asked,
                      "wrong": resolve(str(meta.get("wrong", "")).strip(), shown),
                      "why": resolve(str(meta.get("why", "")).strip(), shown),
                      "accept": accept, "run_dependent": {label: resolve(str(v), shown) for label, v in
                                                          (meta.get("run_dependent", {}) or {}).items()},
                      "finding": str(meta.get("finding", "")).strip()})
    return found


QUIZ_ROW = re.compile(r"^\s+(\d+)\s+(.+?)\s+±\s*(\S+)\s*$", re.M)
GRADED_ROW = re.compile(r"^\s{2}(?P<question>\S.*?)\s{2,}(?P<yours>\S.*?)\s{2,}(?P<measured>[\d.,]+%)"
                        r"\s+(?:✓|✗|no answer)\s*$", re.M)
GRADED_NOTE = "right (within the tolerance of each question)"


def quiz(nb) -> list[dict]:
    """The quiz's questions in order: number, question, tolerance, measured (the graded table's,
    "—" without one) and why (`reshard.quiz`), for each cell tagged `quiz` (or printing a Quiz
    table)."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        out = outputs_text(cell)
        rows = QUIZ_ROW.findall(out) if "quiz.grade(" in out else []
        if not rows and "quiz" not in tags(cell):
            continue
        graded = next((outputs_text(c) for c in nb.cells[i + 1:] if c.cell_type == "code"
                       and GRADED_NOTE in outputs_text(c)), "")
        measured = [m["measured"] for m in GRADED_ROW.finditer(graded)]
        whys = (cell.metadata.get("reshard", {}) or {}).get("quiz") or []
        for k, (n, question, tolerance) in enumerate(rows):
            why = whys[k].get("why", "") if k < len(whys) and isinstance(whys[k], dict) else ""
            found.append({"n": int(n), "question": question.strip(), "tolerance": "± " + tolerance,
                          "measured": measured[k] if k < len(measured) else "—", "why": str(why).strip()})
    return found


def exercises(nb) -> list[dict]:
    """Each exercise: its stub signature, its check's grade id and points, and the model solution
    (the lines between the solution markers, dedented)."""
    from editions import solution_region  # scripts/editions.py: the region the stub replaces

    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "solution" not in tags(cell):
            continue
        sig = next((l.strip().rstrip("{").strip() for l in cell.source.splitlines() if re.match(r"\s*(pub\s+)?fn\b", l)),
                   "(no fn)")
        checks = []  # the check cells after it, one per graded property where there are several
        for c in nb.cells[i + 1:]:
            if c.cell_type != "code":
                continue
            if "check" not in tags(c) and checks:
                break
            checks.append(c.metadata.get("nbgrader", {}) or {})
            if "check" not in tags(c):
                break
        graded = [g for g in checks if g.get("points") is not None]
        grading = {"grade_id": ", ".join(str(g.get("grade_id")) for g in checks if g.get("grade_id")) or None,
                   "points": sum(g["points"] for g in graded) if graded else None}
        try:
            solution = textwrap.dedent(solution_region(cell.source)).strip("\n")
        except ValueError:
            solution = ""
        found.append({"signature": sig, "grade_id": grading.get("grade_id"), "points": grading.get("points"),
                      "solution": solution})
    return found


def inline(md: str) -> str:
    """Markdown of one line or paragraph as HTML without the wrapping <p>. A `<` outside a code span
    is text, not a tag (metadata writes "MOVED <slot> <node>"), so it is escaped first."""
    md = "".join(part if part.startswith("`") else part.replace("<", "&lt;")
                 for part in re.split(r"(`[^`]*`)", md))
    out = markdown2html(md).strip()
    m = re.fullmatch(r"<p>(.*)</p>", out, flags=re.S)
    return m.group(1) if m else out


def key_html(nb, source_name: str) -> str:
    items = []
    for e in entries(nb):
        rows = []
        for label, value in e["measured"]:
            right = inline(str(e["accept"][label])) if e["accept"].get(label) else '<span class="none">not given</span>'
            if e["run_dependent"].get(label):
                right += (f' <span class="varies">· changes from run to run: '
                          f'{inline(str(e["run_dependent"][label]))}</span>')
            shown = f"<b>{html.escape(value)}</b>" if value != "—" else \
                '<span class="none">— not in the committed outputs: run the notebook</span>'
            rows.append(f'<tr><td class="label">{html.escape(label)}</td><td class="value">{shown}'
                        f"</td><td>{right}</td></tr>")
        table = (f"<table><tr><th>asked</th><th>measured</th><th>counts as right, and why</th></tr>{''.join(rows)}</table>"
                 if rows else '<p class="none">no measured line in the outputs: run the notebook (<code>make notebooks</code>)</p>')
        wrong = inline(e["wrong"].rstrip(".")) if e["wrong"] else '<span class="none">not given</span>'
        why = inline(e["why"].rstrip(".")) if e["why"] else '<span class="none">not given</span>'
        items.append(f"<li><p>{inline(e['question'])}</p>{table}"
                     f'<p class="ww"><b>Common wrong answer:</b> {wrong}. <b>Why:</b> {why}.</p></li>')
    parts = [f"<ol>{''.join(items)}</ol>"]
    qs = quiz(nb)
    if qs:
        none = '<span class="none">no reason given</span>'
        rows = "".join(f"<tr><td>{q['n']}</td><td class=\"label\">{html.escape(q['question'])}</td>"
                       f"<td class=\"value\"><b>{html.escape(q['measured'])}</b></td><td>{html.escape(q['tolerance'])}</td>"
                       f"<td>{inline(q['why']) if q['why'] else none}</td></tr>"
                       for q in qs)
        parts.append(f"<h2>Quiz</h2><table><tr><th>#</th><th>question</th><th>answer</th><th>right within</th>"
                     f"<th>why</th></tr>{rows}</table>")
    for ex in exercises(nb):
        several = "," in str(ex["grade_id"])
        points = f" · check{'s' if several else ''} <code>{html.escape(str(ex['grade_id']))}</code>, " \
                 f"{ex['points']} points{' in all' if several else ''}" \
            if ex["points"] is not None else ""
        parts.append(f'<div class="exercise"><h2>Exercise</h2><p><code>{html.escape(ex["signature"])}</code>'
                     f"{points}. The model solution (the body that replaces the stub):</p>"
                     f"<pre>{html.escape(ex['solution'])}</pre></div>")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>Answer key · {html.escape(title_of(nb))}</title>{KEY_CSS}</head><body>"
            f"<h1>{inline(title_of(nb))}</h1>"
            f'<p class="sub">reshard · answer key · from {html.escape(source_name)} as committed: each Predict\'s '
            f"measured answers, what counts as right, the common wrong answer and why; the quiz; the model "
            f"solution.</p>"
            f"{''.join(parts)}</body></html>\n")


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
            lacks = [w for w, ok in (("a measured line", e["measured"]), ("reshard.wrong", e["wrong"]),
                                     ("reshard.why", e["why"]),
                                     ("reshard.accept for every value", e["measured"] and
                                      all(e["accept"].get(label) for label, _ in e["measured"]))) if not ok]
            if lacks:
                missing += 1
                print(f"{path.name}: Predict {n} lacks " + ", ".join(lacks))
        for q in quiz(nb):
            if not q["why"] or q["measured"] == "—":
                missing += 1
                print(f"{path.name}: quiz question {q['n']} lacks " + ", ".join(
                    w for w, ok in (("a measured answer", q["measured"] != "—"), ("its why (reshard.quiz)", q["why"]))
                    if not ok))
        if written:
            print(f"key: {', '.join(str(p) for p in written)}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
