"""`make handouts`: the student edition gives nothing away and is a worksheet, the editions
(scripts/editions.py) say how to use each, the answer key holds each Predict's answer on at most
two pages, and every page fits the paper."""

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "tests" / "notebooks"))
import answer_key  # noqa: E402
import editions  # noqa: E402
import handouts  # noqa: E402

NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]-*.ipynb"))
LABS = [p for p in NOTEBOOKS if not p.name.startswith("00-")]
LAB = REPO / "tests" / "notebooks" / "fixtures" / "lab.ipynb"  # a small lab keeping every rule
PAGE_PX = 703  # A4 portrait minus 12 mm margins, in CSS px (Letter is wider)


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("handouts")
    subprocess.run([sys.executable, str(REPO / "scripts" / "handouts.py"), "--out", str(d), "--pdf", "never"],
                   check=True, capture_output=True)
    return d


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_student_edition_has_no_outputs_and_no_answers(out, nb):
    teacher = nbformat.read(nb, as_version=4)
    student = nbformat.read(out / "student" / nb.name, as_version=4)
    nbformat.validate(student)
    assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")
    assert not [c for c in student.cells if "answer" in c.metadata.get("tags", [])]
    answers = [c for c in teacher.cells if "answer" in c.metadata.get("tags", [])]
    whys = [c for c in teacher.cells if "answer" in c.metadata.get("tags", []) and c.cell_type == "markdown"]
    boxes = [c for c in student.cells if "why-box" in c.metadata.get("tags", [])]
    assert (len(boxes) >= 1) == (len(whys) >= 1) and len(boxes) <= len(whys)
    predicts = [c for c in teacher.cells if "predict" in c.metadata.get("tags", [])]
    lines = [c for c in student.cells if "prediction-line" in c.metadata.get("tags", [])]
    assert len(lines) == len(predicts), "a Predict without a line to write the prediction on"
    quiz = [c for c in student.cells if "quiz-lines" in c.metadata.get("tags", [])]
    assert len(student.cells) == len(teacher.cells) - len(answers) + len(boxes) + len(lines) + len(quiz)
    kinds = ["why-box" in c.metadata.get("tags", []) for c in student.cells]
    assert not any(a and b for a, b in zip(kinds, kinds[1:])), "two Why? boxes in a row"
    guesses = [c.source for c in teacher.cells if "guess" in c.metadata.get("tags", [])]
    assert guesses == [unnumbered(c) for c in student.cells if "guess" in c.metadata.get("tags", [])]
    code = [c for c in student.cells if c.cell_type == "code"]
    assert [editions.cell_number(c) for c in code] == list(range(1, len(code) + 1)), "cells numbered 1, 2, …"
    assert "BEGIN SOLUTION" not in "".join(c.source for c in student.cells), "a model solution left in"
    how = [c.source for c in student.cells if "how-to-use" in c.metadata.get("tags", [])]
    assert how in ([], [editions.HOW_TO_USE["student"]])
    html = (out / "student" / (nb.stem + ".html")).read_text()
    # the one picture allowed: an explorable a student may see (not in an answer cell), as its default
    # view, the SVG the crate drew (issue 28); any other <img> is an output that was not cleared
    explorables = [c for c in teacher.cells if c.cell_type == "code" and "answer" not in c.metadata.get("tags", [])
                   and any(EXPLORABLE_MIME in o.get("data", {}) for o in c.get("outputs", []))]
    imgs = re.findall(r"<img[^>]*>", html)
    assert len(imgs) == len(explorables), "the student's page shows a plot: an output was not cleared"
    assert all('src="data:image/svg+xml;base64,' in i for i in imgs), imgs
    assert not re.search(r'<div[^>]*class="[^"]*jp-CodeCell', html), "the printed worksheet shows a code cell"
    assert "https://" not in "".join(re.findall(r"<script[^>]*>", html)), "a script needs the network"
    # every code cell of the .ipynb is named on paper, in order: "Run cell N", "cell N"
    named = sorted({int(n) for a, b in re.findall(r"cells? (\d+)(?:–(\d+))?", html) for n in (a, b) if n})
    assert set(range(1, len(code) + 1)) <= set(named) | {n for a, b in re.findall(r"cells (\d+)–(\d+)", html)
                                                       for n in range(int(a), int(b) + 1)}, named


EXPLORABLE_MIME = "application/vnd.vegalite.v5+json"


def unnumbered(cell) -> str:
    """A student cell's source without the `// cell N` line the edition adds."""
    return "\n".join(l for l in cell.source.split("\n") if not editions.CELL_MARK_RE.match(l.strip()))


def test_the_student_edition_of_an_answer_is_a_box():
    nb = nbformat.v4.new_notebook()
    why = nbformat.v4.new_markdown_cell("**Why.** 1 − 10/11 of the keys move.")
    why.metadata["tags"] = ["answer"]
    check = nbformat.v4.new_code_cell("checks", outputs=[nbformat.v4.new_output("stream", text="91%")])
    check.metadata["tags"] = ["answer"]
    observe = nbformat.v4.new_code_cell("run", outputs=[nbformat.v4.new_output("stream", text="91%")])
    second = nbformat.v4.new_markdown_cell("**Why, continued.** The rest is churn.")
    second.metadata["tags"] = ["answer"]
    nb.cells = [observe, check, why, second]
    student = editions.student_edition(nb)
    assert [c.cell_type for c in student.cells] == ["code", "markdown"]  # one box for both Whys
    assert student.cells[0].outputs == []
    assert "why-box" in student.cells[1].source and "10/11" not in student.cells[1].source


@pytest.mark.skipif(handouts.find_chromium() is None, reason="no Chromium (Debian: apt install chromium)")
@pytest.mark.parametrize("edition", ["teacher", "student"])
def test_no_page_is_wider_than_the_paper(out, edition):
    """Lay every page out in Chromium at the printed width and measure what sticks out."""
    chromium = handouts.find_chromium()
    wide = {}
    for nb in NOTEBOOKS:
        html = (out / edition / (nb.stem + ".html")).read_text()
        # Code and printed text may not wrap either: lay <pre> out unwrapped; none may overflow its box.
        probe = ("<style>html body div pre, html body div.highlight pre{white-space:pre !important}</style>"
                 "<script>window.addEventListener('load',()=>{let w=0,who='';"
                 "for(const e of document.querySelectorAll('body *')){const r=e.getBoundingClientRect();"
                 "const over=e.tagName=='PRE'&&e.scrollWidth>e.clientWidth?e.scrollWidth-e.clientWidth:0;"
                 "const right=r.right+over*1000;"
                 "if(right>w){w=right;who=e.tagName+'.'+e.className+' '+e.textContent.slice(0,40)}}"
                 "document.title='WIDTH '+Math.ceil(w)+' '+who;});</script>")
        with tempfile.TemporaryDirectory() as d:
            page = Path(d) / "page.html"
            page.write_text(html.replace("</body>", probe + "</body>"))
            r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={d}/p",
                                f"--window-size={PAGE_PX},1000", "--virtual-time-budget=5000", "--dump-dom",
                                page.as_uri()], capture_output=True, text=True, timeout=180)
        m = re.search(r"<title>WIDTH (\d+) ([^<]*)</title>", r.stdout)
        assert m, f"{nb.name}: Chromium did not lay the page out: {r.stderr[-300:]}"
        if int(m.group(1)) > PAGE_PX:
            wide[nb.name] = (int(m.group(1)), m.group(2))
    assert not wide, f"wider than {PAGE_PX} px (A4 minus margins), or a code line that wraps: {json.dumps(wide)}"


def test_the_student_edition_runs(out, kernel_pool):
    """A teacher hands out the student's .ipynb: with its answer cells gone it must still run,
    from where `make handouts` wrote it (notebook 01: the most answer cells that define names).
    The exercise's stub compiles; its check cells are left out here, since a check fails (by design)
    until the student has written the function, and a panic ends the test kernel's session."""
    student = nbformat.read(out / "student" / "01-hash-mod-n-and-the-ring.ipynb", as_version=4)
    student.cells = [c for c in student.cells if "check" not in c.metadata.get("tags", [])]
    nb = out / "student" / "01-without-checks.ipynb"
    nbformat.write(student, nb)
    ran = kernel_pool.execute(nb)  # on a worker of the tests' kernel pool: the crate already built
    assert ran.error is None, ran.error  # no failing cell, no panic
    executed = ran.executed
    assert all(c.get("outputs") is not None for c in executed.cells if c.cell_type == "code")


# ---- the editions (scripts/editions.py) on the fixture lab -----------------------------------


def lab():
    return nbformat.read(LAB, as_version=4)


def tagged(nb, tag):
    return [c for c in nb.cells if tag in c.metadata.get("tags", [])]


def words(text):
    return sum(1 for w in re.sub(r"<[^>]+>", " ", text).split() if re.search(r"\w", w))


def test_each_edition_says_how_to_use_it():
    assert set(editions.HOW_TO_USE) == {"teacher", "student", "learner"}
    for edition, text in editions.HOW_TO_USE.items():
        assert words(text) <= 80, (edition, words(text))
    made = {"teacher": editions.teacher_edition(lab()), "student": editions.student_edition(lab()),
            "learner": editions.learner_copy(lab())}
    for edition, nb in made.items():
        assert [c.source for c in tagged(nb, "how-to-use")] == [editions.HOW_TO_USE[edition]]
    # each text is true of its edition: only the student's has lines and boxes, only the learner's collapses
    assert "line" in editions.HOW_TO_USE["student"] and "Why boxes" in editions.HOW_TO_USE["student"]
    assert "collapsed" in editions.HOW_TO_USE["learner"] and "tabled at the end" in editions.HOW_TO_USE["learner"]
    assert "Everything is shown" in editions.HOW_TO_USE["teacher"]


def test_the_teacher_edition_is_the_notebook_with_its_how_to_use():
    nb, teacher = lab(), editions.teacher_edition(lab())
    changed = [i for i, (a, b) in enumerate(zip(nb.cells, teacher.cells)) if a != b]
    assert len(nb.cells) == len(teacher.cells) and changed == [nb.cells.index(tagged(nb, "how-to-use")[0])]


def test_a_solution_region_becomes_the_stub_as_nbgrader_makes_it():
    src = "fn f(x: u32) -> u32 {\n    let y = 1;\n    // BEGIN SOLUTION\n    x + y\n    // END SOLUTION\n}\nf(2)"
    # nbgrader 0.9 ClearSolutions: the lines from BEGIN to END become the stub, indented like BEGIN
    assert editions.stub_source(src) == 'fn f(x: u32) -> u32 {\n    let y = 1;\n    todo!("write this: see the task above")\n}\nf(2)'
    assert editions.RUST_CODE_STUB == 'todo!("write this: see the task above")'
    assert editions.stub_source("no region") == "no region"
    nb = editions.stub_solutions(lab())
    (sol,) = tagged(nb, "solution")
    assert "partition_point" not in sol.source and sol.source.count("todo!(") == 1
    assert sol.source.startswith("fn ring_owner(") and sol.source.endswith("}")
    assert "partition_point" in tagged(lab(), "solution")[0].source  # the input is not changed


def test_the_student_edition_is_a_worksheet():
    student = editions.student_edition(lab())
    assert not tagged(student, "answer") and all(not c.get("outputs") for c in student.cells if c.cell_type == "code")
    kinds = [("predict" in c.metadata.get("tags", []), c.source) for c in student.cells]
    for k, (is_predict, _) in enumerate(kinds):
        if is_predict:
            assert kinds[k + 1][1].startswith("**Your prediction"), "no line to write the prediction on"
    assert tagged(student, "prediction-line")[0].source == \
        "**Your prediction** (share moved, 10 → 11, hash % N): ______________________________"
    assert len(tagged(student, "why-box")) == 2
    assert "todo!(" in tagged(student, "solution")[0].source
    assert tagged(student, "check"), "the check stays: it tests the student's function"
    (quiz,) = tagged(student, "quiz-lines")  # after the cell where the answers are written
    assert quiz.source.splitlines()[2:] == [
        "1. hash % N, 10 → 12: share moved (right within ± 2%): ______________________________",
        "2. hash % N, 10 → 20: share moved (right within ± 2%): ______________________________"]
    assert "83.3" not in quiz.source and "50.0" not in quiz.source
    code = [c for c in student.cells if c.cell_type == "code"]
    assert code[0].source.startswith(':dep reshard = { path = "..", default-features = false, features = ["charts"] }'
                                     '\n// cell 1\nuse reshard::notebook::*;')  # after the `:dep` line
    assert [c.source.split("\n")[0] for c in code[1:4]] == ["// cell 2", "// cell 3", "// cell 4"]
    nbformat.validate(student)


def test_a_predict_with_several_answers_gets_a_line_each():
    nb = lab()
    (p,) = [i for i, c in enumerate(nb.cells) if "predict" in c.metadata.get("tags", [])][:1]
    guess = nb.cells[p + 1]
    guess.outputs = [nbformat.v4.new_output("stream", text=(
        "prediction · share moved, 3 → 4: no guess written · measured 75.0%\n"
        "prediction · share moved, 10 → 11: your guess 9% · measured 91.0%\n"))]
    student = editions.student_edition(nb)
    (line,) = [c.source for c in student.cells if "prediction-line" in c.metadata.get("tags", [])][:1]
    assert "- share moved, 3 → 4: ___" in line and "- share moved, 10 → 11: ___" in line
    # the Predict's accepted labels come too, though the outputs did not print it
    assert "- share moved, 10 → 11, hash % N: ___" in line
    assert "75.0" not in line and "91.0" not in line  # the labels, never the answers


def test_a_notebook_without_outputs_still_gets_its_lines_from_accept():
    nb = editions.clear_outputs(lab())
    labels = [c.metadata["reshard"]["labels"] for c in tagged(editions.student_edition(nb), "prediction-line")]
    assert labels == [["share moved, 10 → 11, hash % N"], ["keys on the new node, 10 → 11"]]


def paper(nb) -> str:
    return "\n".join(c.source for c in editions.worksheet(nb).cells)


def test_the_printed_worksheet_has_no_code():
    nb = lab()
    sheet = editions.worksheet(nb)
    assert all(c.cell_type == "markdown" for c in sheet.cells)
    text = paper(nb)
    for code in ("print!(", "book.share(", "partition_point", "Quiz::new", "assert!(", ":dep"):
        assert code not in text, code
    # which cell to run, where to write each guess, the parameters, the exercise's stub signature
    assert '<p class="run">▶ Run cells 1–2.</p>' in text or '<p class="run">▶ Run cell 1.</p>' in text
    assert "<code>n_keys</code> = <code>100_000</code>" in text
    assert "✎ Write your guess on the first line of cell 3 (as <code>Guess::percent(…)</code>), then run it." in text
    assert "✎ Write your guess on the first line of cell 4 (as <code>Guess::count(…)</code>), then run it." in text
    assert "✎ In cell 5, write the body of <code>fn ring_owner(points: &amp;[(u32, usize)], hash: u32) -&gt; usize</code>" in text
    assert "▶ Run cell 6: it checks your function" in text
    assert "▶ Run cell 7: it works out the quiz" in text
    assert "✎ Write your answers in cell 8, in order, as <code>Guess::percent(…)</code>, then run it." in text
    assert text.index("2. hash % N, 10 → 20") < text.index("✎ Write your answers in cell 8")
    # a labelled line per asked value and per quiz question, named by its label, never its value
    assert '<span class="label">share moved, 10 → 11, hash % N</span>' in text
    assert '<span class="label">2. hash % N, 10 → 20: share moved</span>' in text
    for value in ("90.9", "9,091", "83.3%", "50.0%"):
        assert value not in text, value
    assert text.count('class="why-box"') == 2


def test_a_question_asked_after_running_leaves_room_to_copy_the_output():
    nb = lab()
    p = next(c for c in nb.cells if "predict" in c.metadata.get("tags", []) and
             "new node" in c.source)
    p.metadata["reshard"]["after_run"] = "the bar of the new node"
    text = paper(nb)
    assert "Asked after running: copy here the bar of the new node (cell 3)." in text
    assert text.count('class="copy-box"') == 1
    assert text.index("copy-box") > text.index("keys on the new node, 10 → 11</span>")


def test_an_untagged_quiz_still_gets_its_answers_line():
    nb = lab()
    next(c for c in nb.cells if "quiz" in c.metadata.get("tags", [])).metadata["tags"] = []
    assert "✎ Write your answers in cell 8, in order" in paper(nb)


def test_a_go_deeper_cell_says_what_to_change():
    nb = lab()
    change = nbformat.v4.new_code_cell("// Change `n_keys` in the parameters cell and run again.\nlet x = 1;")
    nb.cells.insert(len(nb.cells) - 2, change)
    assert "▶ Run cell 9: Change <code>n_keys</code> in the parameters cell and run again.</p>" in paper(nb)

def test_the_learner_copy_collapses_every_answer_and_keeps_the_model_solution():
    original, copy = lab(), editions.learner_copy(lab())
    nbformat.validate(copy)
    assert all(not c.get("outputs") and c.execution_count is None for c in copy.cells if c.cell_type == "code")
    answers = tagged(copy, "answer")
    assert len(answers) == len(tagged(original, "answer")) + 1  # every answer kept, plus the model solution
    for c in answers:
        hidden = c.metadata.get("jupyter", {})
        assert hidden.get("source_hidden") is True
        assert c.cell_type == "markdown" or hidden.get("outputs_hidden") is True
    for c in copy.cells:
        if "answer" not in c.metadata.get("tags", []):
            assert not c.metadata.get("jupyter", {}).get("source_hidden"), "a question cell is collapsed"
    (sol,) = tagged(copy, "solution")
    assert "todo!(" in sol.source and "partition_point" not in sol.source
    check = next(i for i, c in enumerate(copy.cells) if "check" in c.metadata.get("tags", []))
    model = copy.cells[check + 1]
    assert model.cell_type == "markdown" and "answer" in model.metadata["tags"]
    assert model.source.startswith("<details>\n<summary><b>Model solution</b> (click to reveal)</summary>\n\n"
                                   "**Model solution.**\n\n```rust\nfn ring_owner(")
    # JupyterLab opens a collapsed markdown cell when it runs it: each Why also sits in a closed
    # disclosure, which running does not open
    whys = [c for c in answers if c.cell_type == "markdown" and "**Why" in c.source]
    assert whys and all(c.source.startswith("<details>\n<summary><b>Why</b>") and
                        c.source.endswith("</details>") for c in whys)
    assert "points.partition_point(|p| p.0 < hash);" in model.source and "BEGIN SOLUTION" not in model.source
    assert model.get("id") == "c14-model"


def test_the_learner_copy_of_a_code_answer_hides_source_and_outputs():
    nb = lab()
    table = nbformat.v4.new_code_cell("checks", outputs=[nbformat.v4.new_output("stream", text="90.9%")])
    table.metadata["tags"] = ["answer"]
    nb.cells.insert(7, table)
    hidden = editions.learner_copy(nb).cells[7]
    assert hidden.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True} and hidden.outputs == []


def test_runnable_from_points_the_dep_at_the_crate(tmp_path):
    nb = editions.runnable_from(lab(), REPO / "notebooks", REPO / "handouts" / "student")
    assert nb.cells[2].source.startswith(':dep reshard = { path = "../..", ')


# ---- the answer key ----------------------------------------------------------------------------


def test_the_answer_key_holds_each_predicts_answer(tmp_path):
    nb = lab()
    found = answer_key.entries(nb)
    assert [e["measured"] for e in found] == [[("share moved, 10 → 11, hash % N", "90.9%")],
                                              [("keys on the new node, 10 → 11", "9,091")]]
    assert found[0]["wrong"] == "about 9%, as adding one node of eleven should"
    assert found[1]["why"] == "every node ends with about 1/11 of the keys"
    assert found[0]["question"].startswith("Ten nodes become eleven")
    chromium = handouts.find_chromium()
    written = answer_key.write(nb, Path("01-lab.ipynb"), tmp_path, chromium)
    page = (tmp_path / "01-key.html").read_text()
    for text in ('share moved, 10 → 11, hash % N</td><td class="value"><b>90.9%</b></td>'
                 "<td>89–92%: within a point of 1 − 10/110</td>",
                 'keys on the new node, 10 → 11</td><td class="value"><b>9,091</b>',
                 "<b>Common wrong answer:</b> about 9%, as adding one node of eleven should.",
                 "<b>Why:</b> a key stays only where h % 10 = h % 11: 10 of every 110 hash values.",
                 "What moves when a cluster grows?", "Ten nodes become eleven", "check_ring_owner", "2 points",
                 # the quiz: each answer with its reason
                 'hash % N, 10 → 12: share moved</td><td class="value"><b>83.3%</b></td><td>± 2%</td>'
                 "<td>10 and 12 share the factor 2: lcm 60, 10 of 60 stay</td>",
                 '<td class="value"><b>50.0%</b></td>',
                 # the model solution, without its markers
                 "let i = points.partition_point(|p| p.0 &lt; hash);\npoints[i % points.len()].1</pre>"):
        assert text in page, text
    assert "Predict." not in page and "<script" not in page and "BEGIN SOLUTION" not in page
    if chromium is None:
        pytest.skip("no Chromium (Debian: apt install chromium): the key's PDF and its page count untested")
    assert tmp_path / "01-key.pdf" in written
    assert pdf_pages(tmp_path / "01-key.pdf") <= 2


def test_the_answer_key_gives_the_range_that_counts_and_what_varies(tmp_path):
    nb = lab()
    predicts = [c for c in nb.cells if "predict" in c.metadata.get("tags", [])]
    predicts[0].metadata["reshard"]["accept"] = {"share moved, 10 → 11, hash % N": "89–92%: within a point"}
    predicts[1].metadata["reshard"]["run_dependent"] = {"keys on the new node, 10 → 11": "9,050–9,130 over 5 runs"}
    answer_key.write(nb, Path("01-lab.ipynb"), tmp_path, None)
    page = (tmp_path / "01-key.html").read_text()
    assert "<b>90.9%</b></td><td>89–92%: within a point</td>" in page, page
    assert '<span class="varies">· changes from run to run: 9,050–9,130 over 5 runs</span>' in page, page


def test_a_predict_without_a_measured_line_says_so():
    nb = lab()
    nb.cells[6].outputs = []
    page = answer_key.key_html(nb, "x.ipynb")
    assert "— not in the committed outputs: run the notebook" in page  # its accepted label, unmeasured
    del nb.cells[5].metadata["reshard"]["accept"]
    assert "no measured line in the outputs" in answer_key.key_html(nb, "x.ipynb")


def test_a_quiz_answer_without_its_why_says_so():
    nb = lab()
    quiz = next(c for c in nb.cells if "quiz" in c.metadata.get("tags", []))
    quiz.metadata["reshard"]["quiz"] = [{"why": "x"}]
    assert [q["why"] for q in answer_key.quiz(nb)] == ["x", ""]
    assert "no reason given" in answer_key.key_html(nb, "x.ipynb")


def pdf_pages(pdf: Path) -> int:
    if shutil.which("pdfinfo"):
        r = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
        return int(re.search(r"^Pages:\s+(\d+)", r.stdout, re.M).group(1))
    try:
        import pypdf
    except ImportError:
        pytest.skip("neither pdfinfo (poppler-utils) nor pypdf to count the key's pages")
    return len(pypdf.PdfReader(str(pdf)).pages)


@pytest.mark.parametrize("nb", LABS, ids=lambda p: p.name)
def test_every_lab_has_a_key(out, nb):
    page = out / "teacher" / (answer_key.key_name(nb) + ".html")
    assert page.exists(), f"make handouts wrote no key for {nb.name}"
    predicts = sum("predict" in c.metadata.get("tags", []) for c in nbformat.read(nb, as_version=4).cells)
    assert page.read_text().count("<li>") == predicts


@pytest.mark.skipif(handouts.find_chromium() is None, reason="no Chromium (Debian: apt install chromium)")
def test_every_key_is_at_most_two_pages(tmp_path):
    chromium = handouts.find_chromium()
    pages = {}
    for nb in LABS:
        for p in answer_key.write(nbformat.read(nb, as_version=4), nb, tmp_path, chromium):
            if p.suffix == ".pdf":
                pages[nb.name] = pdf_pages(p)
    assert pages and all(n <= 2 for n in pages.values()), pages


def test_the_keys_question_leaves_out_headings_and_the_predict_label():
    assert answer_key.question_of("### Step 5 · spread\n\nMovers land.\n\n**Predict.** How full?") == \
        "Movers land.\n\nHow full?"
    assert answer_key.measured_lines("x\nprediction · a: b, c: your guess 9% · measured 90.9%\n"
                                     "prediction · keys: no guess written · measured 1,234\n") == \
        [("a: b, c", "90.9%"), ("keys", "1,234")]


def test_the_worksheet_shows_an_explorable_s_default_view_unless_it_answers():
    """Issue 28: on paper an explorable is the picture of its default view (the SVG the crate drew),
    beside 'run cell N, then drag its slider'; one in an `answer` cell shows an answer and stays off."""
    nb = nbformat.read(REPO / "tests" / "notebooks" / "fixtures" / "explorable.ipynb", as_version=4)
    sheet = editions.worksheet(nb)
    shown = [c.source for c in sheet.cells if "explorable-picture" in c.metadata.get("tags", [])]
    assert len(shown) == 1 and "data:image/svg+xml;base64," in shown[0] and "drag its slider" in shown[0]
    assert not any("vega" in json.dumps(c.get("outputs", [])) for c in sheet.cells if c.cell_type == "code")
    for cell in nb.cells:
        if cell.get("id") == "explore":
            cell.metadata["tags"] = ["answer"]
    hidden = editions.worksheet(nb)
    assert not any("explorable-picture" in c.metadata.get("tags", []) for c in hidden.cells)
    assert "data:image/svg+xml" not in json.dumps(hidden.cells)
