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

INTRO = """# reshard — what moves when a cluster grows?

A cluster of 10 machines gets an eleventh. How many of its keys have to move, and where do they
go? Each notebook here asks one form of that question about one placement scheme — `hash % N`, the
consistent-hash ring with virtual nodes, rendezvous hashing, fixed shards, and the schemes real
systems use — and answers it with exact numbers computed live by the Rust crate `reshard`. It
follows *Designing Data-Intensive Applications* (Kleppmann & Riccomini), ch. 7 "Sharding", and
three short documents written around it, each cited by its title in its notebook.

**How to read.** Open the notebooks in order. Each step asks you to **predict** first and asks
for your guess on the first line of the next cell (`let guess_… = Guess::percent(p);`), whose
rest **observes** (a short call into the crate that prints your guess beside the measurement), then
explains **why**. Each lab is about an hour; its first cell says what it assumes (the labs before
it) and which sections of DDIA ch. 7 it covers. Every lab has one parameters cell near the top:
change the key count, the node names, the points per node or the seed there, and run all cells
again (Kernel → Restart Kernel and Run All Cells). Check tables set the source document's figure
beside this run's: ✓ when they agree, *corrected* where the document is wrong, and ≠ naming the
parameter you changed, with what theory expects for your run. Each lab has an exercise (you write
the placement step it is about; a check cell tests it) and ends with a table of your predictions.
The first code cell compiles the crate (about a minute on a new machine; a few seconds after that).

**Teachers.** `make handouts` writes, for every lab, a teacher's edition with every answer, a
student's worksheet (HTML, PDF and a runnable `.ipynb`: outputs cleared, a line under each Predict,
the Why cells replaced by empty boxes, the exercise as a stub) and a one-page answer key
(`handouts/teacher/NN-key.pdf`: each Predict, its measured answer, the common wrong guess and why).
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
    first = next((c.source for c in nb.cells if c.cell_type == "markdown"), "")
    # the whole **DDIA:** paragraph (a lab may wrap it over several lines), as one line
    m = re.search(r"\*\*DDIA:\*\*\s*(.+?)(?:\n\s*\n|\Z)", first, re.S)
    ddia = " ".join(m.group(1).split()) if m else ""
    problems = []
    if not title:
        problems.append(f"{path.name}: the first markdown cell has no '# ' title")
    if not summary:
        problems.append(f"{path.name}: metadata.reshard.summary is missing (one line: what it teaches)")
    return nb, title, summary, ddia, problems


def entries():
    rows, problems = [], []
    for p in notebooks():
        nb, title, summary, ddia, probs = title_and_summary(p)
        rows.append((p.name, title or p.stem, summary or "", ddia))
        problems += probs
    return rows, problems


GLOSSARY = """## Glossary

The words every notebook and the crate use for the same things.

| word | in code | meaning |
|---|---|---|
| key count | `n_keys` | how many keys a notebook places |
| hashed key set | `keys` | the keys with their md5 hashes, computed once (`HashedKeys`; `width` says 32 or 128 bits) |
| node | `NodeId`, names | a machine that owns keys, named by a string ("A", "S3", "10") |
| scheme | `Placement` | the rule from a key's hash to its node: `hash % N`, ring, rendezvous, fixed shards, jump, slots, Maglev, ketama, bounded loads |
| point | `vnodes` | one position of a node on the ring (a virtual node); *points per node* is `vnodes` |
| arrangement | `salt` | one layout of the ring's points, chosen by a salt put in front of every point name; a sweep measures many |
| moved, share moved | `Movement` | keys whose node differs before and after a change; the share is moved / key count |
| floor | `over_floor` | the share a scheme that ends balanced must move: \|Δ\| ÷ max(old, new) nodes (10 → 11: 1/11; 10 → 9: 1/10); a scheme that ends unbalanced can move less |
| churn | `between_kept` | keys that move from one old node to another old node: movement the change did not require |
| load, mean load | `LoadReport` | keys (in lab 07, requests) per node; the mean is key count / nodes |
| spread | `max_over_mean` | the largest load over the mean load |
| shard, slot | `FixedShards`, `Slots` | a fixed bucket of keys (`h % S`) that nodes own; Redis Cluster calls its 16,384 buckets slots |
| check row | `Check` | the document's figure beside this run's: ✓ the same, *corrected* the document is wrong, ≠ (x differs) your parameters are not the document's |
| Predict, guess, Observe, Why | cell tags | the parts of a step: you write the guess on the first line of the cell under the Predict, whose rest observes; a student's worksheet drops the Why |
| your predictions | `Predictions`, `book` | every guess kept with its measurement (in the kernel and in a file beside the notebook), tabled at the end of each lab |
| exercise | `exercises` | a function you write from a stub (`todo!`); its check cell runs it on thousands of inputs, against the crate's answers (printing the first difference) or against the properties it must keep (printing each failed one with its smallest counterexample) |
| lcm | — | the least common multiple of two numbers, the smallest number both divide: lcm(10, 11) = 110, lcm(10, 20) = 20 |
| standard deviation | `std_dev` | how far a count strays from its mean, typically; "standard error" only ever means an estimate's standard deviation |
"""

CLAIMS = """## Every claim of the three documents

One table, computed when you run the two cells below: each figure a source document printed, the
figure this crate measures, and the verdict (✓, or corrected with one line why). **It answers the
notebooks' questions**, so read it after them; the student's edition leaves it out.
"""


def index_notebook(rows):
    lines = [INTRO, "## The notebooks, in order", ""]
    for name, title, summary, ddia in rows:
        lines.append(f"1. [{title}]({name}) — {summary}" + (f"  \n   *DDIA:* {ddia}" if ddia else ""))
    lines += ["", f"Start with [{rows[0][1]}]({rows[0][0]})." if rows else ""]
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "rust", "display_name": "Rust", "language": "rust"}
    nb.metadata["language_info"] = {"name": "Rust"}
    cells = [
        ("index", nbformat.v4.new_markdown_cell("\n".join(lines).rstrip() + "\n"), []),
        ("glossary", nbformat.v4.new_markdown_cell(GLOSSARY), []),
        ("claims", nbformat.v4.new_markdown_cell(CLAIMS), []),
        ("crate", nbformat.v4.new_code_cell(':dep reshard = { path = "..", default-features = false, features = ["charts"] }\n'
                                           "use reshard::notebook::*;"), []),
        ("claims-table", nbformat.v4.new_code_cell("let claims = reshard::tutor::reproduce::claims()?;\nclaims"), ["answer"]),
    ]
    for cell_id, cell, tags in cells:
        cell["id"] = cell_id
        if tags:
            cell.metadata["tags"] = tags
    nb.cells = [c for _, c, _ in cells]
    return nbformat.writes(nb) + "\n"


def cell_sources(text):
    """What a reader sees of a notebook: its cells' types and sources
    (executing it adds kernel metadata, which does not matter here)."""
    nb = nbformat.reads(text, as_version=4)
    return [(c.cell_type, c.source, c.metadata.get("tags", [])) for c in nb.cells]


def keep_outputs(new_text, old_text):
    """The new index with the outputs of code cells whose id and source did not change (the
    claims table need not be re-executed because the prose around it changed)."""
    if not old_text:
        return new_text
    old = {c.get("id"): c for c in nbformat.reads(old_text, as_version=4).cells if c.cell_type == "code"}
    nb = nbformat.reads(new_text, as_version=4)
    for cell in nb.cells:
        was = old.get(cell.get("id"))
        if cell.cell_type == "code" and was is not None and was.source == cell.source:
            cell.outputs, cell.execution_count = was.outputs, was.execution_count
    return nbformat.writes(nb) + "\n"


def readme_block(rows):
    out = [BEGIN, "| notebook | what it teaches |", "|---|---|"]
    for name, title, summary, _ in rows:
        out.append(f"| [{title}](notebooks/{name}) | {summary} |")
    out.append(END)
    return "\n".join(out)


def link_problems(rows):
    problems = []
    names = [r[0] for r in rows]  # (name, title, summary, ddia)
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
            INDEX.write_text(keep_outputs(index_text, INDEX.read_text() if INDEX.exists() else None))
        README.write_text(new_readme)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
