"""The teaching rules (teaching.py) on every committed notebook, and proof that they catch.

The general rules are shown on GOOD, a few cells; the lab rules (issues 18 + 19: the budget, the
leak gate, untagged answers, the frame, the exercise) on fixtures/lab.ipynb, a small lab that keeps
every rule, each test planting one violation in a copy."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import teaching  # noqa: E402

NOTEBOOKS = sorted((Path(__file__).parents[2] / "notebooks").glob("*.ipynb"))
LAB = Path(__file__).parent / "fixtures" / "lab.ipynb"


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
    assert teaching.problems(write(tmp_path, GOOD), lab=False) == []


def test_a_guess_cell_may_go_on_with_the_observe_code(tmp_path):
    cells = json.loads(json.dumps(GOOD))
    cells[2] = cell("code", "// first your guess\nlet guess = Guess::none(); // as Guess::percent(…)\n"
                    "let m = measure();\nprint!(\"{}\", guess.versus_share(m));", ["guess"])
    assert teaching.problems(write(tmp_path, cells), lab=False) == []


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
    found = teaching.problems(write(tmp_path, cells), lab=False)
    assert any(expected in f for f in found), found


def test_a_name_only_an_answer_cell_defines_breaks_the_student_edition(tmp_path):
    cells = json.loads(json.dumps(GOOD))
    cells.insert(4, cell("code", "let floor = 1.0 / 11.0;", ["answer"]))
    cells.append(cell("code", "println!(\"{}\", floor);"))
    assert any("only the answer cell" in f for f in teaching.problems(write(tmp_path, cells), lab=False))
    cells[-1] = cell("code", "let floor = 0.5;\nprintln!(\"{}\", floor);")  # its own: fine
    assert not any("only the answer cell" in f for f in teaching.problems(write(tmp_path, cells), lab=False))
    cells[4] = cell("code", "{\n    let floor = 1.0 / 11.0;\n    floor\n}", ["answer"])  # a block: fine
    cells[-1] = cell("code", "println!(\"{}\", 1);")
    assert not any("only the answer cell" in f for f in teaching.problems(write(tmp_path, cells), lab=False))


# ---- the lab rules ---------------------------------------------------------------------------


def lab_cells():
    """The fixture's cells, sources and output texts joined into strings (easier to change)."""
    cells = json.loads(LAB.read_text())["cells"]
    for c in cells:
        c["source"] = teaching.text(c["source"])
        for o in c.get("outputs", []):
            if "text" in o:
                o["text"] = teaching.text(o["text"])
    return cells


def lab_found(tmp_path, cells):
    p = tmp_path / "01-lab.ipynb"
    nb = json.loads(LAB.read_text())
    nb["cells"] = [{**c, "id": c.get("id", f"cell-{i}")} for i, c in enumerate(cells)]
    p.write_text(json.dumps(nb))
    return teaching.problems(p)  # a numbered lab: the lab rules apply by its name


def test_the_lab_fixture_keeps_every_rule(tmp_path):
    assert lab_found(tmp_path, lab_cells()) == []


def test_the_lab_rules_skip_the_index(tmp_path):
    p = tmp_path / "00-index.ipynb"
    p.write_text(json.dumps({"cells": GOOD, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert teaching.problems(p) == []
    assert teaching.is_lab(Path("08-x.ipynb")) and not teaching.is_lab(Path("00-index.ipynb"))


def md(src, tags=(), **meta):
    c = cell("markdown", src, tags)
    c["metadata"].update(meta)
    return c


def index_of(cells, tag):
    return next(i for i, c in enumerate(cells) if tag in c["metadata"].get("tags", []))


def predict_step(n):
    """One more whole step: a Predict with its metadata, a guess cell with a book line, a Why."""
    return [
        md(f"**Predict.** Question {n}?", ["predict"], reshard={"wrong": "w", "why": "y"}),
        cell("code", f'let guess_{n} = Guess::none();\nprint!("{{}}", book.count("q{n}", guess_{n}, 1));', ["guess"]),
        md("**Why.** Because.", ["answer"]),
    ]


def plant(where, *new):
    """Insert cells before the cell tagged `where`."""
    def change(c):
        i = index_of(c, where)
        c[i:i] = list(new)
    return change


def retag(tag, new_tags):
    def change(c):
        c[index_of(c, tag)]["metadata"]["tags"] = new_tags
    return change


def edit(tag, fn):
    def change(c):
        i = index_of(c, tag)
        c[i] = fn(c[i])
    return change


def set_source(cell_, src):
    cell_["source"] = src
    return cell_


def drop_meta(path):
    def fn(c):
        d = c["metadata"]
        for k in path[:-1]:
            d = d[k]
        del d[path[-1]]
        return c
    return fn


WORDS = " ".join(["word"] * 1_450)
CODE_LINES = "\n".join(f"let x{i} = {i};" for i in range(15))


@pytest.mark.parametrize(
    "change, expected",
    [
        # the budget
        (plant("exercise", *sum((predict_step(n) for n in range(5)), [])), "7 Predicts (at most 6)"),
        (plant("exercise", md(WORDS)), "student-visible words (at most 1,500)"),
        (plant("exercise", *[cell("code", CODE_LINES) for _ in range(16)]), "code lines (at most 250)"),
        (plant("exercise", *[cell("code", "x;") for _ in range(21)]), "31 code cells (at most 30)"),
        # the leak gate: a Why's bold figure in a cell's source, or in an output, above its Predict
        (lambda c: c.__setitem__(4, md("## Step 1 · 90.9% of what?")), "bold '90.9%' is already visible in cell 4"),
        (lambda c: c[6]["outputs"][0].__setitem__("text", c[6]["outputs"][0]["text"] + "new node: 9,091 keys\n"),
         "bold '9,091' is already visible in cell 6"),
        # answer-bearing text left untagged
        (plant("exercise", md("**Predict.** And with 12 nodes?")), "says Predict but is not tagged `predict`"),
        (plant("exercise", md("Go deeper. Predict: and with 12 nodes?")), "says Predict but is not tagged"),
        (plant("exercise", md("**Why it is so.** Because.")), "holds a **Why but is not tagged `answer`"),
        # the frame
        (lambda c: c[0].__setitem__("source", c[0]["source"].replace("**Assumes:**", "Assumes:")), "lacks **Assumes:**"),
        (lambda c: c[0].__setitem__("source", c[0]["source"].replace("**DDIA:**", "DDIA:")), "lacks **DDIA:**"),
        (lambda c: c.append(md("The end.")), "lacks **Next:**"),
        (retag("how-to-use", []), "0 cells tagged `how-to-use`"),
        (plant("exercise", md("How to use, again.", ["how-to-use"])), "2 cells tagged `how-to-use`"),
        (retag("predictions", []), "no code cell tagged `predictions`"),
        (retag("parameters", []), "0 cells tagged `parameters`"),
        # the Predict's metadata and its book line
        (edit("predict", drop_meta(["reshard", "wrong"])), "lacks metadata reshard.wrong"),
        (edit("predict", drop_meta(["reshard", "why"])), "lacks metadata reshard.why"),
        (edit("guess", lambda c: set_source(c, "let guess_share = Guess::none();\nprint!(\"{}\", moved);")),
         "no `book.share(\"label\", guess, measured)`"),
        # the exercise
        (retag("solution", []), "no exercise"),
        (edit("solution", lambda c: set_source(c, "fn ring_owner(p: &[(u32, usize)], h: u32) -> usize {\n    0\n}")),
         "lacks `// BEGIN SOLUTION`"),
        (edit("solution", drop_meta(["nbgrader"])), "the solution cell lacks nbgrader metadata"),
        (retag("check", []), "must be its check, tagged `check`"),
        (edit("check", drop_meta(["nbgrader", "points"])), "the check cell lacks nbgrader grading metadata"),
        # words
        (plant("predict", md("The lcm of 10 and 11 is 110.")), "first use of \"lcm\""),
        (plant("exercise", md("The floor is changed nodes / nodes after.")), "|Δ| ÷ max(old, new)"),
    ],
)
def test_each_lab_rule_catches(tmp_path, change, expected):
    cells = lab_cells()
    change(cells)
    found = lab_found(tmp_path, cells)
    assert any(expected in f for f in found), "\n".join(found)


def test_a_figure_recalled_plain_or_shown_below_its_predict_is_no_leak(tmp_path):
    cells = lab_cells()
    # the Why's figure in an earlier step's answer cell, in a later cell, and plain in the Why of step 2
    cells.insert(index_of(cells, "exercise"), md("Recall: 90.9% moved, and 9,091 keys landed on the new node."))
    cells[7]["source"] += "\n\nThe new node's share is recalled below."
    assert lab_found(tmp_path, cells) == []


def test_a_run_dependent_output_meeting_a_figure_by_chance_is_no_leak(tmp_path):
    # lab 09 once printed "started in 1.04 s" above a Why whose figure was **1.04**: a timing
    # changes every run and gives nothing away; the same cell's source still counts
    cells = lab_cells()
    cells[6]["outputs"][0]["text"] += "new node: 9,091 keys\n"
    cells[6]["metadata"]["tags"] = ["run-dependent"]
    assert not any("'9,091' is already visible" in f for f in lab_found(tmp_path, cells))
    cells[6]["source"] += "\n// 9,091"
    assert any("'9,091' is already visible in cell 6" in f for f in lab_found(tmp_path, cells))


def test_a_figure_inside_a_name_or_a_clock_time_is_not_that_figure():
    assert teaching.figure_in("15", "15 splits") and teaching.figure_in("15", "(15)")
    assert teaching.figure_in("9,091", "keys: 9,091.")
    assert not teaching.figure_in("15", "events__p15") and not teaching.figure_in("15", "v15")
    assert not teaching.figure_in("18", "until 18:00:00.000") and not teaching.figure_in("90.9", "190.9")


def test_the_lab_budget_counts_as_labcheck_does():
    size = teaching.budget(lab_cells())
    # counted by hand from fixtures/lab.ipynb: 2 Predicts; code lines 3+1+3+3+6+3 + 4+1+1 (the quiz) + 1;
    # 10 code cells
    assert size["predicts"] == 2
    assert size["code_lines"] == 26 and size["code_cells"] == 10
    assert teaching.student_words("a [link](http://x.y/z) <b>b</b> — 1,500") == 4


# ---- findings and grading, nothing given away (issue 27, "A course a teacher adopts") ---------

REPO = Path(__file__).resolve().parents[2]


def graded_cells():
    """The lab fixture: every Predict with its finding id and accepted ranges, forms-only guess
    examples, and a quiz whose building cell is tagged `quiz` with a why per question."""
    return lab_cells()


def test_the_graded_fixture_keeps_every_rule(tmp_path):
    assert lab_found(tmp_path, graded_cells()) == []


def quiz_cell(c):
    return next(x for x in c if "quiz" in x["metadata"].get("tags", []))


def predicts(c):
    return [x for x in c if "predict" in x["metadata"].get("tags", [])]


def second_guess(fn):
    """Change the guess cell of the second Predict (keys on the new node: 9,091)."""
    def change(c):
        i = c.index(predicts(c)[1]) + 1
        c[i] = fn(c[i])
    return change


def add_output(i, text_):
    def change(c):
        c[i]["outputs"].append({"output_type": "stream", "name": "stdout", "text": text_})
    return change


@pytest.mark.parametrize(
    "change, expected",
    [
        # every Predict: its finding, and a range that counts as right for each value it asks
        (edit("predict", drop_meta(["reshard", "finding"])), "lacks metadata reshard.finding"),
        (edit("predict", drop_meta(["reshard", "accept"])), "reshard.accept has no range for"),
        (edit("predict", lambda c: (c["metadata"]["reshard"]["accept"].update(other="x"), c)[1]),
         "reshard.accept names 'other'"),
        (edit("predict", lambda c: (c["metadata"]["reshard"].update(run_dependent={"nope": "1–2"}), c)[1]),
         "reshard.run_dependent names 'nope'"),
        # a question asked after running: marked, so the worksheet says which cell to run first
        (edit("predict", lambda c: set_source(c, c["source"] + " Read it off the chart above.")),
         "set metadata reshard.after_run"),
        (edit("predict", lambda c: (c["metadata"]["reshard"].update(after_run=""), c)[1]),
         "reshard.after_run is true, or a few words"),
        # guess examples are forms: in a guess cell, in any code comment, in the prose
        (edit("guess", lambda c: set_source(c, c["source"].replace("Guess::percent(…)", "Guess::percent(9.0)"))),
         "the guess example shows a value, Guess::percent(9.0)"),
        (plant("exercise", cell("code", "let x = 1; // e.g. Guess::count(12_000)")),
         "the guess example shows a value, Guess::count(12_000)"),
        (edit("how-to-use", lambda c: set_source(c, c["source"] + " For example `Guess::percent(40.0)`.")),
         "the guess example shows a value, Guess::percent(40.0)"),
        (edit("quiz", lambda c: c) if False else
         (lambda c: c.__setitem__(c.index(quiz_cell(c)) + 1, cell(
             "code", "let answers = [Guess::none(), Guess::none()]; // e.g. Guess::percent(50.0)", ["guess"]))),
         "Guess::percent(50.0)"),
        # a guess comment shows no answer: no figure at or near a measured value, no output's shape
        (second_guess(lambda c: set_source(c, c["source"].replace("as Guess::count(…)", "about 9,100?"))),
         "a guess comment holds 9,100, at or near the answer (keys on the new node, 10 → 11: 9,091)"),
        (second_guess(lambda c: set_source(c, c["source"].replace("as Guess::count(…)", "a reply like \"MOVED 866 D\""))),
         "a guess comment quotes an output with a value"),
        # two figures above a Predict that make its answer
        (add_output(6, "old nodes keep 18,182 keys; 27,273 keys sit on nodes 9 and 10\n"),
         "its answer 9,091 ('keys on the new node, 10 → 11') is 27,273 − 18,182"),
        (plant("predict", cell("code", "sample()", outputs=[{"output_type": "stream", "name": "stdout",
                                                              "text": "45,450 of the 50,000 keys sampled\n"}])),
         "its answer 90.9% ('share moved, 10 → 11, hash % N') is 45,450 ÷ 50,000"),
        # "the document" bare: the labs name the article, the checks carry a label
        (plant("exercise", md("As the document says, keys move.")), "says 'the document': name the source article"),
        (add_output(6, "check\n  figure    document  measured\n  moved        90.9%     90.9%  ✓\n"),
         "the crate's default wording of a check"),
        (add_output(6, "These are the document's parameters: the bold numbers in the text are this run's too.\n"),
         "`Params`' own sentence"),
        # the quiz: its building cell tagged, a why per question, a cell to answer in
        (lambda c: quiz_cell(c)["metadata"].update(tags=[]), "not tagged `quiz`"),
        (lambda c: quiz_cell(c)["metadata"]["reshard"].update(quiz=[{"why": "x"}]),
         "reshard.quiz has 1 entries for 2 questions"),
        (lambda c: quiz_cell(c)["metadata"]["reshard"].update(quiz=[{"why": ""}, {"why": "x"}]),
         "the quiz cell lacks metadata reshard.quiz"),
        (lambda c: c[c.index(quiz_cell(c)) + 1]["metadata"].update(tags=[]),
         "the code cell after the quiz is where the reader answers"),
    ],
)
def test_each_findings_rule_catches(tmp_path, change, expected):
    cells = graded_cells()
    change(cells)
    found = lab_found(tmp_path, cells)
    assert any(expected in f for f in found), "\n".join(found)


def test_a_known_coincidence_is_not_a_giveaway(tmp_path):
    cells = graded_cells()
    add_output(6, "old nodes keep 18,182 keys; 27,273 keys sit on nodes 9 and 10\n")(cells)
    assert any("27,273 − 18,182" in f for f in lab_found(tmp_path, cells))
    predicts(cells)[1]["metadata"]["reshard"]["coincidences"] = {"27,273 − 18,182": "why it tells nothing"}
    assert not any("27,273 − 18,182" in f for f in lab_found(tmp_path, cells))


def test_small_figures_runs_and_answers_do_not_count_as_a_pair(tmp_path):
    cells = graded_cells()
    # 9,101 − 10 is the answer, but 10 is a parameter-sized figure; a run-dependent cell's figures
    # (ports, timings) change every run; an answer cell's figures come after the question anyway
    add_output(6, "9,101 keys on 10 nodes\n")(cells)
    cells.insert(7, cell("code", "t", ["run-dependent"], outputs=[
        {"output_type": "stream", "name": "stdout", "text": "started on ports 19,191 and 10,100\n"}]))
    assert not any("two figures printed" in f for f in lab_found(tmp_path, cells)), lab_found(tmp_path, cells)


def test_a_fresh_runs_run_dependent_answer_leaves_the_pair_rule(tmp_path):
    """test_notebooks.py holds a fresh run to the rules too; there a value the Predict lists in
    reshard.run_dependent lands anywhere in its range, so a ratio it meets by chance is no leak.
    The committed notebook's value is still held to the pair rule."""
    cells = graded_cells()
    add_output(6, "old nodes keep 18,182 keys; 27,273 keys sit on nodes 9 and 10\n")(cells)
    label = "keys on the new node, 10 → 11"
    predicts(cells)[1]["metadata"]["reshard"]["run_dependent"] = {label: "9,000–9,200 over runs"}
    p = tmp_path / "01-lab.ipynb"
    nb = json.loads(LAB.read_text())
    nb["cells"] = [{**c, "id": c.get("id", f"cell-{i}")} for i, c in enumerate(cells)]
    p.write_text(json.dumps(nb))
    assert any("27,273 − 18,182" in f for f in teaching.problems(p))
    assert not any("27,273 − 18,182" in f for f in teaching.problems(p, fresh=True))


def test_a_figure_the_question_gives_may_stand_in_the_guess_comment(tmp_path):
    cells = graded_cells()
    p = predicts(cells)[1]
    p["source"] = "**Predict.** Of 9,091 keys sent, how many land on the new node?"
    second_guess(lambda c: set_source(c, c["source"].replace("as Guess::count(…)", "of the 9,091")))(cells)
    assert not any("guess comment" in f for f in lab_found(tmp_path, cells))


def test_every_lab_is_held_to_the_findings_rules(tmp_path):
    cells = graded_cells()
    for c in predicts(cells):
        del c["metadata"]["reshard"]["finding"], c["metadata"]["reshard"]["accept"]
    found = lab_found(tmp_path, cells)
    assert sum("lacks metadata reshard.finding" in f for f in found) == 2, found
    assert sum("reshard.accept has no range" in f for f in found) == 2, found


def test_figures_are_read_as_printed():
    f = {x.text: x for x in teaching.figures("moved 16,671 (25.4%) of 100,000; 0.98× and 49.80%; 160 points; "
                                               "key999999 at 06:00 on 2026-11-30 in \"order:25000\"")}
    assert set(f) == {"16,671", "25.4%", "100,000", "0.98×", "49.80%", "160"}
    assert (f["16,671"].digits, f["100,000"].digits, f["100,000"].places, f["160"].digits) == (5, 1, 6, 2)
    assert f["25.4%"].percent and f["49.80%"].digits == 4 and f["0.98×"].value == 0.98
    assert teaching.figure_of("25.3%").same(teaching.figure_of("25.31%"))
    assert not teaching.figure_of("25.3%").same(teaching.figure_of("25.3"))


def test_comments_are_read_outside_strings():
    src = 'let s = "http://x"; // a "quoted // thing"\nprint!("{}", s); // two\nlet t = 1;'
    assert teaching.comments(src) == [' a "quoted // thing"', " two"]


def write_lab(tmp_path, name, cells):
    p = tmp_path / name
    nb = json.loads(LAB.read_text())
    nb["cells"] = [{**c, "id": c.get("id", f"cell-{i}")} for i, c in enumerate(cells)]
    p.write_text(json.dumps(nb))
    return p


def test_a_finding_is_asked_once_and_recalled_only_later(tmp_path):
    first = write_lab(tmp_path, "01-a.ipynb", graded_cells())
    again = graded_cells()
    for c in again:  # lab 02 asks lab 01's second finding again, and recalls two
        if c["metadata"].get("reshard", {}).get("finding") == "mod-n-moves-most-fixture":
            c["metadata"]["reshard"]["finding"] = "something-new"
    again.insert(4, md("Recall: 90.9%.", reshard={"recalls": ["mod-n-moves-most-fixture", "never-asked"]}))
    second = write_lab(tmp_path, "02-b.ipynb", again)
    found = teaching.course_problems([second, first])
    assert any("02-b.ipynb" in f and "'new-node-share-fixture' is asked again; 01-a.ipynb" in f for f in found), found
    assert any("recalls finding 'never-asked', which no Predict" in f for f in found), found
    assert not any("'mod-n-moves-most-fixture'" in f for f in found), found
    early = graded_cells()
    early.insert(4, md("Recall.", reshard={"recalls": ["something-new"]}))
    found = teaching.course_problems([write_lab(tmp_path, "01-a.ipynb", early), second])
    assert any("recalls finding 'something-new', asked in 02-b.ipynb, not in an earlier lab" in f for f in found)


def test_the_opening_and_the_readme_ask_they_do_not_tell(tmp_path):
    cells = graded_cells()
    cells[0]["source"] += "\n\nHow many keys move? (**90.9%** of them, it turns out.)"
    lab = write_lab(tmp_path, "01-a.ipynb", cells)
    found = teaching.course_problems([lab])
    assert any("01-a.ipynb cell 0: bold '90.9%' is the answer of 01-a.ipynb" in f for f in found), found
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "README.md").write_text("A cluster grows; **9,091** keys land on the new node.\n"
                                    "Write `Guess::percent(12.5)`. **The first cell takes 10–40 s.**\n")
    found = teaching.course_problems([write_lab(tmp_path, "01-a.ipynb", graded_cells())], repo=repo)
    assert any(f.startswith("README.md: bold '9,091' is the answer") for f in found), found
    assert any(f.startswith("README.md: the guess example shows a value, Guess::percent(12.5)") for f in found), found
    assert not any("'10'" in f for f in found), found  # a duration is no answer


def test_every_numeric_example_left_is_far_from_every_answer(tmp_path):
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "guess.rs").write_text("/// `Guess::percent(90.0)` is 90%.\n/// `Guess::percent(40.0)` too.\n"
                                           "#[cfg(test)]\nmod tests { /* Guess::percent(90.5) */ }\n")
    found = teaching.course_problems([write_lab(tmp_path, "01-a.ipynb", graded_cells())], repo=repo)
    assert [f.split(":")[0] + ":" + f.split(":")[1] for f in found if f.startswith("src/")] == ["src/guess.rs:1"], found
    assert "near the answer 90.9% of 01-a.ipynb" in next(f for f in found if f.startswith("src/"))


def test_the_editions_texts_show_no_guess_value(tmp_path, monkeypatch):
    sys.path.insert(0, str(REPO / "scripts"))
    import editions

    monkeypatch.setitem(editions.HOW_TO_USE, "learner", editions.HOW_TO_USE["learner"] + " Try Guess::percent(91.0).")
    found = teaching.course_problems([write_lab(tmp_path, "01-a.ipynb", graded_cells())])
    assert any("HOW_TO_USE['learner']" in f and "near the answer 90.9%" in f for f in found), found
    assert any("learner copy of 01-a.ipynb" in f for f in found), found  # the copy's how-to-use cell


def test_the_course_asks_each_finding_once():
    found = teaching.course_problems([p for p in NOTEBOOKS if teaching.is_lab(p)])
    assert not found, "\n".join(found)


def test_nothing_a_learner_reads_outside_the_labs_gives_an_answer():
    """README.md, the editions' texts and the crate's docs (src/) against every answer of the course."""
    found = teaching.course_problems([p for p in NOTEBOOKS if teaching.is_lab(p)], repo=REPO)
    assert not found, "\n".join(found)


def test_no_text_a_learner_reads_first_states_the_formula_a_predict_asks(tmp_path):
    formulas = {"mod-n-moves-most-fixture": ["min/lcm"], "x": ["1 − (1 − p)^N"]}
    cells = graded_cells()
    cells[4]["source"] += "\n\nA key stays one time in `min / lcm` of the two node counts."
    found = teaching.formula_problems([write_lab(tmp_path, "01-a.ipynb", cells)], formulas=formulas)
    assert any("01-a.ipynb cell 4: states 'min/lcm' above the Predict (cell 5)" in f for f in found), found
    # the same sentence in the Predict's own Why is where it belongs
    cells = graded_cells()
    cells[7]["source"] += " A key stays one time in min/lcm."
    assert teaching.formula_problems([write_lab(tmp_path, "01-a.ipynb", cells)], formulas=formulas) == []
    # README.md states no formula of any finding, however it is spaced or written
    readme = tmp_path / "README.md"
    readme.write_text("The crate computes `P(slow) = 1 - (1 - p)^N` for a fan-out.\n")
    found = teaching.formula_problems([write_lab(tmp_path, "01-a.ipynb", graded_cells())], readme, formulas)
    assert any(f.startswith("README.md: states '1 − (1 − p)^N', the formula of finding 'x'") for f in found), found
    assert teaching.formula_text("1 − 0.99⁴") == teaching.formula_text("1-0.99^4")


def test_the_findings_map_gives_the_formulas_the_course_checks():
    formulas = teaching.finding_formulas()
    assert "1 − (1 − p)^N" in formulas["fan-out-tail-amplification"]
    assert "lag/period" in formulas["async-index-stale-reads"]


def test_a_check_calls_the_crate_by_a_path_no_learner_cell_can_shadow(tmp_path):
    cells = graded_cells()
    check = next(c for c in cells if "check" in c["metadata"].get("tags", []))
    check["source"] = check["source"].replace("::reshard::tutor::exercises::", "exercises::")
    found = lab_found(tmp_path, cells)
    assert any("calls `exercises::ring_owner` by a path a cell of the learner's can shadow" in f for f in found), found
    check["source"] = "let report = ::reshard::tutor::exercises::ring_owner(ring_owner);\nassert!(report.passed());"
    found = lab_found(tmp_path, cells)
    assert any("asserts with `assert!`" in f for f in found), found


def test_a_figure_the_key_quotes_is_printed_by_its_step(tmp_path):
    cells = graded_cells()
    p = predicts(cells)[0]
    p["metadata"]["reshard"]["accept"] = {k: v + " ({{keys that stay}} here)"
                                          for k, v in p["metadata"]["reshard"]["accept"].items()}
    found = lab_found(tmp_path, cells)
    assert any("quotes {{keys that stay}}, which no line `keys that stay: …`" in f for f in found), found
    i = cells.index(p) + 1
    cells[i]["outputs"] = cells[i]["outputs"] + [
        {"output_type": "stream", "name": "stdout", "text": "keys that stay: 9,091 (9.1%)\n"}]
    assert not any("quotes {{keys that stay}}" in f for f in lab_found(tmp_path, cells))
    sys.path.insert(0, str(REPO / "scripts"))
    import answer_key

    assert answer_key.resolve("ranges end {{x}} here", "a: 1\nx: 62.5% full\n") == "ranges end 62.5% full here"
    assert answer_key.resolve("{{missing}}", "x: 1") == "{{missing}}"
