"""The editions of a lab: pure transforms of a notebook (nbformat node in, new node out).

    teacher_edition(nb)   everything, as committed; "How to use" for the teacher
    student_edition(nb)   the printed worksheet and its runnable .ipynb: answers dropped (a Why
                          leaves an empty "Why?" box), outputs cleared, exercise solutions stubbed,
                          a line to write each prediction on
    learner_copy(nb)      the learner's own copy (`make lab`): outputs cleared, every answer kept
                          but collapsed with JupyterLab's own cell metadata, solutions stubbed, a
                          collapsed "Model solution" after each check cell
    runnable_from(nb, home, there)   `:dep reshard = { path = … }` pointed at the crate from `there`

`scripts/handouts.py` (`make handouts`) writes the teacher's and the student's editions;
the lab workspace (`make lab`) writes learner copies. None of these runs a kernel.

Cell tags carry the structure (tests/notebooks/teaching.py): `answer` (gives an answer away),
`predict` (a question), `how-to-use` (the one cell whose text each edition replaces), `solution`
(an exercise cell whose model solution lies between `// BEGIN SOLUTION` and `// END SOLUTION`)
and `check` (the graded cell after it).

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
        "**How to use (student's worksheet).** Under each Predict, write your prediction on the "
        "line before you look further. Then run the cells on a computer, in order (this lab's "
        "`.ipynb`, or your copy from `make lab`), and compare what they measure with what you wrote. "
        "The Why boxes are for your own reasoning: say why the answer is what it is. In the exercise, "
        "replace the `todo!` with your code; the check cell below it tests your function."
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
# The line a guess cell prints through the lab's `Predictions` book (reshard::tutor::predictions):
# `prediction · <label>: your guess … · measured …` (or `no guess written`).
PREDICTION_OUTPUT = re.compile(
    r"^prediction · (?P<label>.+?): (?:your guess .*?|no guess written) · measured (?P<value>.+?)\s*$",
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


def without_markers(source: str) -> str:
    """The model solution as a reader sees it: the marker lines removed."""
    return "\n".join(l for l in source.split("\n") if BEGIN_SOLUTION not in l and END_SOLUTION not in l)


def stub_solutions(nb):
    """In every cell tagged `solution`, the solution regions become `RUST_CODE_STUB` (a copy)."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type == "code" and "solution" in tags(cell):
            cell.source = stub_source(cell.source)
    return nb


def teacher_edition(nb):
    """Every cell and output, as committed; "How to use" for the teacher."""
    return set_how_to_use(nb, "teacher")


def student_edition(nb):
    """The worksheet: `answer` cells dropped (a run of answers with a markdown one, a Why, leaves
    one empty Why? box), a prediction line after each Predict, outputs cleared, solutions stubbed,
    "How to use" for the student."""
    labels = predicted_labels(nb)
    nb = stub_solutions(clear_outputs(set_how_to_use(nb, "student")))
    cells = []
    for i, cell in enumerate(nb.cells):
        t = tags(cell)
        if "answer" not in t:
            cells.append(cell)
            if "predict" in t:
                line = prediction_lines(labels.get(i, []))
                cells.append(_tagged(nbformat.v4.new_markdown_cell(line), "prediction-line"))
        elif cell.cell_type == "markdown" and not (cells and "why-box" in tags(cells[-1])):
            cells.append(_tagged(nbformat.v4.new_markdown_cell(WHY_BOX), "why-box"))
    nb.cells = cells
    return nb


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
    """For each Predict (by cell index): the labels of the prediction lines its cells printed,
    from the committed outputs, in order (the questions the worksheet gives a line each)."""
    predicts = [i for i, c in enumerate(nb.cells) if "predict" in tags(c)]
    found = {}
    for k, p in enumerate(predicts):
        end = predicts[k + 1] if k + 1 < len(predicts) else len(nb.cells)
        seen = []
        for cell in nb.cells[p + 1:end]:
            if cell.cell_type == "code":
                for m in PREDICTION_OUTPUT.finditer(output_text(cell)):
                    if m["label"] not in seen:
                        seen.append(m["label"])
        found[p] = seen
    return found


def prediction_lines(labels: list[str]) -> str:
    """One line to write on, or one per measured answer, named by its label."""
    if len(labels) <= 1:
        return PREDICTION_LINE
    rows = "\n".join(f"- {label}: ____________________" for label in labels)
    return f"**Your predictions:**\n\n{rows}"


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
    and after each `check` cell a collapsed `answer` cell with the model solution."""
    solutions = {i: c.source for i, c in enumerate(nb.cells) if c.cell_type == "code" and "solution" in tags(c)}
    nb = stub_solutions(clear_outputs(set_how_to_use(nb, "learner")))
    cells, last_solution = [], None
    for i, cell in enumerate(nb.cells):
        if "answer" in tags(cell):
            _collapse(_closed(cell))
        cells.append(cell)
        if i in solutions:
            last_solution = solutions[i]
        if "check" in tags(cell) and last_solution is not None:
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
