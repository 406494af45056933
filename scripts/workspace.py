"""The learner's own copies of the labs: what `make lab` opens.

    python scripts/workspace.py sync            make missing copies, keep the others, say what changed
    python scripts/workspace.py restart 03      start lab 03 over (the old copy is kept, dated)
    python scripts/workspace.py status          where the copies are, and which are behind

The copies live in workspace/ (git ignores it), one per notebook in notebooks/, made by
scripts/editions.py's `learner_copy`: outputs cleared, every answer (a Why, a check table, a
model solution) collapsed with JupyterLab's own cell metadata, so a learner predicts, runs, and
then clicks the collapsed cell to reveal it. workspace/ sits beside notebooks/, so a copy's
`:dep reshard = { path = ".." }` finds the crate, and its guesses are kept beside it
(`NN.predictions.tsv`).

Nothing here ever overwrites a learner's copy. `sync` makes only the copies that are missing;
when a lab changed upstream after its copy was made, it says so and how to start over. `restart`
first moves the old copy (and its predictions file) to workspace/backups/, with the date and time
in the name, then makes a fresh copy.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from editions import learner_copy  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
STATE = ".made-from.json"  # per copy: the fingerprint of the upstream lab it was made from


def fingerprint(nb) -> str:
    """What a learner's copy is made of: the learner edition's cells (no outputs), hashed."""
    cells = [(c.cell_type, c.source, c.get("metadata", {}).get("tags", [])) for c in nb.cells]
    return hashlib.sha256(json.dumps(cells, sort_keys=True).encode()).hexdigest()[:16]


def labs(notebooks: Path) -> list[Path]:
    return sorted(p for p in notebooks.glob("*.ipynb") if p.name[:2].isdigit())


def load_state(ws: Path) -> dict:
    try:
        return json.loads((ws / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def save_state(ws: Path, state: dict) -> None:
    (ws / STATE).write_text(json.dumps(state, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def learner_edition(src: Path):
    return learner_copy(nbformat.read(src, as_version=4))


def write_copy(copy, dest: Path) -> str:
    """Write a fresh copy (whole, or not at all) and return its fingerprint."""
    tmp = dest.with_suffix(".ipynb.tmp")
    nbformat.write(copy, tmp)
    tmp.replace(dest)
    return fingerprint(copy)


def lab_id(name: str) -> str:
    return name[:2]


def sync(ws: Path, notebooks: Path, out=print) -> int:
    ws.mkdir(parents=True, exist_ok=True)
    state = load_state(ws)
    made, kept, behind = [], [], []
    for src in labs(notebooks):
        dest, copy = ws / src.name, learner_edition(src)
        if not dest.exists():
            state[src.name] = {"fingerprint": write_copy(copy, dest), "made": now()}
            made.append(src.name)
            continue
        kept.append(src.name)
        if state.get(src.name, {}).get("fingerprint") != fingerprint(copy):
            behind.append(src.name)
    save_state(ws, state)
    out(f"Your copies of the labs: {ws}/")
    if made:
        out(f"  made {len(made)} new: {', '.join(made)}")
    if kept:
        out(f"  kept {len(kept)} as you left them")
    for name in behind:
        since = state.get(name, {}).get("made", "an earlier version")
        out(f"  note: notebooks/{name} changed since your copy was made ({since}); your copy is"
            f" unchanged. To start it over from the new version (your copy is kept in"
            f" workspace/backups/): make lab-restart LAB={lab_id(name)}")
    return 0


def restart(ws: Path, notebooks: Path, which: str, out=print) -> int:
    matches = [p for p in labs(notebooks) if p.name.startswith(which) or p.stem == which]
    if len(matches) != 1:
        names = ", ".join(lab_id(p.name) for p in labs(notebooks))
        out(f"lab-restart: LAB={which!r} names {len(matches)} labs; give one of: {names}")
        return 2
    src = matches[0]
    dest = ws / src.name
    ws.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    backups = ws / "backups"
    if dest.exists():
        backups.mkdir(exist_ok=True)
        kept = backups / f"{src.stem}-{stamp}.ipynb"
        dest.replace(kept)
        out(f"Your copy is kept as {kept}")
    guesses = ws / f"{lab_id(src.name)}.predictions.tsv"
    if guesses.exists():
        backups.mkdir(exist_ok=True)
        kept_guesses = backups / f"{lab_id(src.name)}.predictions-{stamp}.tsv"
        guesses.replace(kept_guesses)
        out(f"Your guesses are kept as {kept_guesses}")
    state = load_state(ws)
    state[src.name] = {"fingerprint": write_copy(learner_edition(src), dest), "made": now()}
    save_state(ws, state)
    out(f"A fresh copy of {src.name}: {dest}")
    return 0


def status(ws: Path, notebooks: Path, out=print) -> int:
    state = load_state(ws)
    out(f"Copies in {ws}/ (made from {notebooks}/):")
    for src in labs(notebooks):
        dest = ws / src.name
        if not dest.exists():
            out(f"  {src.name}: no copy yet (make lab makes it)")
            continue
        upstream = fingerprint(learner_edition(src))
        mark = "up to date" if state.get(src.name, {}).get("fingerprint") == upstream else \
            f"behind notebooks/ (make lab-restart LAB={lab_id(src.name)} to start over)"
        out(f"  {src.name}: {mark}")
    return 0


def now() -> str:
    return dt.datetime.now().strftime("%Y-%m-%d %H:%M")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["sync", "restart", "status"])
    ap.add_argument("lab", nargs="?", help="restart: the lab's number, e.g. 03")
    ap.add_argument("--workspace", type=Path, default=REPO / "workspace")
    ap.add_argument("--notebooks", type=Path, default=NOTEBOOKS)
    a = ap.parse_args(argv)
    ws, nbs = a.workspace.resolve(), a.notebooks.resolve()
    if a.command == "sync":
        return sync(ws, nbs)
    if a.command == "status":
        return status(ws, nbs)
    if not a.lab:
        print("lab-restart needs the lab: make lab-restart LAB=03")
        return 2
    return restart(ws, nbs, a.lab)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
