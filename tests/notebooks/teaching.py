"""The teaching rules every committed notebook keeps (issue "Teach, don't tell").

Static checks on a notebook's JSON, no kernel needed; `make test` runs them on
every notebook (tests/notebooks/test_teaching.py) and so can you:

    .venv/bin/python tests/notebooks/teaching.py notebooks/*.ipynb

Cell tags (JupyterLab: property inspector -> Cell Tags) carry the structure:

  parameters  the one code cell with the notebook's parameters
  predict     a markdown cell asking a question, and nothing else
  guess       the code cell right after a Predict; its first line is where the
              reader writes a guess (`let guess = Guess::none();`), and the
              rest of the cell, if any, is the Observe code that measures the
              answer and prints the guess beside it (one cell to run, not two:
              every code cell costs the reader about half a second of compiling)
  answer      a cell that gives an answer away: a Why, or a check table that
              sets the document's figures beside this run. The student
              edition (`make handouts`) drops it (a Why becomes an empty
              "Why?" box); every Predict needs one before the next Predict.
  quiz        the code cell that builds the lab's `Quiz` and shows its questions (metadata
              reshard.quiz: a why per question); the next code cell, where the reader answers,
              is tagged `guess`, and the grading cell after it `answer`
  how-to-use  the one markdown cell whose text each edition replaces
  solution, check  the exercise: the model solution between `// BEGIN SOLUTION` and
              `// END SOLUTION`, then the graded check (nbgrader metadata)
  predictions the code cell that tables the reader's guesses (`book`)
  run-dependent  output not compared (see README.md)
  within-tolerance  a run-dependent check of a figure that changes from run to run against its
              prediction with a stated tolerance (`Check::share_within`): a fresh run showing ≠
              fails the notebook test (nbcheck.check_tolerances); it must also be run-dependent

Rules (each message says what to change):
  - the title (the first `# ` heading) asks a question: it ends with "?";
  - code cells have at most 15 lines, code lines at most 100 characters;
  - no code cell calls `.evcxr_display()`: evcxr keeps one HTML output per
    cell, so a second table or chart silently replaces the first; a cell
    shows several with `show![table, chart]` as its last expression;
  - text outputs are at most 100 columns wide (they must fit a printed page);
  - every image is at most 300 KB;
  - a markdown cell is not both a Predict and a Why;
  - every `predict` cell is followed by a `guess` code cell that opens with the
    guess (`let guess_… = Guess::…`) and is not an `answer`, and an `answer`
    cell comes before the next `predict`;
  - no committed output shows "≠": under the document's parameters a check row
    is ✓, or `.corrected("why")` when the document is wrong;
  - no LaTeX math (`$…$`): it needs MathJax from the network to print; write
    formulas in Unicode (1 − min/lcm, √n, ≈);
  - the student edition still runs: no kept code cell uses a name (`let`, `fn`)
    that only an `answer` cell defines (wrap an answer cell's own names in `{ … }`);
  - the same words for the same things (see the glossary in 00-index.ipynb),
    and every notebook links to that glossary.

Lab rules (issues 18 + 19; every lab NN-*.ipynb with NN >= 01, not 00-index):
  - the budget of an hour: at most 6 Predicts (cells tagged `predict`), at most
    1,500 student-visible words (markdown cells not tagged `answer`; link targets
    and HTML tags not counted), at most 250 code lines (non-blank lines of all
    code cells, answers included), at most 30 code cells;
  - no answer in sight before its question: a figure written **bold** in an
    `answer` markdown cell appears in no non-answer cell (source or output)
    above the Predict it answers;
  - no answer-bearing text untagged: a markdown cell saying "**Predict" or
    "Predict:" is tagged `predict`, one holding a "**Why" is tagged `answer`;
  - the frame: **Assumes:** and **DDIA:** in the first markdown cell, **Next:**
    in the last, exactly one cell tagged `how-to-use`, a code cell tagged
    `predictions` (the "your predictions" table);
  - every `predict` cell carries metadata reshard.wrong (the common wrong guess)
    and reshard.why (one line), which the answer key prints, and its kept code
    cells record the measurement with `book.share(…)` / `book.count(…)`;
  - an exercise: a code cell tagged `solution` (nbgrader solution metadata)
    with its model solution between `// BEGIN SOLUTION` and `// END SOLUTION`,
    and the next code cell tagged `check` with nbgrader metadata grade: true
    and points, which calls its checker by its full path (`::reshard::tutor::exercises::…`)
    and asserts with `::std::assert!`, so that no cell of the learner's can stand in for them;
  - "lcm" is spelled out, "lcm (least common multiple)", at its first use;
  - exactly one code cell tagged `parameters` (the worksheet prints its values as a list).

Findings and grading (issue 27, "A course a teacher adopts"; every lab):
  - every `predict` cell carries reshard.finding, a short id of what it asks (`key-range-byte-order`),
    and reshard.accept, for each value its cells print with the book, the range that counts as
    right and why ("16,000–17,500: …"); a value that changes from run to run is listed in
    reshard.run_dependent with the range seen over runs;
  - a question that points at an output above it ("the chart above") carries reshard.after_run;
  - a quiz (a code cell that builds `Quiz::new(…)` and shows its table) is tagged `quiz`, carries
    reshard.quiz with one {"why": …} per question, and the next code cell, where the reader answers,
    is tagged `guess`;
  - across the course (`course_problems`): no two Predicts share a finding, and a cell that recalls
    one (metadata reshard.recalls: [ids]) comes in a later lab than the Predict that asked it.

Nothing given away (issue 27; `no_giveaway_problems`, `document_problems`, `course_problems`):
  - a guess example is a form, never a value: `Guess::percent(…)` / `Guess::count(…)` (or a name,
    `Guess::percent(p)`); `Guess::percent(9.0)` anchors the reader on a number. Checked in every code
    comment and markdown cell of every lab and of the index, in README.md, in the how-to-use texts of
    scripts/editions.py and in the learner's copy `make lab` writes; the numeric examples that remain
    (the crate's doc comments and messages, src/ without its test modules) must be far (over 10%)
    from every answer of the course, the measured value of every book line of every lab;
  - a guess cell's comments hold no figure at or within 2% of one of its Predict's measured values
    or of a bold figure of its Why (figures of 2+ printed digits; a figure the question itself gives
    is allowed), and quote no output with a figure in it (`"MOVED 866 D"`: the answer's shape);
  - no two figures printed above a Predict make one of its answers by one subtraction or division
    (`derived_answers` says exactly which figures count; a known coincidence is listed in
    reshard.coincidences);
  - a lab's markdown says no "the document" / "document's": it names each source article by its
    title (the three titles: /work/shared/seeds/README.md) and may then say "the article"; its printed
    text neither (a check table's reference column is labelled with `Checks::reference_label`; the
    `Params` sentence needs a label from the crate);
  - README.md and a lab's first markdown cell hold no bold figure that is an answer of the course.

Metadata (cell metadata "reshard"; who sets it: the lab's author, in JupyterLab's property
inspector or the notebook's JSON; the editions write the rest). On a `predict` cell:
  finding        "key-range-byte-order": the finding this Predict asks, once in the course
  accept         {"rows on A": "16,671 exactly; 16,000–17,500 shows the byte order was seen"}: per
                 asked value (its book label), what counts as right and why; the keys are the
                 worksheet's line labels (never values) and the answer key's rows; a `{{label}}`
                 in it (or in why, wrong, run_dependent) is the figure a line `label: value` of the
                 step's outputs printed, which the answer key quotes (it must be printed)
  wrong          "25,000: a quarter each, as the boundaries suggest": the common wrong answer, and why
  why            one line: why the answer is what it is
  run_dependent  {"lookups that miss the new car": "60–67% over runs"}: a value that changes per run
  after_run      true, or "the chart of the three arcs": asked after running the cells above; the
                 worksheet says which cell and leaves a box to copy what it shows
  coincidences   {"74,961 ÷ 89,885": "why that pair tells nothing"}: pairs the pair rule lets pass
On any cell: recalls ["join-moves-only-to-new-node"]: findings an earlier lab asked, recalled here.
On the cell tagged `quiz`: quiz [{"why": "10 and 12 share the factor 2: …"}, …], one per question.
The student edition adds `prediction-line` cells (reshard.labels), `quiz-lines` (reshard.questions)
and `why-box` cells, and numbers every code cell (`// cell N`); the printed worksheet's own cells
are tagged `run` and `copy-box` (scripts/editions.py).
"""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path

MAX_CELL_LINES = 15
MAX_LINE = 100
MAX_OUTPUT_COLS = 100
MAX_IMAGE_BYTES = 300_000
GLOSSARY_LINK = "00-index.ipynb#Glossary"

# The budget of a lab of an hour (issue 18), counted as /work/briefs/labcheck.py counts.
MAX_PREDICTS = 6
MAX_WORDS = 1500
MAX_CODE_LINES = 250
MAX_CODE_CELLS = 30

# Words this tutorial does not use, and the word it uses instead.
VOCABULARY = {
    r"\bleast possible\b": "floor",
    r"\bideal share\b": "floor",
    r"\bbetween (the )?nodes that stayed\b": "churn (keys moving between old nodes)",
    r"\bfair share\b": "the floor (what must move) or the mean load (per node)",
    r"\bkey_count\b": "n_keys",
    r"\bchanged nodes\s*(/|÷|over)\s*nodes after\b": "the floor, |Δ| ÷ max(old, new) nodes (10 → 9: 1/10)",
}
CODE_VOCABULARY = {
    r"\blet\s+(mut\s+)?keys\s*:\s*usize\b": "n_keys (the key count); `keys` is the hashed key set",
    r"\bkey_count\b": "n_keys",
}


def text(src) -> str:
    return "".join(src) if isinstance(src, list) else (src or "")


def first_code_line(src: str) -> str:
    """The first line of a code cell that is neither blank nor a `//` comment."""
    for line in src.splitlines():
        if line.strip() and not line.strip().startswith("//"):
            return line
    return ""


def tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", []) or []


def strip_code(md: str) -> str:
    """Markdown without fenced blocks and `code` spans."""
    md = re.sub(r"```.*?```", "", md, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", md)


def output_texts(out) -> list[str]:
    """The plain texts a reader sees (or could see) of one output."""
    if out.get("output_type") == "stream":
        return [text(out.get("text"))] if out.get("name") == "stdout" else []
    data = out.get("data", {})
    if "text/html" in data or "image/svg+xml" in data or "image/png" in data:
        return []
    return [text(data.get("text/plain"))]


def image_sizes(out) -> list[int]:
    data = out.get("data", {})
    sizes = []
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            sizes.append(len(base64.b64decode(text(data[mime]))))
    if "image/svg+xml" in data:
        sizes.append(len(text(data["image/svg+xml"]).encode()))
    for uri in re.findall(r"data:image/[a-z+]+;base64,([A-Za-z0-9+/=]+)", text(data.get("text/html"))):
        sizes.append(len(base64.b64decode(uri)))
    return sizes


def all_output_text(out) -> str:
    if out.get("output_type") == "stream":
        return text(out.get("text"))
    data = out.get("data", {})
    return text(data.get("text/plain")) + text(data.get("text/html"))


def _code(src: str) -> str:
    """Rust source without comments and string literals."""
    src = re.sub(r"//[^\n]*", "", src)
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', src, flags=re.S)


def _defines(src: str) -> set[str]:
    """Names a cell defines at its top level (`let`, tuple `let`, `fn`); none for a `{ … }` block."""
    s = _code(src).strip()
    if s.startswith("{") and s.endswith("}"):
        return set()
    names = set(re.findall(r"\blet\s+(?:mut\s+)?(\w+)", s)) | set(re.findall(r"\bfn\s+(\w+)", s))
    for group in re.findall(r"\blet\s+\(([^)]*)\)", s):
        names |= set(re.findall(r"\w+", group)) - {"mut"}
    return names - {"_"}


def _binds(src: str) -> set[str]:
    """Names a cell binds for itself: lets, closure and fn parameters, loop patterns."""
    s = _code(src)
    names = set(re.findall(r"\blet\s+(?:mut\s+)?(\w+)", s))
    for group in re.findall(r"\blet\s+\(([^)]*)\)", s) + re.findall(r"\|([^|]*)\|", s) \
            + re.findall(r"\bfor\s+(.*?)\s+in\b", s) + re.findall(r"\bfn\s+\w+\s*(?:<[^>]*>)?\(([^)]*)\)", s):
        names |= set(re.findall(r"\w+", group))
    return names


def student_edition_problems(cells) -> list[tuple[int, str]]:
    """Kept code cells that use a name only an `answer` code cell defines."""
    kept, answer_only = set(), {}
    for i, c in enumerate(cells):
        if c["cell_type"] == "code":
            names = _defines(text(c["source"]))
            if "answer" in tags(c):
                for n in names:
                    answer_only.setdefault(n, i)
            else:
                kept |= names
    answer_only = {n: i for n, i in answer_only.items() if n not in kept}
    found = []
    for i, c in enumerate(cells):
        if c["cell_type"] != "code" or "answer" in tags(c):
            continue
        s = _code(text(c["source"]))
        local = _binds(s)
        for n, j in answer_only.items():
            if j < i and n not in local and re.search(r"(?<![.\w])" + re.escape(n) + r"\b(?!\s*:(?!:))", s):
                found.append((i, f"uses `{n}`, which only the answer cell {j} defines: the student edition "
                                 f"drops that cell, so define it in a kept cell"))
    return found


# ---- the lab rules (issues 18 + 19) ----------------------------------------------------------

FIGURE = re.compile(r"[−-]?\d[\d,]*(?:\.\d+)?\s?%?×?")
BOOK_LINE = re.compile(r"\bbook\s*\.\s*(model_)?(share|count)\s*\(")


def is_lab(path: Path) -> bool:
    """A numbered lab (01-…, 02-…), not the index 00-index.ipynb."""
    m = re.match(r"(\d\d)-", Path(path).name)
    return bool(m) and m.group(1) != "00"


def student_words(md: str) -> int:
    """Words a reader reads: whitespace tokens holding a letter or digit, without link targets
    and HTML tags."""
    md = re.sub(r"\]\([^)]*\)", "]", md)
    md = re.sub(r"<[^>]+>", " ", md)
    return sum(1 for w in md.split() if re.search(r"\w", w))


def plain_outputs(cell) -> str:
    """The text (stream, text/plain) of a code cell's outputs."""
    out = []
    for o in cell.get("outputs", []) or []:
        if "text" in o:
            out.append(text(o["text"]))
        elif "text/plain" in o.get("data", {}):
            out.append(text(o["data"]["text/plain"]))
    return "\n".join(out)


def bold_figures(md: str) -> set[str]:
    """Figures written in **bold**: 2+ digits, or a decimal point, or a %."""
    figs = set()
    for span in re.findall(r"\*\*(.+?)\*\*", md):
        for f in FIGURE.findall(span):
            f = f.strip()
            if len(re.sub(r"\D", "", f)) >= 2 or "%" in f or "." in f:
                figs.add(f)
    return figs


def figure_in(fig: str, hay: str) -> bool:
    """`fig` as a whole figure in `hay`: 90.9% is not in 190.9% nor in 90.95%, and a figure is not
    part of a name (15 is not in `events__p15`) nor a clock time (18 is not in 18:00)."""
    core = re.escape(fig.lstrip("−-"))
    return re.search(r"(?<![\d.,\w])" + core + r"(?![\d]|[.,]\d|:\d\d)", hay) is not None


def budget(cells) -> dict:
    """The lab's size in the budget's units."""
    code = [c for c in cells if c["cell_type"] == "code"]
    return {
        "predicts": sum("predict" in tags(c) for c in cells),
        "words": sum(student_words(text(c["source"])) for c in cells
                     if c["cell_type"] == "markdown" and "answer" not in tags(c)),
        "code_lines": sum(1 for c in code for l in text(c["source"]).splitlines() if l.strip()),
        "code_cells": len(code),
    }


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def lab_problems(cells) -> list[tuple[int, str]]:
    """The rules of a lab of an hour; (cell index, message saying what to change)."""
    found = []
    last = len(cells) - 1
    size = budget(cells)
    if size["predicts"] > MAX_PREDICTS:
        found.append((0, f"{size['predicts']} Predicts (at most {MAX_PREDICTS}): drop one, recall an earlier "
                         f"lab's finding in a computed line, or turn a document's loose figure into a "
                         f"\"What the document said\" note"))
    if size["words"] > MAX_WORDS:
        found.append((0, f"{size['words']:,} student-visible words (at most {MAX_WORDS:,}): cut prose, or move "
                         f"what gives an answer away into an `answer` cell"))
    if size["code_lines"] > MAX_CODE_LINES:
        found.append((0, f"{size['code_lines']} code lines (at most {MAX_CODE_LINES}): move the work into the "
                         f"crate, or drop a step"))
    if size["code_cells"] > MAX_CODE_CELLS:
        found.append((0, f"{size['code_cells']} code cells (at most {MAX_CODE_CELLS}): merge cells, or drop a step"))

    md = [i for i, c in enumerate(cells) if c["cell_type"] == "markdown"]
    if md:
        first = text(cells[md[0]]["source"])
        for need, what in (("**Assumes:**", "the labs it builds on, or \"nothing before\""),
                           ("**DDIA:**", 'ch. 7 "Sharding", § <the sections it covers>')):
            if need not in first:
                found.append((md[0], f"the first markdown cell lacks {need}: add a line `{need} {what}`"))
        if "**Next:**" not in text(cells[md[-1]]["source"]):
            found.append((md[-1], "the last markdown cell lacks **Next:**: end with `**Next:** [NN · title](file.ipynb) "
                                  "asks …`, the next lab's question"))
    how = [i for i, c in enumerate(cells) if "how-to-use" in tags(c)]
    if len(how) != 1:
        found.append((how[1] if len(how) > 1 else 0,
                      f"{len(how)} cells tagged `how-to-use`: tag exactly one markdown cell (the editions "
                      f"replace its text)"))
    params = [i for i, c in enumerate(cells) if "parameters" in tags(c)]
    if len(params) != 1 or cells[params[0]]["cell_type"] != "code":
        found.append((params[1] if len(params) > 1 else 0,
                      f"{len(params)} cells tagged `parameters`: tag exactly one code cell, the one that sets the "
                      f"lab's parameters (the worksheet prints its values, the editions keep it)"))
    if not any("predictions" in tags(c) and c["cell_type"] == "code" for c in cells):
        found.append((last, "no code cell tagged `predictions`: end with `## Your predictions` and a code "
                            "cell `book` tagged `predictions`"))

    lcm_seen = False
    for i, c in enumerate(cells):
        s = text(c["source"])
        if c["cell_type"] != "markdown":
            continue
        if "predict" not in tags(c) and re.search(r"\*\*Predict|Predict:", s):
            found.append((i, "says Predict but is not tagged `predict`: tag it (and give it a `guess` cell "
                             "and an answer), or reword it"))
        if "**Why" in s and "answer" not in tags(c):
            found.append((i, "holds a **Why but is not tagged `answer`: tag it, so the student's edition drops it"))
        plain = strip_code(s)
        if not lcm_seen and re.search(r"\blcm\b", plain):
            lcm_seen = True
            if not re.search(r"least common multiple", plain, flags=re.I):
                found.append((i, "first use of \"lcm\": write it out, \"lcm (least common multiple)\""))

    predicts = [i for i, c in enumerate(cells) if "predict" in tags(c)]
    for k, p in enumerate(predicts):
        meta = cells[p].get("metadata", {}).get("reshard", {}) or {}
        for key, what in (("wrong", "the common wrong guess"), ("why", "one line: why the answer is what it is")):
            if not str(meta.get(key, "")).strip():
                found.append((p, f"predict lacks metadata reshard.{key} ({what}): the answer key prints it"))
        end = predicts[k + 1] if k + 1 < len(predicts) else len(cells)
        if not any(c["cell_type"] == "code" and "answer" not in tags(c) and BOOK_LINE.search(text(c["source"]))
                   for c in cells[p + 1:end]):
            found.append((p, "no `book.share(\"label\", guess, measured)` or `book.count(…)` line in this "
                             "Predict's guess/Observe cells: print the measurement with the book (the "
                             "answer key reads that line)"))

    solutions = [i for i, c in enumerate(cells) if "solution" in tags(c)]
    if not solutions:
        found.append((last, "no exercise: add a code cell tagged `solution` with the model solution between "
                            "`// BEGIN SOLUTION` and `// END SOLUTION`, then a `check` cell"))
    for i in solutions:
        c, s = cells[i], text(cells[i]["source"])
        if c["cell_type"] != "code":
            found.append((i, "a `solution` cell must be code"))
            continue
        b, e = s.find("// BEGIN SOLUTION"), s.find("// END SOLUTION")
        if b < 0 or e < b:
            found.append((i, "the solution cell lacks `// BEGIN SOLUTION` … `// END SOLUTION` around the model "
                             "solution (the editions and nbgrader replace that region by a stub)"))
        g = _nbgrader(c)
        if not (g.get("solution") is True and g.get("grade_id")):
            found.append((i, "the solution cell lacks nbgrader metadata: \"nbgrader\": {\"grade\": false, "
                             "\"grade_id\": \"<name>\", \"locked\": false, \"schema_version\": 3, "
                             "\"solution\": true, \"task\": false}"))
        nxt = next((j for j in range(i + 1, len(cells)) if cells[j]["cell_type"] == "code"), None)
        if nxt is None or "check" not in tags(cells[nxt]):
            found.append((i, "the code cell after a solution must be its check, tagged `check` "
                             "(`let report = exercises::…(…); … assert!(report.passed(), …)`)"))
            continue
        for j in [k for k in range(nxt, len(cells)) if "check" in tags(cells[k])]:
            found += check_path_problems(j, text(cells[j]["source"]))
        g = _nbgrader(cells[nxt])
        if not (g.get("grade") is True and g.get("grade_id") and isinstance(g.get("points"), (int, float))
                and g["points"] > 0):
            found.append((nxt, "the check cell lacks nbgrader grading metadata: \"nbgrader\": {\"grade\": true, "
                               "\"grade_id\": \"check_<name>\", \"locked\": true, \"points\": 2, "
                               "\"schema_version\": 3, \"solution\": false, \"task\": false}"))

    # The leak gate: a bold figure of a Why shows nowhere a student sees before its Predict.
    for i, c in enumerate(cells):
        if c["cell_type"] != "markdown" or "answer" not in tags(c):
            continue
        before = [p for p in predicts if p < i]
        if not before:
            continue
        p = before[-1]
        for fig in sorted(bold_figures(text(c["source"]))):
            for j in range(p):
                d = cells[j]
                if "answer" in tags(d):
                    continue
                # A run-dependent cell's output (a timing, a port) changes every run: its digits
                # meeting a Why's figure by chance ("started in 1.04 s") give nothing away.
                shown = d["cell_type"] == "code" and "run-dependent" not in tags(d)
                hay = text(d["source"]) + "\n" + (plain_outputs(d) if shown else "")
                if figure_in(fig, hay):
                    found.append((i, f"bold {fig!r} is already visible in cell {j} (source or output), above "
                                     f"its Predict (cell {p}): write it plain if it is recalled, or move what "
                                     f"shows it below the Predict (chart titles name what is drawn, not the finding)"))
                    break
    return found


def check_path_problems(i: int, src: str) -> list[tuple[int, str]]:
    """A check cell calls its checker by its full path (`::reshard::tutor::exercises::…`) and asserts
    with `::std::assert!`: a cell of the learner's above it may define a module `exercises`, a
    function, or a macro `assert` of its own, which an unqualified name would call instead (the
    grade would then be the learner's to give)."""
    found = []
    code = _code(src)
    for m in re.finditer(r"(?<![\w:])((?:reshard::tutor::)?exercises::\w+)", code):
        found.append((i, f"the check calls `{m.group(1)}` by a path a cell of the learner's can shadow (a module "
                         f"`exercises` of their own): call `::reshard::tutor::exercises::…`"))
        break
    if re.search(r"(?<![\w:])assert(_eq|_ne)?!", code):
        found.append((i, "the check asserts with `assert!`, which a `macro_rules! assert` of the learner's replaces: "
                         "write `::std::assert!`"))
    return found


# ---- figures, and the answers each Predict measured ---------------------------------------------

# A figure as a reader sees it: 16,671 · 25.4% · 1.086× · 100_000 (in code). Not part of a name
# (key999999, events__p15, S10), a date or a clock time (2026-11-30, 06:00), a quoted string or a
# port ("order:25000", :40153), nor a negative number.
FIGURE_TOKEN = re.compile(r"(?<![\w.,:/\"'#−-])(\d{1,3}(?:[,_]\d{3})+|\d+)(\.\d+)?(\s?%|×)?(?![\w:/\"'-]|[.,]\d)")
# The line `book.share(…)` / `book.count(…)` prints (reshard::tutor::predictions).
MEASURED_LINE = re.compile(
    r"^prediction · (?P<label>.+?): (?:your guess .*?|no guess written) · (?P<kind>measured|model) (?P<value>.+?)\s*$", re.M)


class Figure:
    """One printed figure: its value, whether it is a percent, its decimals, its significant digits
    (16,671 has 5, 0.98 has 2, 49.80 has 4, 100,000 has 1, 160 has 2) and its places, the digits
    printed without leading zeros (100,000 has 6, 160 has 3, 0.98 has 2)."""

    def __init__(self, text_: str, value: float, percent: bool, decimals: int, digits: int, places: int):
        self.text, self.value, self.percent, self.decimals = text_, value, percent, decimals
        self.digits, self.places = digits, places

    @property
    def half_unit(self) -> float:
        """Half the last printed digit: what rounding may have hidden."""
        return 0.5 * 10 ** (-self.decimals)

    @property
    def error(self) -> float:
        """What rounding may have hidden in the value: nothing in a count (a plain integer), else
        half the last digit."""
        return 0.0 if not self.percent and self.decimals == 0 and "×" not in self.text else self.half_unit

    def same(self, other: "Figure") -> bool:
        """The same figure at the precision of the less precise of the two (25.3% and 25.31%)."""
        return self.percent == other.percent and \
            abs(self.value - other.value) <= max(self.half_unit, other.half_unit) + 1e-9

    def near(self, other: "Figure", rel: float) -> bool:
        """Within `rel` of `other` (relative), or the same figure."""
        if self.percent != other.percent:
            return False
        if self.same(other):
            return True
        return other.value != 0 and abs(self.value - other.value) <= rel * abs(other.value)

    def __repr__(self):
        return self.text


def figures(text_: str) -> list[Figure]:
    """Every figure in `text_` (see FIGURE_TOKEN)."""
    found = []
    for m in FIGURE_TOKEN.finditer(text_):
        whole, frac, unit = m.group(1).replace(",", "").replace("_", ""), m.group(2) or "", (m.group(3) or "").strip()
        printed = (whole + frac[1:]).lstrip("0") or "0"
        significant = printed if frac else (printed.rstrip("0") or "0")
        found.append(Figure(m.group(0).strip(), float(whole + frac), unit == "%", max(len(frac) - 1, 0),
                            len(significant), len(printed)))
    return found


def figure_of(value: str) -> Figure | None:
    """The figure of a measured value ("16,671", "25.4%"); None for a value that is not one number."""
    found = figures(value)
    return found[0] if len(found) == 1 else None


def steps(cells) -> list[tuple[int, int]]:
    """(Predict cell, end): each Predict with the cells up to the next Predict (or the end)."""
    predicts = [i for i, c in enumerate(cells) if "predict" in tags(c)]
    return [(p, predicts[k + 1] if k + 1 < len(predicts) else len(cells)) for k, p in enumerate(predicts)]


def book_lines(cells, p: int, end: int) -> list[tuple[str, str]]:
    """(label, measured value) of the prediction lines the code cells of one step printed, in order
    (a label printed twice keeps its last value)."""
    found: dict[str, str] = {}
    for c in cells[p + 1:end]:
        if c["cell_type"] == "code":
            for m in MEASURED_LINE.finditer(plain_outputs(c)):
                found.pop(m["label"], None)
                found[m["label"]] = m["value"]
    return list(found.items())


def answers(cells) -> dict[int, list[tuple[str, str]]]:
    """For each Predict (by cell index): the (label, measured value) its book lines printed."""
    return {p: book_lines(cells, p, end) for p, end in steps(cells)}


def meta(cell) -> dict:
    return cell.get("metadata", {}).get("reshard", {}) or {}


def comments(src: str) -> list[str]:
    """The `//` comments of Rust source, one per line that has one (a `//` inside a string literal
    is not a comment; a comment may itself quote a string)."""
    found = []
    for line in src.splitlines():
        inside, k = False, 0
        while k < len(line):
            ch = line[k]
            if inside and ch == "\\":
                k += 2
                continue
            if ch == '"':
                inside = not inside
            elif not inside and line.startswith("//", k):
                found.append(line[k + 2:])
                break
            k += 1
    return found


# ---- findings and grading (issue 27) ------------------------------------------------------------

GUESS_EXAMPLE = re.compile(r"Guess::(percent|count)\(\s*([^()]*?)\s*\)")
GUESS_FORM = re.compile(r"(…|\.\.\.|[A-Za-z_]\w*)?")


def guess_values(text_: str) -> list[tuple[str, str, Figure | None]]:
    """The `Guess::percent(<number>)` / `Guess::count(<number>)` in `text_` whose argument is a value,
    not a form (`…`, a name such as `p`): (the example, percent|count, its figure)."""
    found = []
    for m in GUESS_EXAMPLE.finditer(text_):
        if GUESS_FORM.fullmatch(m.group(2)):
            continue
        number = m.group(2).replace("_", "")
        fig = figure_of(number + ("%" if m.group(1) == "percent" else ""))
        found.append((m.group(0), m.group(1), fig))
    return found


def nearest(fig: Figure | None, known: list[tuple[str, str, Figure]], rel: float = 0.10):
    """The first (where, label, answer) within `rel` of `fig`, the closest first."""
    if fig is None:
        return None
    close = [(abs(fig.value - a.value), w, l, a) for w, l, a in known if fig.near(a, rel)]
    return min(close, key=lambda t: t[0])[1:] if close else None


def guess_example_message(example: str, kind: str, near=None) -> str:
    msg = (f"the guess example shows a value, {example}: write the form only, `Guess::{kind}(…)`, so no "
           f"number anchors the guess")
    if near:
        where, label, fig = near
        msg += f" (and it is near the answer {fig.text} of {where}, {label!r})"
    return msg


def finding_problems(cells) -> list[tuple[int, str]]:
    """The findings-and-grading rules of one lab (see the module docstring): every Predict names its
    finding and the range that counts as right for each value it asks."""
    found = []
    measured = answers(cells)
    for p, end in steps(cells):
        m = meta(cells[p])
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", str(m.get("finding", ""))):
            found.append((p, "predict lacks metadata reshard.finding: a short id of the finding it asks, "
                             "lower-case words joined by -, e.g. \"key-range-byte-order\" (each finding is "
                             "asked once in the course: /work/helpers/FINDINGS.md lists who asks what)"))
        labels = [label for label, _ in measured[p]]
        accept = m.get("accept") or {}
        if not isinstance(accept, dict):
            found.append((p, "reshard.accept must map each book label to the range that counts as right"))
            accept = {}
        for label in labels:
            if not str(accept.get(label, "")).strip():
                found.append((p, f"reshard.accept has no range for {label!r}: give the values that count as "
                                 f"right and why (e.g. \"24–26%: any arrangement lands within a point\")"))
        for label in accept:
            if labels and label not in labels:
                found.append((p, f"reshard.accept names {label!r}, which no prediction line of this Predict "
                                 f"prints (its labels: {', '.join(labels)})"))
        for label in (m.get("run_dependent") or {}):
            if label not in labels:
                found.append((p, f"reshard.run_dependent names {label!r}, which no prediction line prints"))
        shown = "\n".join(plain_outputs(c) for c in cells[p + 1:end] if c["cell_type"] == "code")
        for field in ("accept", "run_dependent", "why", "wrong"):
            values = m.get(field)
            values = values.values() if isinstance(values, dict) else [values or ""]
            for ref in re.findall(r"\{\{([^{}]+)\}\}", " ".join(str(v) for v in values)):
                if not re.search(r"^\s*" + re.escape(ref.strip()) + r":\s*\S", shown, re.M):
                    found.append((p, f"reshard.{field} quotes {{{{{ref}}}}}, which no line `{ref.strip()}: …` of "
                                     f"this step's outputs prints: print it (the answer key reads the figure there)"))
        after = m.get("after_run")
        if after is not None and not (after is True or (isinstance(after, str) and after.strip())):
            found.append((p, "reshard.after_run is true, or a few words naming what to copy from the output "
                             "(\"the chart of the three arcs\")"))
        if after and not any(c["cell_type"] == "code" and "answer" not in tags(c) for c in cells[:p]):
            found.append((p, "reshard.after_run: no code cell above this Predict shows what it asks about"))
        question = strip_code(text(cells[p]["source"]))
        if not after and re.search(r"\b(chart|figure|plot|picture|table|output|grid)s? (just )?above\b|"
                                   r"\babove (chart|figure|plot|picture|table|output|grid)", question, re.I):
            found.append((p, "the question points at an output above it: set metadata reshard.after_run "
                             "(true, or what to copy) so the worksheet says which cell to run first and leaves "
                             "room to copy what it shows"))
    return found


def no_giveaway_problems(cells, fresh: bool = False) -> list[tuple[int, str]]:
    """Nothing a learner reads before answering gives the answer away (issue 27): guess examples
    are forms; a guess cell's comments show no answer; two figures above a Predict do not make its
    answer by one subtraction or division. `fresh`: the outputs are a test's fresh run, not the
    committed ones; a value the Predict lists in reshard.run_dependent then leaves the pair rule
    (it lands elsewhere in its range each run; its committed value is checked as committed)."""
    found = []
    for i, c in enumerate(cells):
        if c["cell_type"] == "code":
            for example, kind, _ in guess_values("\n".join(comments(text(c["source"])))):
                found.append((i, guess_example_message(example, kind)))
        elif c["cell_type"] == "markdown":
            for example, kind, _ in guess_values(text(c["source"])):
                found.append((i, guess_example_message(example, kind)))
    measured = answers(cells)
    for p, end in steps(cells):
        question = {f.text for f in figures(text(cells[p]["source"]))}
        values = [(label, f) for label, v in measured[p] if (f := figure_of(v)) is not None]
        varies = meta(cells[p]).get("run_dependent") or {} if fresh else {}
        stated = [f for c in cells[p + 1:end] if c["cell_type"] == "markdown" and "answer" in tags(c)
                  for b in bold_figures(text(c["source"])) if (f := figure_of(b)) is not None]
        g = p + 1
        if g < len(cells) and "guess" in tags(cells[g]):
            for line in comments(text(cells[g]["source"])):
                if any(" " in q and any(f.places >= 2 for f in figures(q)) for q in re.findall(r'"([^"]*)"', line)):
                    found.append((g, f"a guess comment quotes an output with a value ({line.strip()!r}): it shows "
                                     f"the answer's shape; say what to guess in words"))
                for fig in figures(GUESS_EXAMPLE.sub("", line)):
                    if fig.text in question or fig.places < 2:
                        continue
                    hit = next((f"{label}: {a.text}" for label, a in values if fig.near(a, 0.02)), None) or \
                        next((f"the Why's {a.text}" for a in stated if fig.near(a, 0.02)), None)
                    if hit:
                        found.append((g, f"a guess comment holds {fig.text}, at or near the answer ({hit}): "
                                         f"leave figures out of the comment, or take the question's own"))
        found += [(p, msg) for msg in derived_answers(cells, p, [(l, f) for l, f in values if l not in varies])]
    return found


def derived_answers(cells, p: int, values: list[tuple[str, Figure]]) -> list[str]:
    """Two figures printed above Predict `p` whose difference or quotient is one of its answers.

    The operands: figures in the text outputs (stdout, text/plain) of code cells above `p` that are
    neither `answer` nor `run-dependent` (a port, a timing or a run's draw changes every run), not
    part of a name, date, time or quoted string (FIGURE_TOKEN). A first operand (a, and both of a
    subtraction) has at least 3 significant digits, a divisor at least 3 printed digits: node
    numbers, small counts and parameters (10, 42, 150, 160, 1000) would make any small answer, while
    a total such as 100,000 is what a share is taken of. The answers: the Predict's measured values
    printed with at least 2 digits, not 0 and not 100% (any two equal figures make those). a − b
    counts when a, b and the answer are in the same unit (all percent, or all plain); a ÷ b as a
    percent when a and b are plain counts and a < b; a ÷ b as a ratio when the answer is plain and
    a, b share a unit. A match must hold at the answer's printed precision for every value the
    operands' rounding allows (the two figures decide it). A pair that is a known coincidence is
    listed in the Predict's reshard.coincidences ({"a ÷ b": "why it gives nothing away"})."""
    allowed = meta(cells[p]).get("coincidences") or {}
    pool: dict[tuple[float, bool], tuple[Figure, int]] = {}
    for j in range(p):
        c = cells[j]
        if c["cell_type"] != "code" or {"answer", "run-dependent"} & set(tags(c)):
            continue
        for f in figures(plain_outputs(c)):
            if f.places >= 3:
                pool.setdefault((f.value, f.percent), (f, j))
    found = []
    for label, m in values:
        if m.places < 2 or m.value == 0 or (m.percent and m.value == 100):
            continue
        lo, hi = m.value - m.half_unit - 1e-9, m.value + m.half_unit + 1e-9
        pairs = []
        for (a, ja), (b, jb) in ((x, y) for x in pool.values() for y in pool.values() if x is not y):
            if a.percent != b.percent or b.value == 0 or a.digits < 3:
                continue
            tries = []
            if a.percent == m.percent and b.digits >= 3:
                tries.append(("−", a.value - b.value, a.error + b.error))
            ratio, rel = a.value / b.value, a.error / max(a.value, 1e-12) + b.error / b.value
            if m.percent and not a.percent and a.value < b.value:
                tries.append(("÷", 100 * ratio, 100 * ratio * rel))
            if not m.percent:
                tries.append(("÷", ratio, ratio * rel))
            for op, r, err in tries:
                pair = f"{a.text} {op} {b.text}"
                if lo <= r - err and r + err <= hi and pair not in allowed:
                    pairs.append(f"{pair} (cells {ja}, {jb})")
        if pairs:
            more = f" and {len(pairs) - 3} more" if len(pairs) > 3 else ""
            found.append(f"its answer {m.text} ({label!r}) is {'; '.join(pairs[:3])}{more}: two figures printed "
                         f"above the Predict make it by one subtraction or division. Show one of them after the "
                         f"Predict, recall it in words, or ask something they do not give; a coincidence that "
                         f"gives nothing away goes in reshard.coincidences ({{\"a ÷ b\": \"why\"}})")
    return found


# "the document" bare: the labs name each source article by its title, then say "the article".
DOCUMENT_PROSE = re.compile(r"\bthe document\b|\bdocument's\b", re.I)
# The crate's old wording in printed tables (src/tutor/check.rs, src/tutor/params.rs), kept so an
# output committed before it changed is caught: a check table's reference column "document",
# `Check::line`'s "document X · measured Y", and `Params`' sentences. Today they say "reference" and
# "text" unless the lab names its source (`Checks::reference_label`, `Params::reference_label`).
DOCUMENT_OUTPUT = re.compile(r"\bthe document\b|\bdocument's\b|^\s*figure\s+document\s|"
                             r"\bdocument \S+ · measured\b|\(document [^)]*\)", re.I | re.M)
ARTICLE_TITLES = (
    '"I Added a Fourth Shard in Python and 75% of the Keys Moved"',
    "the untitled study exercise on DDIA 2nd ed. ch. 7, \"Consistent hashing\"",
    '"DDIA Ch. 7: `hash % N` moves 91% of keys to add one node; fixed shards move 9%"',
)


def document_problems(cells) -> list[tuple[int, str]]:
    """"the document" / "document's" in a lab's markdown or printed text."""
    found = []
    for i, c in enumerate(cells):
        if c["cell_type"] == "markdown":
            m = DOCUMENT_PROSE.search(text(c["source"]))
            if m:
                found.append((i, f"says {m.group(0)!r}: name the source article by its title (e.g. "
                                 f"{ARTICLE_TITLES[0]}), then call it \"the article\" (a paper: \"the paper\")"))
        else:
            out = plain_outputs(c)
            m = DOCUMENT_OUTPUT.search(out)
            if m and re.search(r"the document's parameters|This run differs from the document|\(document ", out):
                found.append((i, f"prints {m.group(0).strip()!r}: `Params`' own sentence (src/tutor/params.rs, "
                                 f"its Display); it needs a label from the crate (e.g. `Params::new().source(\"the "
                                 f"article\")`), then this cell re-run"))
            elif m:
                found.append((i, f"prints {m.group(0).strip()!r}: the crate's default wording of a check "
                                 f"(src/tutor/check.rs: the reference column, `Check::line`, the notes); give the "
                                 f"table a label, `Checks::new(…).reference_label(\"article\")` (or the paper's "
                                 f"name)"))
    return found


def quiz_rows(cell) -> list[tuple[str, str]]:
    """(question, tolerance) of each row of a Quiz table a code cell printed (reshard::tutor::Quiz)."""
    out = plain_outputs(cell)
    if "quiz.grade(" not in out:
        return []
    return [(m.group(2).strip(), m.group(3)) for m in re.finditer(r"^\s+(\d+)\s+(.+?)\s+±\s*(\S+)\s*$", out, re.M)]


def quiz_cells(cells) -> list[int]:
    """Code cells that build and show a quiz: the source says `Quiz::new`, or the output is a Quiz table."""
    return [i for i, c in enumerate(cells) if c["cell_type"] == "code"
            and ("Quiz::new" in text(c["source"]) or quiz_rows(c))]


def quiz_problems(cells) -> list[tuple[int, str]]:
    """A quiz grades with a reason: the cell that builds it is tagged `quiz` and carries reshard.quiz,
    one {"why": one line} per question, in order (the answer key prints them)."""
    found = []
    for i in quiz_cells(cells):
        c = cells[i]
        rows = quiz_rows(c)
        if "quiz" not in tags(c):
            found.append((i, "the cell that builds the quiz is not tagged `quiz`: tag it (the worksheet gives "
                             "each question a line, the answer key its answer and why)"))
        whys = meta(c).get("quiz")
        if not isinstance(whys, list) or not all(isinstance(q, dict) and str(q.get("why", "")).strip()
                                                 for q in whys):
            found.append((i, "the quiz cell lacks metadata reshard.quiz: [{\"why\": \"one line\"}, …], one per "
                             "question in order (the answer key prints each answer with its why)"))
        elif rows and len(whys) != len(rows):
            found.append((i, f"reshard.quiz has {len(whys)} entries for {len(rows)} questions: one per question"))
        nxt = next((j for j in range(i + 1, len(cells)) if cells[j]["cell_type"] == "code"), None)
        if nxt is None or "guess" not in tags(cells[nxt]):
            found.append((i, "the code cell after the quiz is where the reader answers: tag it `guess` "
                             "(`let answers = [Guess::none(), …];`)"))
    return found


def lab_number(path: Path) -> int:
    m = re.match(r"(\d\d)-", Path(path).name)
    return int(m.group(1)) if m else -1


def course_answers(paths) -> list[tuple[str, str, Figure]]:
    """Every measured value of every lab's book lines: (lab file, label, figure)."""
    found = []
    for path in sorted(paths, key=lab_number):
        cells = json.loads(Path(path).read_text())["cells"]
        for p, lines in answers(cells).items():
            for label, value in lines:
                f = figure_of(value)
                if f is not None:
                    found.append((Path(path).name, label, f))
    return found


def bold_answer_problems(md: str, known) -> list[str]:
    """Bold figures in `md` that are an answer of the course: a percent of 2+ digits, or another
    figure of 3+ (a bare 10 or 40 is too often a duration or a count of something else)."""
    found = []
    for b in sorted(bold_figures(md)):
        fig = figure_of(b)
        if fig is None or fig.places < (2 if fig.percent else 3):
            continue
        hit = next(((w, l, a) for w, l, a in known if a.places >= 2 and fig.same(a)), None)
        if hit:
            found.append(f"bold {b!r} is the answer of {hit[0]} ({hit[1]!r}): the opening asks, it does not tell; "
                         f"leave the figure out, or say it after the Predict that asks it")
    return found


def course_problems(paths, repo: Path | None = None) -> list[str]:
    """Across the labs: each finding asked by one Predict only, and recalled only in a later lab;
    no bold answer in the README or a lab's opening; no guess example in what a learner reads
    (README, the editions' how-to-use texts, the learner's copies) shows a value, and every numeric
    example that remains (the crate's docs and messages, src/) is far from every answer."""
    asked: dict[str, tuple[str, int, int]] = {}
    found = []
    recalls = []
    paths = sorted(paths, key=lab_number)
    known = course_answers(paths)
    for path in paths:
        nb = json.loads(Path(path).read_text())
        md = [c for c in nb["cells"] if c["cell_type"] == "markdown"]
        if md:
            found += [f"{Path(path).name} cell {nb['cells'].index(md[0])}: {m}"
                      for m in bold_answer_problems(text(md[0]["source"]), known)]
        for i, c in enumerate(nb["cells"]):
            m = meta(c)
            if "predict" in tags(c) and m.get("finding"):
                f = m["finding"]
                if f in asked:
                    where = asked[f]
                    found.append(f"{Path(path).name} cell {i}: finding {f!r} is asked again; {where[0]} cell "
                                 f"{where[2]} asked it: recall it there in one computed line and ask what is new")
                else:
                    asked[f] = (Path(path).name, lab_number(path), i)
            for r in m.get("recalls", []) or []:
                recalls.append((Path(path).name, lab_number(path), i, r))
    for name, lab, i, r in recalls:
        if r not in asked:
            found.append(f"{name} cell {i}: recalls finding {r!r}, which no Predict of the course asks")
        elif asked[r][1] >= lab:
            found.append(f"{name} cell {i}: recalls finding {r!r}, asked in {asked[r][0]}, not in an earlier lab")
    readme = Path(repo) / "README.md" if repo is not None else None
    if readme is not None and readme.exists():
        body = readme.read_text()
        found += [f"{Path(readme).name}: {m}" for m in bold_answer_problems(body, known)]
        found += [f"{Path(readme).name}: {guess_example_message(e, k, nearest(f, known))}"
                  for e, k, f in guess_values(body)]
    found += learner_text_problems(paths, known)
    found += formula_problems(paths, readme if readme is not None and readme.exists() else None)
    if repo is not None:
        found += remaining_example_problems(Path(repo) / "src", known)
    return found


SUPERSCRIPT = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9",
               "ᴺ": "N", "ⁿ": "n"}


def formula_text(text_: str) -> str:
    """Text as a formula is compared: no spaces or backticks, one minus sign, one multiplication
    sign, superscripts as `^` powers, lower case (`1 − 0.99⁴` is `1-0.99^4`)."""
    t = re.sub(r"[⁰¹²³⁴⁵⁶⁷⁸⁹ᴺⁿ]+", lambda m: "^" + "".join(SUPERSCRIPT[c] for c in m.group(0)), text_)
    t = t.replace("`", "").replace("−", "-").replace("–", "-").replace("×", "·").replace("*", "·")
    return re.sub(r"\s+", "", t).lower()


def finding_formulas() -> dict[str, list[str]]:
    """Each finding's formulas, from the findings map (scripts/notebook_index.py FINDINGS)."""
    scripts = Path(__file__).resolve().parents[2] / "scripts"
    if str(scripts) not in sys.path:
        sys.path.insert(0, str(scripts))
    import notebook_index  # noqa: E402

    return {f: formulas for f, (_, formulas) in notebook_index.FINDINGS.items() if formulas}


def formula_problems(paths, readme: Path | None = None, formulas: dict[str, list[str]] | None = None) -> list[str]:
    """No text a learner reads before a Predict states the formula its answer follows (the findings
    map lists each finding's): README.md and the index's prose state none of any finding; a lab's
    text above a Predict (prose not tagged `answer`, code and its comments, outputs of cells neither
    `answer` nor `run-dependent`) states none of that Predict's."""
    formulas = finding_formulas() if formulas is None else formulas
    every = [(f, x, formula_text(x)) for f, xs in formulas.items() for x in xs]
    found = []
    texts = []
    if readme is not None:
        texts.append((Path(readme).name, Path(readme).read_text()))
    for index in sorted({Path(path).parent / "00-index.ipynb" for path in paths}):
        if index.exists():
            nb = json.loads(index.read_text())
            texts.append((index.name, "\n".join(text(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")))
    for name, body in texts:
        flat = formula_text(body)
        found += [f"{name}: states {x!r}, the formula of finding {f!r}: the README and the index ask, they do not "
                  f"tell; name what the crate computes, not how" for f, x, n in every if n in flat]
    for path in paths:
        cells = json.loads(Path(path).read_text())["cells"]
        for p, _ in steps(cells):
            mine = [(x, formula_text(x)) for x in formulas.get(meta(cells[p]).get("finding", ""), [])]
            if not mine:
                continue
            for j in range(p):
                c = cells[j]
                if "answer" in tags(c):
                    continue
                body = text(c["source"])
                if c["cell_type"] == "code" and "run-dependent" not in tags(c):
                    body += "\n" + plain_outputs(c)
                flat = formula_text(body)
                for x, n in mine:
                    if n in flat:
                        found.append(f"{Path(path).name} cell {j}: states {x!r} above the Predict (cell {p}) whose "
                                     f"answer it gives: move it into that Predict's Why")
    return found


def learner_text_problems(paths, known) -> list[str]:
    """Guess examples with a value in the editions' how-to-use texts and in the learner's copy of
    each lab (scripts/editions.py: what `make lab` writes)."""
    scripts = Path(__file__).resolve().parents[2] / "scripts"
    if str(scripts) not in sys.path:
        sys.path.insert(0, str(scripts))
    import editions  # noqa: E402  scripts/editions.py
    import nbformat  # noqa: E402

    found = []
    for edition, how in editions.HOW_TO_USE.items():
        found += [f"scripts/editions.py HOW_TO_USE[{edition!r}]: {guess_example_message(e, k, nearest(f, known))}"
                  for e, k, f in guess_values(how)]
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        original = {c.source for c in nb.cells}
        for i, c in enumerate(editions.learner_copy(nb).cells):
            if c.source in original:  # the notebook's own cells: its own rules report them
                continue
            body = c.source if c.cell_type == "markdown" else "\n".join(comments(c.source))
            for e, k, f in guess_values(body):
                found.append(f"learner copy of {Path(path).name} cell {i}: "
                             f"{guess_example_message(e, k, nearest(f, known))}")
    return found


def remaining_example_problems(src: Path, known) -> list[str]:
    """The numeric guess examples that remain where no learner works through a lab (the crate's doc
    comments and messages under src/; test modules left out): none may be near an answer."""
    found = []
    if not src.exists():
        return found
    for f in sorted(src.rglob("*.rs")):
        body = f.read_text().split("#[cfg(test)]")[0]
        for n, line in enumerate(body.splitlines(), 1):
            for e, k, fig in guess_values(line):
                near = nearest(fig, known)
                if near:
                    found.append(f"{f.relative_to(src.parent)}:{n}: the example {e} is near the answer {near[2].text} "
                                 f"of {near[0]} ({near[1]!r}): a reader of the crate's docs meets it before the lab; "
                                 f"pick a value far from every answer of the course")
    return found


def problems(path: Path, lab: bool | None = None, fresh: bool = False) -> list[str]:
    """Every rule broken in the notebook at `path`, one message each. The lab rules apply to
    numbered labs (`lab=None`), or as `lab` says. `fresh`: `path` is a fresh execution of a lab
    (test_notebooks.py), whose run-dependent answers differ from the committed ones by design
    (no_giveaway_problems)."""
    nb = json.loads(Path(path).read_text())
    cells = nb["cells"]
    found: list[str] = []

    def say(i, msg):
        found.append(f"{Path(path).name} cell {i}: {msg}")

    title = next((l for c in cells if c["cell_type"] == "markdown"
                  for l in text(c["source"]).splitlines() if l.startswith("# ")), None)
    if title is None:
        say(0, "no title: start the first markdown cell with a `# ` heading that asks the question")
    elif not title.rstrip().endswith("?"):
        say(0, f"the title states instead of asking: end {title!r} with a question mark")

    links_glossary = any(GLOSSARY_LINK in text(c["source"]) for c in cells)
    if not links_glossary and not Path(path).name.startswith("00-"):
        say(len(cells) - 1, f"no link to the glossary: add [glossary]({GLOSSARY_LINK})")

    for i, c in enumerate(cells):
        src = text(c["source"])
        t = tags(c)
        if c["cell_type"] == "code":
            lines = src.rstrip("\n").splitlines()
            if len(lines) > MAX_CELL_LINES:
                say(i, f"{len(lines)} lines of code: keep a cell to {MAX_CELL_LINES} (move the work into the crate)")
            if re.search(r"\.evcxr_display\(\)", src):
                say(i, "calls .evcxr_display(): evcxr keeps one HTML output per cell, so a later table or "
                       "chart replaces it; show several with `show![table, chart]` as the cell's last line")
            for n, line in enumerate(lines, 1):
                if len(line) > MAX_LINE:
                    say(i, f"line {n} is {len(line)} characters: break it at {MAX_LINE}")
            for pattern, use in CODE_VOCABULARY.items():
                if re.search(pattern, src):
                    say(i, f"code uses {re.search(pattern, src).group(0)!r}: call it {use}")
            if "within-tolerance" in t and "run-dependent" not in t:
                say(i, "a `within-tolerance` cell's figures change from run to run: tag it `run-dependent` too")
            for out in c.get("outputs", []):
                for body in output_texts(out):
                    wide = [l for l in body.splitlines() if len(l) > MAX_OUTPUT_COLS]
                    if wide:
                        say(i, f"an output line is {len(wide[0])} columns: print at most {MAX_OUTPUT_COLS} "
                               f"(a narrower table, or an HTML table): {wide[0][:60]!r}…")
                for size in image_sizes(out):
                    if size > MAX_IMAGE_BYTES:
                        say(i, f"an image is {size:,} bytes: keep plots under {MAX_IMAGE_BYTES:,}")
                if "run-dependent" not in t and "≠" in all_output_text(out):
                    say(i, "an output shows ≠ under the committed parameters: fix the figure, or mark the "
                           "check `.corrected(\"why\")` if the document is wrong")
        else:
            plain = strip_code(src)
            if "$" in plain:
                say(i, "LaTeX math ($…$) does not print offline: write the formula in Unicode")
            for pattern, use in VOCABULARY.items():
                m = re.search(pattern, plain, flags=re.I)
                if m:
                    say(i, f"says {m.group(0)!r}: this tutorial calls it {use} (glossary)")
            if re.search(r"\*\*Predict", src) and re.search(r"\*\*Why", src):
                say(i, "one cell holds a Predict and a Why: split them so each can be hidden alone")
            for line in re.findall(r"```.*?```", src, flags=re.S):
                for l in line.splitlines():
                    if len(l) > MAX_LINE:
                        say(i, f"a code block line is {len(l)} characters: break it at {MAX_LINE}")

    for i, msg in student_edition_problems(cells):
        say(i, msg)
    is_a_lab = lab if lab is not None else is_lab(Path(path))
    if is_a_lab:
        for i, msg in (lab_problems(cells) + finding_problems(cells) + no_giveaway_problems(cells, fresh)
                       + document_problems(cells) + quiz_problems(cells)):
            say(i, msg)
    else:  # the index: its prose shows no guess example with a value either
        for i, c in enumerate(cells):
            body = text(c["source"]) if c["cell_type"] == "markdown" else "\n".join(comments(text(c["source"])))
            for example, kind, _ in guess_values(body):
                say(i, guess_example_message(example, kind))

    predicts = [i for i, c in enumerate(cells) if "predict" in tags(c)]
    for k, i in enumerate(predicts):
        if cells[i]["cell_type"] != "markdown":
            say(i, "a `predict` cell must be markdown (the question)")
        if "answer" in tags(cells[i]):
            say(i, "a cell can't be both `predict` and `answer`")
        nxt = cells[i + 1] if i + 1 < len(cells) else None
        if nxt is None or nxt["cell_type"] != "code" or "guess" not in tags(nxt):
            say(i, "a Predict needs a `guess` code cell right after it (`let guess = Guess::none();`)")
        elif "answer" in tags(nxt):
            say(i + 1, "a `guess` cell is kept in the student edition: it can't also be an `answer`")
        elif not re.match(r"\s*let\b[^\n]*\bGuess::", first_code_line(text(nxt["source"]))):
            say(i + 1, "a `guess` cell opens with the guess, so the reader sees where to write it: "
                       "make its first line `let guess_… = Guess::none(); // guess first: …, as Guess::percent(…)`")
        end = predicts[k + 1] if k + 1 < len(predicts) else len(cells)
        if not any("answer" in tags(cells[j]) for j in range(i + 1, end)):
            say(i, "no `answer` cell (a Why) between this Predict and the next: tag the cell that answers it")
    return found


REPO = Path(__file__).resolve().parents[2]


def main(argv: list[str]) -> int:
    bad = 0
    for p in argv:
        for msg in problems(Path(p)):
            print(msg)
            bad += 1
    for msg in course_problems([Path(p) for p in argv if is_lab(Path(p))], repo=REPO):
        print(msg)
        bad += 1
    print(f"{bad} problem(s)" if bad else "teaching rules: all kept")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
