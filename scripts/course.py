"""Teach a course on these labs with nbgrader (README: "Teaching a course with nbgrader").

    python scripts/course.py install              nbgrader into the project venv (pinned in
                                                  requirements-nbgrader.txt), its JupyterLab panels off
    python scripts/course.py init DIR [LAB ...]   a course directory: DIR/nbgrader_config.py and
                                                  DIR/source/<lab>/<lab>.ipynb for each lab (all by default)

Then, in DIR, nbgrader's own commands: `nbgrader generate_assignment <lab>` (release/: the
student version, each exercise's model solution replaced by the stub), `nbgrader collect` or
copying submissions to submitted/<student>/<lab>/, `nbgrader autograde <lab>`,
`nbgrader generate_feedback <lab>`.

What the course's nbgrader_config.py sets, and why:
- ClearSolutions.code_stub for the kernel language `rust`: the same `todo!(…)` line as the
  student edition and the learner's copies (scripts/editions.py, RUST_CODE_STUB).
- RESHARD_GRADING=1 in the environment nbgrader's kernels inherit: kernel/launch.py then adds
  `:preserve_vars_on_panic 0`, so a failed check (a panic) is a cell error and loses its points.
  (evcxr's default reports a panic as a success with a message on stderr.)
- A cell timeout long enough for the first cell, which compiles the crate.
A lab in the course finds the crate by an absolute `:dep` path (this checkout), because
nbgrader runs it from DIR/autograded/<student>/<lab>/, not from notebooks/.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
VENV = Path(sys.prefix)
NBGRADER_SERVER_EXTENSIONS = (
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.validate_assignment",
    "nbgrader.server_extensions.assignment_list",
    "nbgrader.server_extensions.course_list",
)

CONFIG = '''\
# nbgrader's configuration for a course on reshard's labs (written by scripts/course.py).
import os
import sys

sys.path.insert(0, {scripts!r})
from editions import RUST_CODE_STUB  # noqa: E402  the student edition's stub, exactly

# kernel/launch.py: a panic (a failed check) is a cell error, so it costs the points;
# without a backtrace, the student's feedback shows the check's own message.
os.environ["RESHARD_GRADING"] = "1"
os.environ["RUST_BACKTRACE"] = "0"

c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "reshard"
c.ClearSolutions.code_stub = {{"rust": RUST_CODE_STUB}}
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
# The first cell compiles the crate (minutes on a cold machine); later cells take about a second.
c.Execute.timeout = 900
c.Execute.startup_timeout = 120

# evcxr's error replies carry no `ename`, which nbgrader 0.9's Execute reads to match the
# reply with the cell's error output (KeyError, and the submission is dropped). Fill it in.
from nbgrader.preprocessors.execute import Execute as _Execute  # noqa: E402

_on_cell_executed = _Execute.on_cell_executed


def _with_error_name(self, **kwargs):
    content = kwargs["execute_reply"]["content"]
    if content.get("status") == "error":
        content.setdefault("ename", "CellFailed")
        content.setdefault("evalue", "the cell failed: a panic (a check that did not pass) or a compile error")
        content.setdefault("traceback", [])
    return _on_cell_executed(self, **kwargs)


_Execute.on_cell_executed = _with_error_name
'''

DEP_LINE = re.compile(r'^(:dep reshard = \{ path = )"\.\."', re.MULTILINE)


def install() -> int:
    pip = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "-q",
           "-r", str(REPO / "requirements-nbgrader.txt")]
    subprocess.run(pip, check=True)
    jupyter = str(VENV / "bin" / "jupyter")
    # Off for learners: nbgrader's panels would sit in every `make lab`. A teacher who wants the
    # formgrader in JupyterLab turns them back on with the same commands, `enable`.
    subprocess.run([jupyter, "labextension", "disable", "--level=sys_prefix", "@jupyter/nbgrader"],
                   check=True, capture_output=True)
    for ext in NBGRADER_SERVER_EXTENSIONS:
        subprocess.run([jupyter, "server", "extension", "disable", "--sys-prefix", ext],
                       check=True, capture_output=True)
    print("nbgrader installed in", VENV, "(its JupyterLab panels are off; README says how to turn them on)")
    return 0


def lab_paths(labs: list[str]) -> list[Path]:
    every = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb") if not p.name.startswith("00"))
    if not labs:
        return every
    chosen = []
    for want in labs:
        found = [p for p in every if p.name.startswith(want) or p.stem == want]
        if len(found) != 1:
            raise SystemExit(f"course.py: {want!r} names {len(found)} labs; give one of "
                             + ", ".join(p.name[:2] for p in every))
        chosen.append(found[0])
    return chosen


def course_notebook(src: Path):
    """The lab as the course's source: outputs cleared, the crate found by an absolute path."""
    nb = nbformat.read(src, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.source = DEP_LINE.sub(lambda m: f'{m.group(1)}"{REPO}"', cell.source)
    return nb


def init(course: Path, labs: list[str]) -> int:
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(CONFIG.format(scripts=str(REPO / "scripts")), encoding="utf-8")
    for src in lab_paths(labs):
        dest = course / "source" / src.stem / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(course_notebook(src), dest)
        print(f"{dest.relative_to(course)}")
    print(f"Course directory: {course} (next: cd there; nbgrader generate_assignment <lab>)")
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("install")
    p = sub.add_parser("init")
    p.add_argument("course", type=Path)
    p.add_argument("labs", nargs="*", help="lab numbers, e.g. 01 02 (default: every lab)")
    a = ap.parse_args(argv)
    if a.command == "install":
        return install()
    return init(a.course.resolve(), a.labs)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
