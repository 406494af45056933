"""The nbgrader round trip on the Rust kernel (README: "Teaching a course with nbgrader").

nbgrader (pinned in requirements-nbgrader.txt) is installed into the project venv if missing.
A course directory is made from lab 01 (scripts/course.py), `nbgrader generate_assignment`
replaces the exercise's model solution by the stub, two students submit, and `nbgrader
autograde` runs both on the Rust kernel: the model solution scores full points, a solution off
by one at the ring's wrap-around scores less (its check cell panics, and under RESHARD_GRADING
a panic is a cell error).

Autograde runs only the exercise: the course's lab 01 is cut down to its first code cell (the
`:dep` line), the solution cell and its graded check (labruns.slice_lab; every cell nbgrader
grades is kept, asserted below), because the whole lab already runs once in this session
(test_notebooks.py). The kernels run on a worker of the tests' kernel pool, so they reuse the
crate as built for notebooks/ instead of building it in each student's folder.

The course lives in target/nbgrader-test/ (rebuilt each run).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import labruns

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

REPO = Path(__file__).resolve().parents[2]
COURSE = REPO / "target" / "nbgrader-test"
LAB = "01"
BIN = Path(sys.executable).parent

# The wrong submission, per exercise (grade_id): lab 01's ring owner, off by one where the
# ring wraps around — past the last point it answers the LAST point's node, not the first's.
WRONG_BODIES = {
    "ring_owner": (
        "    let i = points.partition_point(|&(p, _)| p < hash);\n"
        "    points.get(i).unwrap_or(&points[points.len() - 1]).1\n"
    ),
}


def nbgrader(*args, timeout=1800, pool=None, key=None):
    """Run nbgrader in the course; with `pool` (its kernels), on a worker of the kernel pool
    (`key`: the build of the crate they use)."""
    # nbgrader runs `alembic` (its database migrations) from PATH: the venv's bin first
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    argv = [str(BIN / "nbgrader"), *args]
    if pool is not None:
        done = pool.run(argv, cwd=COURSE, env={"PATH": env["PATH"]}, key=key)
        stdout, stderr, code = "", done.output, done.returncode
    else:
        out = subprocess.run(argv, cwd=COURSE, capture_output=True, text=True, timeout=timeout, env=env)
        stdout, stderr, code = out.stdout, out.stderr, out.returncode
    assert code == 0, f"nbgrader {' '.join(args)} failed:\n{stdout}\n{stderr}"
    assert "[ERROR]" not in stderr and "| ERROR]" not in stderr, stderr[-4000:]


@pytest.fixture(scope="module")
def course():
    try:
        import nbgrader  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, str(REPO / "scripts" / "course.py"), "install"], check=True,
                       timeout=900)
    shutil.rmtree(COURSE, ignore_errors=True)
    subprocess.run([sys.executable, str(REPO / "scripts" / "course.py"), "init", str(COURSE), LAB],
                   check=True, timeout=120)
    (assignment,) = [p.name for p in (COURSE / "source").iterdir()]
    return assignment


def solution_cells(nb):
    return [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")]


@pytest.mark.usefixtures("rust_kernel")
def test_model_full_points_wrong_solution_fewer(course, kernel_pool):
    from editions import RUST_CODE_STUB, solution_region

    path = COURSE / "source" / course / f"{course}.ipynb"
    lab = nbformat.read(path, as_version=4)
    source = labruns.slice_lab(lab, tags=("solution", "check"))  # the exercise, graded as in the lab
    graded = lambda nb: [c for c in nb.cells if c.get("metadata", {}).get("nbgrader")]
    assert graded(lab) and graded(source) == graded(lab), "a graded cell of the lab left out"
    assert ":dep reshard" in source.cells[0].source
    nbformat.write(source, path)
    models = {c.metadata.nbgrader.grade_id: solution_region(c.source) for c in solution_cells(source)}
    assert models, "lab 01 has no exercise with an nbgrader solution cell"

    nbgrader("generate_assignment", course, "--force")
    release = nbformat.read(COURSE / "release" / course / f"{course}.ipynb", as_version=4)
    for cell in solution_cells(release):
        assert RUST_CODE_STUB in cell.source and "BEGIN SOLUTION" not in cell.source
        assert models[cell.metadata.nbgrader.grade_id].strip() not in cell.source

    def submit(student, bodies):
        nb = nbformat.read(COURSE / "release" / course / f"{course}.ipynb", as_version=4)
        for cell in solution_cells(nb):
            body = bodies[cell.metadata.nbgrader.grade_id]
            indent = re.search(r"^([ \t]*)" + re.escape(RUST_CODE_STUB), cell.source, re.M).group(1)
            cell.source = cell.source.replace(indent + RUST_CODE_STUB, body.rstrip("\n"))
        dest = COURSE / "submitted" / student / course / f"{course}.ipynb"
        dest.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, dest)

    submit("model", models)
    submit("offbyone", {gid: WRONG_BODIES.get(gid, body) for gid, body in models.items()})
    assert any(gid in WRONG_BODIES for gid in models), f"no wrong body for {sorted(models)}"

    nbgrader("autograde", course, "--create", "--force", pool=kernel_pool, key=labruns.build_key(source))
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{COURSE / 'gradebook.db'}") as gb:
        model = gb.find_submission(course, "model")
        wrong = gb.find_submission(course, "offbyone")
        scores = (model.score, wrong.score, model.max_score)
    print(f"nbgrader scores on {course}: model {scores[0]}/{scores[2]}, off by one {scores[1]}/{scores[2]}")
    assert scores[2] > 0
    assert scores[0] == scores[2], scores
    assert scores[1] < scores[2], scores
