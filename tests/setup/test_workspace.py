"""scripts/workspace.py: the learner's copies are made once, never overwritten, announced
when behind, and started over only with a dated backup."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "workspace.py"
LABS = sorted((REPO / "notebooks").glob("[0-9][0-9]-*.ipynb"))


def run(*args):
    out = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@pytest.fixture
def dirs(tmp_path):
    nbs = tmp_path / "notebooks"
    nbs.mkdir()
    for p in LABS[:3]:  # the index and two labs are enough
        shutil.copy(p, nbs / p.name)
    return nbs, tmp_path / "workspace"


def lab(nbs):
    return sorted(nbs.glob("0[1-9]-*.ipynb"))[0]


def test_first_sync_makes_learner_copies(dirs):
    nbs, ws = dirs
    out = run("sync", "--notebooks", nbs, "--workspace", ws)
    assert str(ws) in out and "made 3 new" in out
    copy = nbformat.read(ws / lab(nbs).name, as_version=4)
    assert all(not c.get("outputs") for c in copy.cells if c.cell_type == "code")
    answers = [c for c in copy.cells if "answer" in c.metadata.get("tags", [])]
    assert answers and all(c.metadata.get("jupyter", {}).get("source_hidden") for c in answers)
    code_answers = [c for c in answers if c.cell_type == "code"]
    assert all(c.metadata["jupyter"].get("outputs_hidden") for c in code_answers)
    solutions = [c for c in copy.cells if "solution" in c.metadata.get("tags", [])]
    assert solutions and all("todo!(" in c.source and "BEGIN SOLUTION" not in c.source for c in solutions)


def test_a_learners_edit_is_never_overwritten(dirs):
    nbs, ws = dirs
    run("sync", "--notebooks", nbs, "--workspace", ws)
    mine = ws / lab(nbs).name
    nb = nbformat.read(mine, as_version=4)
    nb.cells[0].source += "\n\nmy own note"
    nbformat.write(nb, mine)
    # upstream changes too: the copy is kept, the change announced with the way to start over
    up = nbformat.read(lab(nbs), as_version=4)
    up.cells[0].source += "\n\nan upstream fix"
    nbformat.write(up, lab(nbs))
    out = run("sync", "--notebooks", nbs, "--workspace", ws)
    assert "my own note" in mine.read_text()
    assert "an upstream fix" not in mine.read_text()
    assert f"make lab-restart LAB={lab(nbs).name[:2]}" in out and "changed since" in out
    status = run("status", "--notebooks", nbs, "--workspace", ws)
    assert "behind" in status


def test_restart_keeps_a_dated_backup(dirs):
    nbs, ws = dirs
    run("sync", "--notebooks", nbs, "--workspace", ws)
    mine = ws / lab(nbs).name
    mine.write_text(mine.read_text().replace('"cells": [', '"cells": [', 1))
    nb = nbformat.read(mine, as_version=4)
    nb.cells[0].source += "\n\nmy own note"
    nbformat.write(nb, mine)
    (ws / f"{lab(nbs).name[:2]}.predictions.tsv").write_text("# guesses\n")
    out = run("restart", lab(nbs).name[:2], "--notebooks", nbs, "--workspace", ws)
    backups = list((ws / "backups").glob("*.ipynb"))
    assert len(backups) == 1 and "my own note" in backups[0].read_text(), out
    assert list((ws / "backups").glob("*.predictions-*.tsv"))
    assert "my own note" not in mine.read_text()
    state = json.loads((ws / ".made-from.json").read_text())
    assert lab(nbs).name in state
