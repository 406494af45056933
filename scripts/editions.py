"""The editions of a lab: pure transforms of a notebook (nbformat node in, new node out).

    teacher_edition(nb)   everything, as committed; "How to use" for the teacher
    student_edition(nb)   the runnable .ipynb a student gets: answers dropped (a Why leaves an
                          empty "Why?" box), outputs cleared, exercise solutions stubbed, a
                          labelled line for each value a Predict asks and each quiz question, and
                          every code cell numbered on its first line (`// cell 7`)
    worksheet(nb)         the same lab for paper (its HTML/PDF): the story, the questions, the
                          labelled lines, the Why boxes; no code: each code cell becomes "run cell
                          N" (the number on its first line in the .ipynb), the parameters a short
                          list, the exercise its task and stub signature
    learner_copy(nb)      the learner's own copy (`make lab`): outputs cleared, every answer kept
                          but collapsed with JupyterLab's own cell metadata, solutions stubbed, a
                          collapsed "Model solution" after each check cell
    runnable_from(nb, home, there)   `:dep reshard = { path = … }` pointed at the crate from `there`

`scripts/handouts.py` (`make handouts`) writes the teacher's and the student's editions;
the lab workspace (`make lab`) writes learner copies. None of these runs a kernel.

Cell tags carry the structure (tests/notebooks/teaching.py): `answer` (gives an answer away),
`predict` (a question), `guess` (the code cell where the guess is written), `parameters`,
`how-to-use` (the one cell whose text each edition replaces), `solution` (an exercise cell whose
model solution lies between `// BEGIN SOLUTION` and `// END SOLUTION`), `check` (the graded cell
after it) and `quiz` (the cell that builds the quiz). A Predict's metadata names what it asks:
`reshard.accept` (one key per asked value, the book label: the worksheet's line labels) and
`reshard.after_run` (true, or what to copy: the question is answered after running the cells above
it, and the worksheet leaves a box to copy what they show). Every field: teaching.py's docstring.

A solution region is replaced exactly as nbgrader's ClearSolutions does it for a kernel whose
language is "rust" when configured with `code_stub = {"rust": RUST_CODE_STUB}`: the lines from the
one holding the begin marker to the one holding the end marker become the stub, indented like the
begin marker. So the student's edition, the learner's copy and nbgrader's release version agree.
"""

from __future__ import annotations

import copy
import os
import re
from pathlib import Path

import nbformat

# The body a learner replaces; nbgrader config: c.ClearSolutions.code_stub = {"rust": RUST_CODE_STUB}
RUST_CODE_STUB = 'todo!("write this: see the task above")'
BEGIN_SOLUTION = "// BEGIN SOLUTION"
END_SOLUTION = "// END SOLUTION"

HOW_TO_USE = {
    "teacher": (
        "**How to use (teacher's edition).** Everything is shown: every output, every Why, the check "
        "tables and the exercise's model solution. To work through it as a student would, run it top "
        "to bottom: under each Predict, write the guess on the first line of the cell below it, then "
        "run that cell; the cells after it say why. The answer key (`make handouts`) gives each "
        "Predict's measured answer on one page."
    ),
    "student": (
        "**How to use (student's worksheet).** On paper first: write each prediction on its "
        "labelled line before you run anything. Then open this lab's `.ipynb`: its code cells are "
        "numbered on their first line (`// cell 7`), and the worksheet says which to run, in order, "
        "and where to write each guess. Compare what they measure with what you wrote; the Why "
        "boxes are for your own reasoning. In the exercise, replace the `todo!` with your code."
    ),
    "learner": (
        "**How to use (your copy).** This copy is yours, with the answers collapsed. At each "
        "Predict, think first, then write your guess on the first line of the cell below it "
        "(`Guess::percent(p)` for p percent, `Guess::count(n)` for a count) and run that cell. "
        "Then click a collapsed "
        "cell (the bar at its left) to reveal the answer and its Why. Your guesses are kept in a "
        "file beside this notebook and tabled at the end, under \"Your predictions\"."
    ),
}

WHY_BOX = '**Why?** Write the reason in your own words.\n\n<div class="why-box"></div>'
PREDICTION_LINE = "**Your prediction:** ______________________________"
BLANK = "______________________________"
# The first line of each code cell of the student edition: the number the worksheet calls it by.
CELL_MARK = "// cell {n}"
CELL_MARK_RE = re.compile(r"^// cell (\d+)$")
# The line a guess cell prints through the lab's `Predictions` book (reshard::tutor::predictions):
# `prediction · <label>: your guess … · measured …` (or `no guess written`).
PREDICTION_OUTPUT = re.compile(
    r"^prediction · (?P<label>.+?): (?:your guess .*?|no guess written) · (?P<kind>measured|model) (?P<value>.+?)\s*$",
    re.MULTILINE)
MODEL_SOLUTION = "**Model solution.**\n\n```rust\n{code}\n```"


def tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", []) or []


def _tagged(cell, *names: str):
    cell.metadata["tags"] = list(names)
    return cell


def set_how_to_use(nb, edition: str):
    """The cell tagged `how-to-use` gets the edition's text (a copy; no such cell: unchanged)."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if "how-to-use" in tags(cell):
            cell.source = HOW_TO_USE[edition]
    return nb


def clear_outputs(nb):
    """Every code cell without outputs or execution count (nbconvert's ClearOutputPreprocessor
    does the same, and also drops metadata this module sets, so it is not used here)."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nb


def stub_source(source: str, stub: str = RUST_CODE_STUB) -> str:
    """`source` with each `// BEGIN SOLUTION` … `// END SOLUTION` region (marker lines included)
    replaced by `stub`, indented like the begin marker. A region left open runs to the end."""
    out, inside = [], False
    for line in source.split("\n"):
        if BEGIN_SOLUTION in line:
            indent = line[: len(line) - len(line.lstrip())]
            out += [indent + s for s in stub.split("\n")]
            inside = True
        elif END_SOLUTION in line:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


def solution_region(source: str) -> str:
    """The model solution's lines between `// BEGIN SOLUTION` and `// END SOLUTION` (the first
    region), as written: what a student's stub stands for."""
    lines = source.split("\n")
    start = next((i for i, l in enumerate(lines) if BEGIN_SOLUTION in l), None)
    if start is None:
        raise ValueError("no // BEGIN SOLUTION line")
    end = next((i for i, l in enumerate(lines) if i > start and END_SOLUTION in l), len(lines))
    return "\n".join(lines[start + 1:end])


BEGIN_HIDDEN = "BEGIN HIDDEN TESTS"
END_HIDDEN = "END HIDDEN TESTS"


def without_hidden_tests(source: str) -> str:
    """`source` without its `// BEGIN HIDDEN TESTS` … `// END HIDDEN TESTS` regions, marker lines
    included: what nbgrader's ClearHiddenTests leaves in a released assignment (it matches the words
    anywhere in a line). Autograding puts them back; a learner's copy never shows them."""
    out, inside = [], False
    for line in source.split("\n"):
        if BEGIN_HIDDEN in line:
            inside = True
        elif END_HIDDEN in line:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


def without_markers(source: str) -> str:
    """The model solution as a reader sees it: the marker lines removed."""
    return "\n".join(l for l in source.split("\n") if BEGIN_SOLUTION not in l and END_SOLUTION not in l)


def stub_solutions(nb):
    """In every cell tagged `solution`, the solution regions become `RUST_CODE_STUB`, and every
    code cell loses its hidden tests (`without_hidden_tests`), as nbgrader releases it (a copy)."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type == "code" and "solution" in tags(cell):
            cell.source = stub_source(cell.source)
        if cell.cell_type == "code" and BEGIN_HIDDEN in cell.source:
            cell.source = without_hidden_tests(cell.source)
    return nb


def teacher_edition(nb):
    """Every cell and output, as committed; "How to use" for the teacher."""
    return set_how_to_use(nb, "teacher")


def student_edition(nb):
    """The runnable worksheet: `answer` cells dropped (a run of answers with a markdown one, a Why,
    leaves one empty Why? box), a labelled line for each value a Predict asks (`reshard.accept`'s
    keys, else the labels its book lines printed; never a value) and for each quiz question,
    outputs cleared, solutions stubbed, "How to use" for the student, and every code cell numbered
    on its first line (`// cell N`) so the printed worksheet (`worksheet`) can name it."""
    labels = predicted_labels(nb)
    quizzes = quiz_questions(nb)
    nb = stub_solutions(clear_outputs(set_how_to_use(nb, "student")))
    cells = []
    for i, cell in enumerate(nb.cells):
        t = tags(cell)
        if "answer" not in t:
            cells.append(cell)
            if "predict" in t:
                line = _tagged(nbformat.v4.new_markdown_cell(prediction_lines(labels.get(i, []))), "prediction-line")
                line.metadata["reshard"] = {"labels": labels.get(i, [])}
                cells.append(line)
            if quizzes.get(i):  # after the cell that shows the questions, before the one that takes answers
                lines = _tagged(nbformat.v4.new_markdown_cell(quiz_lines(quizzes[i])), "quiz-lines")
                lines.metadata["reshard"] = {"questions": [q for q, _ in quizzes[i]]}
                cells.append(lines)
        elif cell.cell_type == "markdown" and not (cells and "why-box" in tags(cells[-1])):
            cells.append(_tagged(nbformat.v4.new_markdown_cell(WHY_BOX), "why-box"))
    nb.cells = cells
    return number_code_cells(nb)


def number_code_cells(nb):
    """Each code cell gets `// cell N` (N = 1, 2, … in order) as its first line, or after its
    leading `:dep` / `:` command lines (a copy)."""
    nb = copy.deepcopy(nb)
    n = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        n += 1
        lines = cell.source.split("\n")
        k = 0
        while k < len(lines) and lines[k].lstrip().startswith(":"):
            k += 1
        lines.insert(k, CELL_MARK.format(n=n))
        cell.source = "\n".join(lines)
    return nb


def cell_number(cell) -> int | None:
    """The number `number_code_cells` gave a code cell."""
    for line in cell.source.split("\n"):
        m = CELL_MARK_RE.match(line.strip())
        if m:
            return int(m.group(1))
    return None


def output_text(cell) -> str:
    """A code cell's printed text (streams and plain-text results)."""
    parts = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append(_text(out["text"]))
        elif "text/plain" in out.get("data", {}):
            parts.append(_text(out["data"]["text/plain"]))
    return "\n".join(parts)


def _text(src) -> str:
    return "".join(src) if isinstance(src, list) else (src or "")


def predicted_labels(nb) -> dict[int, list[str]]:
    """For each Predict (by cell index): the labels of the values it asks, in order: the labels its
    cells' book lines printed (committed outputs), then any `reshard.accept` key they did not print
    (so a notebook without outputs still gets its lines). Labels, never values."""
    predicts = [i for i, c in enumerate(nb.cells) if "predict" in tags(c)]
    found = {}
    for k, p in enumerate(predicts):
        end = predicts[k + 1] if k + 1 < len(nb.cells) and k + 1 < len(predicts) else len(nb.cells)
        seen = []
        for cell in nb.cells[p + 1:end]:
            if cell.cell_type == "code":
                for m in PREDICTION_OUTPUT.finditer(output_text(cell)):
                    if m["label"] not in seen:
                        seen.append(m["label"])
        accept = (nb.cells[p].metadata.get("reshard", {}) or {}).get("accept") or {}
        seen += [label for label in accept if label not in seen]
        found[p] = seen
    return found


def prediction_lines(labels: list[str]) -> str:
    """A line to write on for each asked value, named by its label (one unnamed line without)."""
    if not labels:
        return PREDICTION_LINE
    if len(labels) == 1:
        return f"**Your prediction** ({labels[0]}): {BLANK}"
    rows = "\n".join(f"- {label}: {BLANK}" for label in labels)
    return f"**Your predictions:**\n\n{rows}"


QUIZ_ROW = re.compile(r"^\s+(\d+)\s+(.+?)\s+±\s*(\S+)\s*$", re.M)


def quiz_questions(nb) -> dict[int, list[tuple[str, str]]]:
    """For each cell that builds a quiz (tagged `quiz`, or whose output is a Quiz table): its
    questions and tolerances, in order, read from the committed Quiz table."""
    found = {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        out = output_text(cell)
        rows = [(m.group(2).strip(), "± " + m.group(3)) for m in QUIZ_ROW.finditer(out)] if "quiz.grade(" in out else []
        if rows or "quiz" in tags(cell):
            found[i] = rows
    return found


def quiz_lines(rows: list[tuple[str, str]]) -> str:
    """One numbered line per quiz question, named by the question (never its answer)."""
    body = "\n".join(f"{n}. {q} (right within {tol}): {BLANK}" for n, (q, tol) in enumerate(rows, 1))
    return f"**Your answers to the quiz:**\n\n{body}"


# ---- the printed worksheet ------------------------------------------------------------------------

GUESS_FORM = re.compile(r"Guess::(?:percent|count)\(…\)")
PARAMETER_LINE = re.compile(r"^\s*let\s+(?:mut\s+)?(\w+)\s*(?::[^=]+)?=\s*(.+?);\s*(?://\s*(.*))?$")


def _md(source: str, *tag_names: str):
    return _tagged(nbformat.v4.new_markdown_cell(source), *tag_names)


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _lines_html(title: str, labels: list[str], numbered: bool = False) -> str:
    items = "".join(f'<div class="answer-line"><span class="label">{f"{n}. " if numbered else ""}{_esc(l)}</span>'
                    f'</div>' for n, l in enumerate(labels, 1))
    return f'<div class="answer-lines"><p class="lines-title"><b>{title}</b></p>{items}</div>'


def _run(numbers: list[int], note: str = "") -> str:
    which = f"cell {numbers[0]}" if len(numbers) == 1 else f"cells {numbers[0]}–{numbers[-1]}"
    return f'<p class="run">▶ Run {which}{note}.</p>'


def _parameters(cell, n: int) -> str:
    rows = []
    for line in cell.source.split("\n"):
        m = PARAMETER_LINE.match(line)
        if m:
            what = f" — {_esc(m.group(3).strip())}" if m.group(3) else ""
            rows.append(f"<li><code>{_esc(m.group(1))}</code> = <code>{_esc(m.group(2).strip())}</code>{what}</li>")
    return (f'<p class="run">▶ Run cell {n}: the parameters. To try other values, change one line there and '
            f'run all cells again.</p><ul class="params">{"".join(rows)}</ul>')


def _change_note(cell) -> str:
    """A code cell's first comment when it says what to change (a "Go deeper" cell)."""
    for line in cell.source.split("\n"):
        s = line.strip()
        if CELL_MARK_RE.match(s) or not s:
            continue
        if s.startswith("//") and re.search(r"\b(change|try)\b", s, re.I):
            return ": " + re.sub(r"`([^`]+)`", r"<code>\1</code>", _esc(s.lstrip("/ ").rstrip().rstrip(".")))
        return ""
    return ""


def _signature(source: str) -> str:
    return next((l.strip().rstrip("{").strip() for l in source.split("\n") if re.match(r"\s*(pub\s+)?fn\b", l)), "")


def worksheet(nb):
    """The lab as printed for a student: the student edition with no code. Markdown stays (the
    story, the questions, the exercise's task); each Predict gets its labelled lines; a Predict
    asked after running (`reshard.after_run`) gets a box to copy the output into; each code cell
    becomes a line saying which numbered cell to run (runs of cells joined: "Run cells 3–5"), or
    where to write the guess, or the exercise's stub signature; the parameters cell becomes a
    list of its values; the quiz gets a line per question."""
    pictures = explorable_pictures(nb)
    student = student_edition(nb)
    cells, pending = [], []
    after_box, after_quiz, last_n = None, False, None

    def flush():
        if pending:
            cells.append(_md(_run([n for n, _ in pending], pending[-1][1] if len(pending) == 1 else ""), "run"))
            pending.clear()

    for cell in student.cells:
        t = tags(cell)
        if cell.cell_type == "markdown":
            if "prediction-line" in t:
                flush()
                labels = (cell.metadata.get("reshard", {}) or {}).get("labels") or []
                title = "Your prediction" + ("s" if len(labels) > 1 else "")
                cells.append(_md(_lines_html(title, labels or [""]), "prediction-line"))
                if after_box is not None:
                    cells.append(_md(after_box, "copy-box"))
                    after_box = None
                continue
            if "quiz-lines" in t:
                flush()
                after_quiz = True  # the next code cell takes the answers
                questions = (cell.metadata.get("reshard", {}) or {}).get("questions") or []
                cells.append(_md(_lines_html("Your answers to the quiz", questions, numbered=True), "quiz-lines"))
                continue
            flush()
            if "predict" in t:
                after = (cell.metadata.get("reshard", {}) or {}).get("after_run")
                if after:
                    last = last_n if last_n is not None else "above"
                    what = after if isinstance(after, str) else "what it shows that decides the question"
                    after_box = (f'<p class="after-run"><i>Asked after running: copy here {_esc(what)} '
                                 f'(cell {last}).</i></p><div class="copy-box"></div>')
            cells.append(_md(cell.source, *t))
            continue
        n = last_n = cell_number(cell)
        if cell.get("id") in pictures:  # an explorable the student may see: its default view on paper
            flush()
            cells.append(_md(_run([n], ", then drag its slider: here is what it shows at first")
                             + "\n\n" + pictures[cell["id"]], "run", "explorable-picture"))
            continue
        is_quiz = "quiz" in t or "Quiz::new" in cell.source
        quiz_answers, after_quiz = after_quiz, is_quiz
        if "parameters" in t:
            flush()
            cells.append(_md(_parameters(cell, n), "run"))
        elif "guess" in t and quiz_answers:
            flush()
            cells.append(_md(f'<p class="run">✎ Write your answers in cell {n}, in order, as '
                             f'<code>Guess::percent(…)</code>, then run it.</p>', "run"))
        elif "guess" in t:
            flush()
            forms = list(dict.fromkeys(GUESS_FORM.findall(cell.source))) or list(dict.fromkeys(
                {"share": "Guess::percent(…)", "count": "Guess::count(…)"}[m]
                for m in re.findall(r"\bbook\s*\.\s*(share|count)\s*\(", cell.source))) \
                or ["Guess::percent(…)", "Guess::count(…)"]
            several = len(re.findall(r"^\s*let\s+guess\w*\s*=\s*Guess::", cell.source, flags=re.M)) > 1
            where = "guesses on the <code>let guess_…</code> lines at the top" if several else "guess on the first line"
            cells.append(_md(f'<p class="run">✎ Write your {where} of cell {n} (as '
                             f'<code>{"</code> or <code>".join(forms)}</code>), then run it.</p>', "run"))
        elif "solution" in t:
            flush()
            sig = _signature(cell.source)
            cells.append(_md(f'<p class="run">✎ In cell {n}, write the body of <code>{_esc(sig)}</code> '
                             f'(in place of its <code>todo!</code>).</p>', "run"))
        elif "check" in t:
            if cells and "check-run" in tags(cells[-1]):  # several checks, one per property: one line
                first = cells.pop()["metadata"]["reshard"]["first"]
            else:
                flush()
                first = n
            note = (": it checks your function and names the first input it gets wrong" if first == n else
                    ": each checks one property your function must keep and names the smallest case that breaks it")
            line = _md(_run(list(range(first, n + 1)), note), "run", "check-run")
            line.metadata["reshard"] = {"first": first}
            cells.append(line)
        elif is_quiz:
            flush()
            cells.append(_md(_run([n], ": it works out the quiz and shows only its questions"), "run"))
        else:
            note = _change_note(cell)
            if note:
                flush()
                cells.append(_md(_run([n], note), "run"))
            else:
                pending.append((n, ""))
    flush()
    student.cells = cells
    return student


def explorable_pictures(nb) -> dict[str, str]:
    """cell id → the static picture (an `<img>` of the SVG the crate drew) of each explorable in a
    cell the student keeps (not `answer`): a chart with a slider (issue 28) shows on paper as its
    default view. An explorable in an `answer` cell shows an answer, and stays off the worksheet."""
    import vega_inline  # scripts/vega_inline.py (it does not import this module)

    found = {}
    for cell in nb.cells:
        if cell.cell_type != "code" or "answer" in tags(cell) or not cell.get("id"):
            continue
        for out in cell.get("outputs", []):
            if vega_inline.is_explorable(out):
                alt = vega_inline._text(out["data"].get("text/plain", "")) or "chart"
                found[cell["id"]] = f'<p class="explorable-picture">{vega_inline._picture(out, alt)}</p>'
    return found


def _closed(cell):
    """A markdown answer inside a closed disclosure (`<details>`): JupyterLab un-hides a markdown
    cell's collapsed source whenever it runs the cell (Shift-Enter through it, Run All), so the
    metadata alone would open every Why on the way; the disclosure stays closed until clicked."""
    if cell.cell_type != "markdown" or cell.source.lstrip().startswith("<details>"):
        return cell
    body = cell.source.strip("\n")
    what = "Why" if body.startswith("**Why") else "Model solution" if body.startswith("**Model solution") \
        else "The answer"
    cell.source = f"<details>\n<summary><b>{what}</b> (click to reveal)</summary>\n\n{body}\n\n</details>"
    return cell


def _collapse(cell):
    jl = cell.metadata.setdefault("jupyter", {})
    jl["source_hidden"] = True
    if cell.cell_type == "code":
        jl["outputs_hidden"] = True
    return cell


def learner_copy(nb):
    """The learner's own copy: outputs cleared, "How to use" for the learner, every `answer` cell
    kept but collapsed (JupyterLab's `jupyter.source_hidden` / `outputs_hidden`; a markdown answer
    also inside a closed `<details>`, which running the cell does not open), solutions stubbed,
    and after an exercise's last `check` cell a collapsed `answer` cell with the model solution."""
    solutions = {i: c.source for i, c in enumerate(nb.cells) if c.cell_type == "code" and "solution" in tags(c)}
    nb = stub_solutions(clear_outputs(set_how_to_use(nb, "learner")))
    cells, last_solution = [], None
    for i, cell in enumerate(nb.cells):
        if "answer" in tags(cell):
            _collapse(_closed(cell))
        cells.append(cell)
        if i in solutions:
            last_solution = solutions[i]
        following = next((c for c in nb.cells[i + 1:] if c.cell_type == "code"), None)
        last_check = following is None or "check" not in tags(following)
        if "check" in tags(cell) and last_solution is not None and last_check:
            model = nbformat.v4.new_markdown_cell(MODEL_SOLUTION.format(code=without_markers(last_solution).strip("\n")))
            if cell.get("id"):
                model["id"] = (cell["id"] + "-model")[-64:]
            cells.append(_collapse(_closed(_tagged(model, "answer"))))
            last_solution = None
    nb.cells = cells
    return nb


def runnable_from(nb, home: Path, there: Path):
    """The notebook with its `:dep reshard = { path = ".." }` pointing at the crate from `there`,
    for a notebook that lived in `home` (notebooks/) and is written to `there`."""
    crate = os.path.relpath((Path(home) / "..").resolve(), Path(there).resolve())
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type == "code" and ":dep reshard" in cell.source:
            cell.source = re.sub(r'(:dep reshard = \{ path = )"\.\."', lambda m: f'{m.group(1)}"{crate}"', cell.source)
    return nb
