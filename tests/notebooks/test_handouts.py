"""`make handouts`: the student edition gives nothing away, and every page fits the paper."""

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "tests" / "notebooks"))
import handouts  # noqa: E402

NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]-*.ipynb"))
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
    assert len(student.cells) == len(teacher.cells) - len(answers) + len(boxes)
    kinds = ["why-box" in c.metadata.get("tags", []) for c in student.cells]
    assert not any(a and b for a, b in zip(kinds, kinds[1:])), "two Why? boxes in a row"
    guesses = [c.source for c in teacher.cells if "guess" in c.metadata.get("tags", [])]
    assert guesses == [c.source for c in student.cells if "guess" in c.metadata.get("tags", [])]
    html = (out / "student" / (nb.stem + ".html")).read_text()
    assert "<img" not in html, "the student's page shows a plot: an output was not cleared"
    assert "https://" not in "".join(re.findall(r"<script[^>]*>", html)), "a script needs the network"


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
    student = handouts.student_edition(nb)
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


def test_the_student_edition_runs(out):
    """A teacher hands out the student's .ipynb: with its answer cells gone it must still run,
    from where `make handouts` wrote it (notebook 01: the most answer cells that define names)."""
    import nbrun

    nb = out / "student" / "01-hash-mod-n-and-the-ring.ipynb"
    _, executed, _ = nbrun.execute(nb)  # raises on any failing cell or panic
    assert all(c.get("outputs") is not None for c in executed.cells if c.cell_type == "code")
