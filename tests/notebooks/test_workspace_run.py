"""A learner's copy (scripts/workspace.py) runs from its own folder: its first cell finds the
crate, the exercise's check passes once the learner has written the function, and the guesses
are kept beside the copy and tabled at the end ("your predictions").

With the function written, the copy's code cells are the lab's own (asserted below), which the
lab's one execution runs (test_notebooks.py). So the copy itself runs only what differs: from its
folder, its cells up to the first guess (a guess written), the exercise and its check, and the
predictions table (labruns.slice_lab), on a worker of the tests' kernel pool."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import labruns

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from editions import solution_region, without_markers  # noqa: E402

# conftest.py: the learner's copy runs on the kernel pool, its jobs ahead of the labs still
# waiting; this module runs before the other modules that start kernels
POOL_JOBS_EARLY = True

REPO = Path(__file__).resolve().parents[2]
WS = REPO / ".workspace-test"  # beside notebooks/, as workspace/ is (git ignores it)
LAB = "02-rendezvous-hashing.ipynb"


@pytest.mark.usefixtures("rust_kernel")
def test_a_learner_copy_runs_from_its_folder(kernel_pool):
    shutil.rmtree(WS, ignore_errors=True)
    subprocess.run([sys.executable, str(REPO / "scripts" / "workspace.py"), "sync", "--workspace", str(WS)],
                   check=True, capture_output=True, timeout=120)
    copy = WS / LAB
    nb = nbformat.read(copy, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    teacher = nbformat.read(REPO / "notebooks" / LAB, as_version=4)
    models = [solution_region(c.source) for c in teacher.cells if "solution" in c.metadata.get("tags", [])]
    stubs = [c for c in nb.cells if "solution" in c.metadata.get("tags", [])]
    assert models and len(models) == len(stubs)
    for cell, model in zip(stubs, models):  # the learner writes the function
        cell.source = re.sub(r"^[ \t]*todo!\(.*\)$", lambda _: model, cell.source, count=1, flags=re.M)
    code = lambda book: [c.source for c in book.cells if c.cell_type == "code"]
    assert code(nb) == [without_markers(s) for s in code(teacher)], "the copy runs other code than the lab"
    guess = next(c for c in nb.cells if "guess" in c.metadata.get("tags", []))
    guess.source = re.sub(r"Guess::none\(\)", "Guess::count(7)", guess.source, count=1)
    nbformat.write(labruns.slice_lab(nb, through_tag="guess", tags=("solution", "check", "predictions")), copy)

    run = kernel_pool.execute(copy, keep_guesses=True, out=WS / ".executed")  # kept beside it, as for a learner
    assert run.error is None, run.error
    ran = run.executed
    checks = [c for c in ran.cells if "check" in c.metadata.get("tags", [])]
    text = lambda c: "".join(o.get("text", "") for o in c.get("outputs", []))
    assert checks and all("✓" in text(c) for c in checks), [text(c) for c in checks]
    kept = (WS / f"{LAB[:2]}.predictions.tsv").read_text()
    assert "count:7" in kept, kept
    table = next(c for c in ran.cells if "predictions" in c.metadata.get("tags", []))
    shown = "".join(o.get("data", {}).get("text/plain", "") for o in table.outputs)
    assert "your predictions" in shown and "7" in shown, shown
    shutil.rmtree(WS, ignore_errors=True)
