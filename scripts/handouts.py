"""Write the teacher's and the student's edition of every notebook (`make handouts`).

    handouts/teacher/NN-name.html   the committed notebook: every cell, every output
    handouts/teacher/NN-name.pdf    the same, printed by a headless Chromium (A4 portrait)
    handouts/student/NN-name.ipynb  to hand out and run: outputs cleared, answers removed, every code
                                    cell numbered on its first line (`// cell 7`); its `:dep reshard`
                                    path points at the crate from handouts/student/
    handouts/student/NN-name.html   the worksheet for paper: the story, the questions, a labelled
    handouts/student/NN-name.pdf    line per asked value, Why boxes, and no code ("run cell 7")
    handouts/teacher/NN-key.html    the answer key: per asked value the measured answer, what counts
    handouts/teacher/NN-key.pdf     as right and why, run-dependence, the common wrong answer; the
                                    quiz's answers; the model solution (scripts/answer_key.py)

The committed notebooks are the teacher's edition (`make test` proves their outputs are what the
crate computes today), so nothing is re-executed here. The editions come from the cell tags and
the Predicts' metadata (scripts/editions.py, tests/notebooks/teaching.py): the student's drops
every cell tagged `answer` (a dropped Why leaves a box to write in), clears every output, gives each
asked value a labelled line, and replaces the exercise's model solution by `todo!(…)`; the printed
worksheet (`editions.worksheet`) turns each code cell into "run cell N"; each edition has its own
"How to use" text.

Pages fit A4 and Letter portrait (A4 is the narrower): code and text outputs are at most 100
columns (the teaching rules check that), set in a monospace font small enough for 100 columns to
fit 186 mm, tables wrap, images scale to the page. The HTML needs no network: the CDN scripts
nbconvert adds (require.js, MathJax) are removed, and the notebooks write formulas in Unicode.

PDFs need Chromium (`chromium`, `chromium-browser`, `google-chrome`, or $CHROMIUM); without one
the HTML is still written and a message says how to get the PDFs (Debian: apt install chromium).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

import answer_key  # scripts/answer_key.py: handouts/teacher/NN-key.html and .pdf
import editions  # scripts/editions.py: the teacher's, the student's and the learner's editions
import vega_inline  # scripts/vega_inline.py: explorables live in the HTML, their picture on paper
from doctor import find_chromium  # scripts/doctor.py: the same Chromium `make doctor` reports

REPO = Path(__file__).resolve().parent.parent

# A4 minus 12 mm margins is 186 mm = 703 CSS px; 100 columns of a monospace font whose
# glyphs are 0.6 em wide take 660 px at 11 px, leaving room for the code box's padding.
PRINT_CSS = """
<style>
@page { size: A4 portrait; margin: 12mm; }
html, body { max-width: 703px; margin: 0 auto; }
body { font-size: 13px; }
.jp-InputPrompt, .jp-OutputPrompt { display: none !important; }
.jp-Cell, .jp-Notebook { padding-left: 0 !important; padding-right: 0 !important; }
.jp-Notebook { padding: 0 !important; }
pre, code, .jp-CodeMirrorEditor, .highlight pre, .jp-OutputArea-output pre {
  font-size: 11px !important; line-height: 1.3 !important;
  white-space: pre-wrap !important; overflow-wrap: anywhere; }
.jp-OutputArea-output { overflow-x: visible !important; }
img, svg { max-width: 100% !important; height: auto !important; }
table { max-width: 100% !important; table-layout: auto; border-collapse: collapse; }
td, th { overflow-wrap: break-word; font-size: 12px; }
.jp-InputArea, img, tr { break-inside: avoid-page; }
.jp-InputArea-editor, .jp-CodeMirrorEditor, .cm-editor, .highlight { padding-top: 0 !important; padding-bottom: 0 !important; margin: 0 !important; }
.jp-InputArea-editor { padding: 3px 6px !important; }
.cm-editor { white-space: normal !important; }  /* its newlines around the code rendered as blank lines */
.jp-Cell { padding-top: 2px !important; padding-bottom: 2px !important; }
.highlight pre { margin: 0 !important; }
.why-box { border: 1px solid #555; min-height: 7em; margin: 0.5em 0; padding: 0.4em; }
.edition { font-size: 11px; color: #444; border-bottom: 1px solid #999; margin-bottom: 1em; }
</style>
"""

# The printed worksheet (editions.worksheet): labelled lines to write on, "run cell N" lines, the
# parameters as a short list, a box to copy an output into. Greyscale, no code blocks.
WORKSHEET_CSS = """
<style>
body { font-size: 12.5px; }
.jp-Cell { padding-top: 1px !important; padding-bottom: 1px !important; }
.jp-RenderedHTMLCommon p { margin-top: 0.3em !important; margin-bottom: 0.3em !important; }
.answer-lines { margin: 0.2em 0 0.6em; break-inside: avoid-page; }
.answer-lines .lines-title { margin: 0 0 0.1em !important; }
.answer-line { border-bottom: 1px solid #333; height: 2.1em; display: flex; align-items: flex-end;
  margin: 0 0 0.15em; }
.answer-line .label { font-size: 11px; color: #222; width: 55%; padding-bottom: 2px; }
p.run { font-size: 11.5px; color: #222; margin: 0.15em 0 !important; padding-left: 0.6em;
  border-left: 3px solid #999; }
ul.params { font-size: 11px; margin: 0.1em 0 0.4em; columns: 2; column-gap: 1.5em; }
ul.params li { break-inside: avoid; }
.copy-box { border: 1px dashed #555; min-height: 12em; margin: 0.3em 0 0.6em;
  background-image: linear-gradient(#ddd 1px, transparent 1px), linear-gradient(90deg, #ddd 1px, transparent 1px);
  background-size: 1em 1em; break-inside: avoid-page; }
.why-box { min-height: 6em; }
</style>
"""

# The editions are pure transforms (scripts/editions.py); `make lab`'s learner copies use them too.
student_edition = editions.student_edition
teacher_edition = editions.teacher_edition
runnable_from = editions.runnable_from


def to_html(nb, edition: str) -> str:
    """`nb` as a printable page; `edition` "teacher" (a notebook), or "student" (a worksheet from
    editions.worksheet: markdown cells only)."""
    # Explorables: live in the teacher's HTML (its PDF prints their picture), a picture in the worksheet.
    nb = vega_inline.live_outputs(nb) if edition == "teacher" else vega_inline.static_outputs(nb)
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    # No network at print time: drop the CDN scripts (nothing here needs them).
    body = re.sub(r'<script[^>]*src="https?://[^"]*"[^>]*>\s*</script>', "", body)
    body = re.sub(r"<script[^>]*>\s*MathJax\.Hub\.Config.*?</script>", "", body, flags=re.S)
    body = body.replace("</head>", PRINT_CSS + (WORKSHEET_CSS if edition == "student" else "") + "</head>", 1)
    body = vega_inline.add_scripts(body)  # Vega inlined where an explorable is (no network)
    label = {"teacher": "Teacher's edition: every answer and output.",
             "student": "Student's worksheet: predict on paper, run the numbered cells of the lab's .ipynb, "
                        "explain why."}[edition]
    return re.sub(r"(<body[^>]*>)", rf'\1<div class="edition">reshard · {label}</div>', body, count=1)


def print_pdf(chromium: str, html: Path, pdf: Path) -> None:
    with tempfile.TemporaryDirectory() as profile:
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
               f"--user-data-dir={profile}", f"--print-to-pdf={pdf}", html.resolve().as_uri()]
        subprocess.run(cmd, check=True, capture_output=True, timeout=180)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*", type=Path)
    ap.add_argument("--out", type=Path, default=REPO / "handouts")
    ap.add_argument("--pdf", choices=["auto", "never", "always"], default="auto",
                    help="auto: PDFs when a Chromium is found (default)")
    args = ap.parse_args(argv)
    notebooks = args.notebooks or sorted((REPO / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    chromium = find_chromium() if args.pdf != "never" else None
    if args.pdf == "always" and not chromium:
        print("no Chromium found for the PDFs: install one (Debian: apt install chromium) or set CHROMIUM")
        return 2
    for edition in ("teacher", "student"):
        (args.out / edition).mkdir(parents=True, exist_ok=True)
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        nbformat.write(runnable_from(student_edition(nb), path.parent, args.out / "student"),
                       args.out / "student" / path.name)
        books = {"teacher": teacher_edition(nb), "student": editions.worksheet(nb)}
        for edition, book in books.items():
            html = args.out / edition / (path.stem + ".html")
            html.write_text(to_html(book, edition))
            written = [html.name]
            if chromium:
                print_pdf(chromium, html, html.with_suffix(".pdf"))
                written.append(html.with_suffix(".pdf").name)
            print(f"{edition:>7}: {', '.join(written)}")
        written = answer_key.write(nb, path, args.out / "teacher", chromium)
        print(f"    key: {', '.join(p.name for p in written)}")
    if not chromium and args.pdf == "auto":
        print("PDFs skipped: no Chromium found (Debian: apt install chromium; or set CHROMIUM=/path)")
    print(f"handouts in {args.out}/teacher and {args.out}/student")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
