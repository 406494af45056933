"""The nbgrader round trip on the Rust kernel (README: "Teaching a course with nbgrader").

nbgrader (pinned in requirements-nbgrader.txt) is installed into the project venv if missing.
A course directory is made from lab 01 (scripts/course.py), `nbgrader generate_assignment`
replaces the exercise's model solution by the stub, two students submit, and `nbgrader
autograde` runs both on the Rust kernel: the model solution scores full points, a solution off
by one at the ring's wrap-around scores less (its check cell panics, and under RESHARD_GRADING
a panic is a cell error).

Lab 03 grades its exercise by invariant: four check cells (balance, minimal movement,
determinism, errors), each with its points and a hidden-test region that only autograde runs.
Its round trip submits the model and a shard controller that lays the shards out afresh on
every join and leave (balanced, deterministic, refusing what it must, but moving shards between
nodes that stay): only the minimal-movement cell loses its points, and the feedback names the
invariant and the smallest sequence that breaks it.

Autograde runs only the exercise: each course's lab is cut down to its first code cell (the
`:dep` line), the solution cell and its graded checks (labruns.slice_lab; every cell nbgrader
grades is kept, asserted below), because the whole lab already runs once in this session
(test_notebooks.py). The kernels run on a worker of the tests' kernel pool, so they reuse the
crate as built for notebooks/ instead of building it in each student's folder.

The courses live in target/nbgrader-test/ and target/nbgrader-test-03/ (rebuilt each run).
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

# conftest.py: its autograde runs on the kernel pool, its jobs ahead of the labs still
# waiting; this module runs before the other modules that start kernels
POOL_JOBS_EARLY = True

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


def nbgrader(*args, timeout=1800, course=COURSE, pool=None, key=None):
    """Run nbgrader in `course`; with `pool` (its kernels), on a worker of the kernel pool
    (`key`: the build of the crate they use). Returns (stdout, stderr)."""
    # nbgrader runs `alembic` (its database migrations) from PATH: the venv's bin first
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    argv = [str(BIN / "nbgrader"), *args]
    if pool is not None:
        done = pool.run(argv, cwd=course, env={"PATH": env["PATH"]}, key=key)
        stdout, stderr, code = "", done.output, done.returncode
    else:
        out = subprocess.run(argv, cwd=course, capture_output=True, text=True, timeout=timeout, env=env)
        stdout, stderr, code = out.stdout, out.stderr, out.returncode
    assert code == 0, f"nbgrader {' '.join(args)} failed:\n{stdout}\n{stderr}"
    assert "[ERROR]" not in stderr and "| ERROR]" not in stderr, stderr[-4000:]
    return stdout, stderr


def exercise_only(path):
    """Cut the course's lab at `path` down to its exercise (see the docstring), in place; every
    cell nbgrader grades is kept. Returns the cut notebook."""
    lab = nbformat.read(path, as_version=4)
    cut = labruns.slice_lab(lab, tags=("solution", "check"))  # the exercise, graded as in the lab
    graded = lambda nb: [c for c in nb.cells if c.get("metadata", {}).get("nbgrader")]
    assert graded(lab) and graded(cut) == graded(lab), "a graded cell of the lab left out"
    assert ":dep reshard" in cut.cells[0].source
    nbformat.write(cut, path)
    return cut


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

    source = exercise_only(COURSE / "source" / course / f"{course}.ipynb")
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


# ---- lab 03: one grade per invariant ---------------------------------------------------------

COURSE_03 = REPO / "target" / "nbgrader-test-03"

# Lab 03's shard controller, broken in one invariant only: after a join or leave it lays the
# shards out afresh over the nodes (shard s on the s % N-th). Always balanced, deterministic, and
# it refuses what it must, but shards move between nodes that stay: the smallest case is 2 shards
# on nodes 0, 1, 2 and Leave(0), where [0, 1] becomes [1, 2] (shard 1 goes from node 1 to 2).
AFRESH_BODY = """\
    match op {
        Op::Join(n) if !a.has(n) => a.nodes.push(n),
        Op::Leave(n) if a.has(n) && a.nodes.len() > 1 => a.nodes.retain(|&m| m != n),
        Op::Move(s, n) if s < a.shards.len() && a.has(n) => { a.shards[s] = n; return Ok(a) }
        _ => return Err(format!("{op} does not apply to nodes {:?}", a.nodes)),
    }
    a.nodes.sort_unstable();
    for s in 0..a.shards.len() { a.shards[s] = a.nodes[s % a.nodes.len()]; }
    Ok(a)
"""
# (grade_id, points) of lab 03's check cells, as the notebook's metadata gives them
INVARIANT_CELLS = {"check_controller_balance": 2, "check_controller_minimal_movement": 2,
                   "check_controller_determinism": 1, "check_controller_errors": 1}


@pytest.fixture(scope="module")
def course_03():
    try:
        import nbgrader  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, str(REPO / "scripts" / "course.py"), "install"], check=True,
                       timeout=900)
    shutil.rmtree(COURSE_03, ignore_errors=True)
    subprocess.run([sys.executable, str(REPO / "scripts" / "course.py"), "init", str(COURSE_03), "03"],
                   check=True, timeout=120)
    (assignment,) = [p.name for p in (COURSE_03 / "source").iterdir()]
    return assignment


def grade_cells(nb):
    return [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")]


@pytest.mark.usefixtures("rust_kernel")
def test_lab03_each_invariant_has_its_own_points_and_hidden_cases(course_03, kernel_pool):
    from editions import RUST_CODE_STUB, solution_region
    from nbgrader.api import Gradebook

    lab = course_03
    source = exercise_only(COURSE_03 / "source" / lab / f"{lab}.ipynb")
    assert {c.metadata.nbgrader.grade_id: c.metadata.nbgrader.points for c in grade_cells(source)} \
        == INVARIANT_CELLS
    assert all("BEGIN HIDDEN TESTS" in c.source for c in grade_cells(source))
    (model,) = [solution_region(c.source) for c in solution_cells(source)]

    nbgrader("generate_assignment", lab, "--force", course=COURSE_03)
    release = nbformat.read(COURSE_03 / "release" / lab / f"{lab}.ipynb", as_version=4)
    (stub,) = solution_cells(release)
    assert RUST_CODE_STUB in stub.source and model.strip() not in stub.source
    for cell in grade_cells(release):  # the learner sees the visible check, not the hidden one
        assert "HIDDEN" not in cell.source and ".seed(" not in cell.source, cell.source
        assert "exercises::shard_controller(rebalance)" in cell.source

    for student, body in (("model", model), ("afresh", AFRESH_BODY)):
        nb = nbformat.read(COURSE_03 / "release" / lab / f"{lab}.ipynb", as_version=4)
        (cell,) = solution_cells(nb)
        indent = re.search(r"^([ \t]*)" + re.escape(RUST_CODE_STUB), cell.source, re.M).group(1)
        cell.source = cell.source.replace(indent + RUST_CODE_STUB, body.rstrip("\n"))
        dest = COURSE_03 / "submitted" / student / lab / f"{lab}.ipynb"
        dest.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, dest)

    nbgrader("autograde", lab, "--create", "--force", course=COURSE_03, pool=kernel_pool,
             key=labruns.build_key(source))
    with Gradebook(f"sqlite:///{COURSE_03 / 'gradebook.db'}") as gb:
        scores = {student: {g.name: g.score for g in gb.find_submission(lab, student).notebooks[0].grades}
                  for student in ("model", "afresh")}
    print(f"nbgrader scores on {lab}, per invariant: {scores}")
    assert scores["model"] == INVARIANT_CELLS, scores
    assert scores["afresh"] == {**INVARIANT_CELLS, "check_controller_minimal_movement": 0}, scores

    # The feedback names the invariant and its smallest counterexample, with the tables.
    graded = nbformat.read(COURSE_03 / "autograded" / "afresh" / lab / f"{lab}.ipynb", as_version=4)
    out = {c.metadata.nbgrader.grade_id: "".join(o.get("text", "") for o in c.get("outputs", [])
                                                 if o.get("name") == "stdout")
           for c in grade_cells(graded)}
    moved = " ".join(out["check_controller_minimal_movement"].split())  # the report wraps its lines
    assert moved.startswith("✗ minimal movement"), moved
    assert ("the smallest sequence that breaks it: 2 shards on nodes 0, 1, 2 (shard s on node s % 3), "
            "then Leave(0)") in moved, moved
    assert "before Leave(0): shard → node [0, 1]" in moved and "yours: Ok: shard → node [1, 2]" in moved
    assert "wrong: shard 1 went from node 1 to node 2" in moved, moved
    for gid in ("check_controller_balance", "check_controller_determinism", "check_controller_errors"):
        assert out[gid].count("✓") == 2, f"{gid}: the visible and the hidden cases pass: {out[gid]}"
    nbgrader("generate_feedback", lab, "--force", course=COURSE_03)
    html = (COURSE_03 / "feedback" / "afresh" / lab / f"{lab}.html").read_text(encoding="utf-8")
    assert "minimal movement" in html and "Leave(0)" in html
