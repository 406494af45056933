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
    and points;
  - "lcm" is spelled out, "lcm (least common multiple)", at its first use.

Findings and grading (issue "A course a teacher adopts"; a lab that gives one Predict a finding id
gives every Predict one):
  - every `predict` cell carries reshard.finding, a short id of what it asks (`key-range-byte-order`),
    and reshard.accept, for each value its cells print with the book, the range that counts as
    right and why ("16,000–17,500: …"); a value that changes from run to run is listed in
    reshard.run_dependent with the range seen over runs;
  - no guess cell shows a value as its example: `Guess::percent(…)` / `Guess::count(…)` in a comment
    is a form, `Guess::percent(9.0)` there anchors the reader on a number;
  - across the course (`course_problems`): no two Predicts share a finding, and a cell that recalls
    one (metadata reshard.recalls: [ids]) comes in a later lab than the Predict that asked it.
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
BOOK_LINE = re.compile(r"\bbook\s*\.\s*(share|count)\s*\(")


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
                hay = text(d["source"]) + "\n" + (plain_outputs(d) if d["cell_type"] == "code" else "")
                if figure_in(fig, hay):
                    found.append((i, f"bold {fig!r} is already visible in cell {j} (source or output), above "
                                     f"its Predict (cell {p}): write it plain if it is recalled, or move what "
                                     f"shows it below the Predict (chart titles name what is drawn, not the finding)"))
                    break
    return found


GUESS_VALUE = re.compile(r"Guess::(percent|count)\(\s*[\d_.]+\s*\)")


def finding_problems(cells) -> list[tuple[int, str]]:
    """The findings-and-grading rules of one lab (see the module docstring)."""
    predicts = [i for i, c in enumerate(cells) if "predict" in tags(c)]
    meta = {i: cells[i].get("metadata", {}).get("reshard", {}) or {} for i in predicts}
    if not any(m.get("finding") for m in meta.values()):
        return []
    found = []
    for k, p in enumerate(predicts):
        m = meta[p]
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", str(m.get("finding", ""))):
            found.append((p, "predict lacks metadata reshard.finding: a short id of the finding it asks, "
                             "lower-case words joined by -, e.g. \"key-range-byte-order\""))
        end = predicts[k + 1] if k + 1 < len(predicts) else len(cells)
        labels = []
        for c in cells[p + 1:end]:
            if c["cell_type"] == "code":
                for m_ in re.finditer(r"^prediction · (.+?): (?:your guess .*?|no guess written) · measured",
                                      plain_outputs(c), flags=re.M):
                    if m_.group(1) not in labels:
                        labels.append(m_.group(1))
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
    for i, c in enumerate(cells):
        if c["cell_type"] == "code" and "guess" in tags(c):
            comments = " ".join(l.split("//", 1)[1] for l in text(c["source"]).splitlines() if "//" in l)
            g = GUESS_VALUE.search(comments)
            if g:
                found.append((i, f"the guess example shows a value, {g.group(0)}: write the form only, "
                                 f"`Guess::{g.group(1)}(…)`, so no number anchors the guess"))
    return found


def lab_number(path: Path) -> int:
    m = re.match(r"(\d\d)-", Path(path).name)
    return int(m.group(1)) if m else -1


def course_problems(paths) -> list[str]:
    """Across the labs: each finding asked by one Predict only, and recalled only in a later lab."""
    asked: dict[str, tuple[str, int, int]] = {}
    found = []
    recalls = []
    for path in sorted(paths, key=lab_number):
        nb = json.loads(Path(path).read_text())
        for i, c in enumerate(nb["cells"]):
            m = c.get("metadata", {}).get("reshard", {}) or {}
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
    return found


def problems(path: Path, lab: bool | None = None) -> list[str]:
    """Every rule broken in the notebook at `path`, one message each. The lab rules apply to
    numbered labs (`lab=None`), or as `lab` says."""
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
    if lab if lab is not None else is_lab(Path(path)):
        for i, msg in lab_problems(cells) + finding_problems(cells):
            say(i, msg)

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


def main(argv: list[str]) -> int:
    bad = 0
    for p in argv:
        for msg in problems(Path(p)):
            print(msg)
            bad += 1
    for msg in course_problems([Path(p) for p in argv if is_lab(Path(p))]):
        print(msg)
        bad += 1
    print(f"{bad} problem(s)" if bad else "teaching rules: all kept")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
