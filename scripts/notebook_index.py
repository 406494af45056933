#!/usr/bin/env python3
"""Keep the notebook list in one place: each notebook's metadata.

Every numbered notebook (notebooks/NN-*.ipynb, NN >= 01) carries
`metadata.reshard.summary`, one line saying what it teaches; its title is
the first `# ` heading of its first markdown cell. This script writes

  * notebooks/00-index.ipynb  (the index notebook), and
  * the list between the `notebooks:begin` / `notebooks:end` markers in README.md,

and with --check only verifies that both are up to date and that every
notebook's last cell links to the next notebook and to the index (exit 1
and a message otherwise). `make index` runs it; the notebook tests run
--check.
"""
import argparse
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NB_DIR = ROOT / "notebooks"
INDEX = NB_DIR / "00-index.ipynb"
README = ROOT / "README.md"
BEGIN, END = "<!-- notebooks:begin -->", "<!-- notebooks:end -->"

INTRO = """# reshard — what moves when a cluster grows

A cluster of 10 machines gets an eleventh. How many of its keys have to move, and where do they
go? This tutorial answers with exact numbers, computed live by the Rust crate `reshard` in every
notebook: `hash % N`, the consistent-hash ring with virtual nodes, rendezvous hashing, fixed shards,
and then the schemes real systems use. It follows *Designing Data-Intensive Applications*
(Kleppmann & Riccomini), ch. 7, and three short documents written around it.

**How to read.** Open the notebooks in order. Each step asks you to **predict** first, then
**observes** (a short cell calling the crate), then explains **why**. Every notebook has one
parameters cell near the top: change the key count, the node names, the points per node or the
seed there, and run all cells again (Kernel → Restart Kernel and Run All Cells). Beside each
observed figure the notebook prints the source document's value and ✓ when they agree; after you
change a parameter it prints ≠ and says why instead of failing. The first code cell compiles the
crate, which takes 10–40 seconds the first time.
"""


def notebooks():
    return sorted(p for p in NB_DIR.glob("[0-9][0-9]-*.ipynb") if p.name != INDEX.name)


def title_and_summary(path):
    nb = nbformat.read(path, as_version=4)
    title = None
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    title = line[2:].strip()
                    break
            break
    summary = nb.metadata.get("reshard", {}).get("summary")
    problems = []
    if not title:
        problems.append(f"{path.name}: the first markdown cell has no '# ' title")
    if not summary:
        problems.append(f"{path.name}: metadata.reshard.summary is missing (one line: what it teaches)")
    return nb, title, summary, problems


def entries():
    rows, problems = [], []
    for p in notebooks():
        nb, title, summary, probs = title_and_summary(p)
        rows.append((p.name, title or p.stem, summary or ""))
        problems += probs
    return rows, problems


def index_notebook(rows):
    lines = [INTRO, "## The notebooks, in order", ""]
    for name, title, summary in rows:
        lines.append(f"1. [{title}]({name}) — {summary}")
    lines += ["", f"Start with [{rows[0][1]}]({rows[0][0]})." if rows else ""]
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "rust", "display_name": "Rust", "language": "rust"}
    nb.metadata["language_info"] = {"name": "Rust"}
    cell = nbformat.v4.new_markdown_cell("\n".join(lines).rstrip() + "\n")
    cell["id"] = "index"
    nb.cells = [cell]
    return nbformat.writes(nb) + "\n"


def cell_sources(text):
    """What a reader sees of a notebook: its cells' types and sources
    (executing it adds kernel metadata, which does not matter here)."""
    nb = nbformat.reads(text, as_version=4)
    return [(c.cell_type, c.source) for c in nb.cells]


def readme_block(rows):
    out = [BEGIN, "| notebook | what it teaches |", "|---|---|"]
    for name, title, summary in rows:
        out.append(f"| [{title}](notebooks/{name}) | {summary} |")
    out.append(END)
    return "\n".join(out)


def link_problems(rows):
    problems = []
    names = [r[0] for r in rows]
    for i, name in enumerate(names):
        nb = nbformat.read(NB_DIR / name, as_version=4)
        last = nb.cells[-1] if nb.cells else None
        text = last.source if last is not None and last.cell_type == "markdown" else ""
        wanted = [INDEX.name] + ([names[i + 1]] if i + 1 < len(names) else [])
        for target in wanted:
            if f"({target})" not in text:
                problems.append(f"{name}: the last cell should be markdown linking to ({target})")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only verify; exit 1 if anything is stale")
    args = ap.parse_args()
    rows, problems = entries()
    problems += link_problems(rows)
    index_text = index_notebook(rows)
    readme = README.read_text()
    if BEGIN not in readme or END not in readme:
        problems.append(f"README.md: missing the {BEGIN} … {END} markers")
        new_readme = readme
    else:
        new_readme = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: readme_block(rows), readme, flags=re.S)
    if args.check:
        if not INDEX.exists() or cell_sources(INDEX.read_text()) != cell_sources(index_text):
            problems.append("notebooks/00-index.ipynb is out of date: run `make index`")
        if new_readme != readme:
            problems.append("README.md's notebook list is out of date: run `make index`")
    else:
        if not INDEX.exists() or cell_sources(INDEX.read_text()) != cell_sources(index_text):
            INDEX.write_text(index_text)
        README.write_text(new_readme)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
