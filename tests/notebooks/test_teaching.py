"""The teaching rules (teaching.py) on every committed notebook, and proof that they catch."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import teaching  # noqa: E402

NOTEBOOKS = sorted((Path(__file__).parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_keeps_the_teaching_rules(nb):
    found = teaching.problems(nb)
    assert not found, "\n".join(found)


def cell(kind, src, tags=(), outputs=None):
    c = {"cell_type": kind, "metadata": {"tags": list(tags)}, "source": src}
    if kind == "code":
        c["outputs"] = outputs or []
        c["execution_count"] = None
    return c


def write(tmp_path, cells):
    p = tmp_path / "01-x.ipynb"
    p.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return p


GOOD = [
    cell("markdown", "# 01 · What moves?\n\nSee the [glossary](00-index.ipynb#Glossary)."),
    cell("markdown", "**Predict.** How many keys move?", ["predict"]),
    cell("code", "let guess = Guess::none();", ["guess"]),
    cell("code", "println!(\"91%\");", outputs=[{"output_type": "stream", "name": "stdout", "text": "91%\n"}]),
    cell("markdown", "**Why.** Because.", ["answer"]),
]


def test_a_good_notebook_passes(tmp_path):
    assert teaching.problems(write(tmp_path, GOOD)) == []


def test_a_guess_cell_may_go_on_with_the_observe_code(tmp_path):
    cells = json.loads(json.dumps(GOOD))
    cells[2] = cell("code", "// first your guess\nlet guess = Guess::none(); // e.g. Guess::percent(9.0)\n"
                    "let m = measure();\nprint!(\"{}\", guess.versus_share(m));", ["guess"])
    assert teaching.problems(write(tmp_path, cells)) == []


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda c: c.__setitem__(0, cell("markdown", "# 01 · 91% move\n[g](00-index.ipynb#Glossary)")), "question mark"),
        (lambda c: c.__setitem__(3, cell("code", "x;\n" * 16)), "16 lines"),
        (lambda c: c.__setitem__(3, cell("code", "x" * 101)), "101 characters"),
        (lambda c: c.__setitem__(3, cell("code", "t.evcxr_display();\nchart")), "show!["),
        (lambda c: c.__setitem__(3, cell("code", "x", outputs=[
            {"output_type": "stream", "name": "stdout", "text": "y" * 120}])), "120 columns"),
        (lambda c: c.__setitem__(3, cell("code", "x", outputs=[
            {"output_type": "stream", "name": "stdout", "text": "document 9% · measured 91% ≠"}])), "≠"),
        (lambda c: c.__delitem__(2), "guess"),
        (lambda c: c.__setitem__(2, cell("code", "let m = 91;\nlet guess = Guess::none();", ["guess"])),
         "opens with the guess"),
        (lambda c: c.__setitem__(2, cell("code", "let guess = Guess::none();", ["guess", "answer"])),
         "can't also be an `answer`"),
        (lambda c: c.__delitem__(4), "no `answer` cell"),
        (lambda c: c.__setitem__(4, cell("markdown", "**Why.** $x^2$", ["answer"])), "LaTeX"),
        (lambda c: c.__setitem__(4, cell("markdown", "**Why.** the least possible share", ["answer"])), "floor"),
        (lambda c: c.__setitem__(1, cell("markdown", "**Predict.** a?\n\n**Why.** b", ["predict"])), "split"),
        (lambda c: c.__setitem__(0, cell("markdown", "# 01 · What moves?")), "glossary"),
        (lambda c: c.__setitem__(3, cell("code", "let keys: usize = 5;")), "n_keys"),
        (lambda c: c.__setitem__(3, cell("code", "x", outputs=[{"output_type": "display_data", "data": {
            "text/html": "<img src=\"data:image/svg+xml;base64," + "A" * 420_000 + "\">"}}])), "bytes"),
    ],
)
def test_each_rule_catches(tmp_path, change, expected):
    cells = json.loads(json.dumps(GOOD))
    change(cells)
    found = teaching.problems(write(tmp_path, cells))
    assert any(expected in f for f in found), found


def test_a_name_only_an_answer_cell_defines_breaks_the_student_edition(tmp_path):
    cells = json.loads(json.dumps(GOOD))
    cells.insert(4, cell("code", "let floor = 1.0 / 11.0;", ["answer"]))
    cells.append(cell("code", "println!(\"{}\", floor);"))
    assert any("only the answer cell" in f for f in teaching.problems(write(tmp_path, cells)))
    cells[-1] = cell("code", "let floor = 0.5;\nprintln!(\"{}\", floor);")  # its own: fine
    assert not any("only the answer cell" in f for f in teaching.problems(write(tmp_path, cells)))
    cells[4] = cell("code", "{\n    let floor = 1.0 / 11.0;\n    floor\n}", ["answer"])  # a block: fine
    cells[-1] = cell("code", "println!(\"{}\", 1);")
    assert not any("only the answer cell" in f for f in teaching.problems(write(tmp_path, cells)))
