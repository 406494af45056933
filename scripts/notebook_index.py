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
go? The first labs ask that of one placement scheme at a time — `hash % N`, the consistent-hash
ring with virtual nodes, rendezvous hashing, fixed shards, jump hash, slots and Maglev — then of
real systems started on this machine (Redis Cluster, twemproxy, nginx), of hot keys, of data kept in
ranges of keys on PostgreSQL nodes, and of queries by anything but the key. Each answers with exact
numbers computed live by the Rust crate `reshard`. It follows *Designing Data-Intensive
Applications* (Kleppmann & Riccomini), ch. 7 "Sharding", and three short documents written around
it, each cited by its title in its notebook.

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
The findings map below is the syllabus: every question the course asks, once.
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


GLOSSARY = r"""## Glossary

The words every notebook and the crate use for the same things. As in DDIA, a *node* is a machine
or server and a *shard* is a subset of the data that a node holds.

| word | in code | meaning |
|---|---|---|
| key count | `n_keys` | how many keys a notebook places |
| hashed key set | `keys` | the keys with their md5 hashes, computed once (`HashedKeys`; `width` says 32 or 128 bits) |
| node | `NodeId`, names | a machine or server that holds keys, named by a string ("A", "S3", "10"); in labs 09 and 10 a PostgreSQL server |
| scheme | `Placement` | the rule from a key's hash to its node: `hash % N`, ring, rendezvous, fixed shards, jump, slots, Maglev, ketama, bounded loads |
| point | `vnodes` | one position of a node on the ring (a virtual node); *points per node* is `vnodes` |
| arrangement | `salt` | one layout of the ring's points, chosen by a salt put in front of every point name; a sweep measures many |
| moved, share moved | `Movement` | keys whose node differs before and after a change; the share is moved / key count |
| floor | `over_floor` | the share a scheme that ends balanced must move: \|Δ\| ÷ max(old, new) nodes (10 → 11: 1/11; 10 → 9: 1/10); a scheme that ends unbalanced can move less |
| churn | `between_kept` | keys that move from one old node to another old node: movement the change did not require |
| load, mean load | `LoadReport` | keys (in lab 07, requests) per node; the mean is key count / nodes |
| spread | `max_over_mean` | the largest load over the mean load |
| shard, slot | `FixedShards`, `Slots` | a subset of the data that a node holds; a fixed shard is a bucket of keys (`h % S`) that nodes own, and Redis Cluster calls its 16,384 buckets slots; a range and a partition are shards too |
| range, boundary | `KeyRanges`, `HashRanges` | a shard of keys in order: a range holds the keys from its lower boundary (included) up to the next boundary (excluded); key ranges cut the keys as bytes compare, hash ranges cut their hashes |
| partition | `Partition`, `TableSpec` | PostgreSQL's word for one range of a partitioned table (and DDIA 1st ed.'s for a shard); in labs 09 and 10 a foreign table whose rows live on one node |
| coordinator | `COORDINATOR` | the PostgreSQL server that holds the partitioned table, routes every row and query to the nodes, and holds no rows itself |
| split | `split_at`, `LoadSplit` | cutting a range in two: by size at its median key, or by load where its recent requests fall half on each side |
| pre-splitting | `presplit` | cutting a table into ranges before the rows come, at a sample of keys like them |
| balancer | `GrowthSettings::balance` | what moves whole ranges between nodes to even out the rows they hold |
| hot spot | — | a node that takes far more of the writes or reads than the others |
| local index, global index | `LocalIndex`, `GlobalIndex` | a local (document-partitioned) index: each node indexes its own rows; a global (term-partitioned) index: one index over all rows, sharded by the indexed value |
| term, posting | `term`, `postings_key` | a term is an attribute and a value (`colour:red`); a posting is one entry of a global index, `colour:red/item:01234`, so a term's postings sort together |
| scatter/gather, fan-out | `IndexQuery` | a query sent to many nodes (scatter) whose answers are combined (gather); its fan-out is the number of nodes it asks |
| tail, tail latency | `Latency`, `FanOutSweep` | the slowest few requests (the 99th percentile and above); a query that asks several nodes waits for the slowest |
| drain | `AsyncIndex` | applying the queued updates of an index that is brought up to date later |
| stale read | `StaleReads` | a read that misses a write already committed |
| two-phase commit | — | a protocol that makes every node of a transaction commit, or none; `postgres_fdw` does not use it, so a write across nodes can be left half done |
| shard map | `ShardMap`, `MapEntry` | which node owns each shard; in lab 11 one etcd key per shard, written by a controller and read by the routers |
| controller, router | `ShardLab` | a controller decides where shards go and writes each move to the map; a router sends each request to the node its copy of the map names |
| revision, version, epoch | `mod_revision`, `version` | etcd's revision numbers the changes of its whole store; a key's version counts its own writes, and its mod revision is the store's revision at its last write: a shard's epoch |
| compare-and-swap | `Cas` | a write that takes effect only if the entry is still as it was read; otherwise it changes nothing |
| lease, TTL, heartbeat | `Lease`, `Heartbeat` | a lease is a time to live (TTL) granted by etcd and renewed by its holder's heartbeats; the keys attached to it are deleted when it runs out |
| leader, term | `LeaderLoss` | the etcd member that takes every write; raft numbers each leadership with a term |
| watch | `Watch` | a stream of the changes to a range of keys, which etcd sends as they are made |
| misroute | `RoutingRun` | a request sent to a node that no longer owns its shard |
| fencing token | `FencedNodes` | a number that rises with every change of owner (here the epoch), sent with each request so that a node can refuse one older than what it has seen |
| zombie | `ZombieRouter` | a router or node that stopped for a while (a long pause, a lost network) and acts on what it knew before |
| automatic rebalancing | `AutoFailover` | a controller that moves a node's shards by itself when the node's lease runs out |
| model, live | `Predictions` | a model's figure comes from a formula or a seeded simulation; a live one is measured on the servers; the predictions table shows both |
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

# The findings map: every finding the course asks (a Predict's `reshard.finding`), in plain words —
# the question, never its answer — and the formulas its answer follows, which no text a learner reads
# before that Predict may state (README.md and the index not at all; tests/notebooks/teaching.py).
# Keep it true: `--check` fails on a Predict whose finding is missing here, and on an entry no
# Predict asks. Two entries that say the same thing are one finding: ask it once, recall it later.
FINDINGS: dict[str, tuple[str, list[str]]] = {
    # 01
    "mod-n-moves-most": ("what share of the keys `hash % N` moves when nodes are added or removed",
                         ["min/lcm", "1 − min(old, new) / lcm(old, new)"]),
    "mod-n-common-factors": ("which node counts, grown from 10, make `hash % N` move the fewest keys", []),
    "one-point-arcs-uneven": ("how evenly three points, one per node, cut the consistent-hash ring", ["11/18"]),
    "join-moves-only-to-new-node": ("where the keys go when a node joins a ring, and how even the load is with 1 or "
                                    "150 points per node", []),
    "replace-with-new-name-moves-more": ("what replacing a failed node under a new name moves on a ring", []),
    "arrangement-spread": ("how much the share a join moves depends on where the ring's points happen to fall", []),
    # 02
    "rendezvous-takes-from-every-node": ("from which old nodes a joining node takes keys under rendezvous hashing",
                                         []),
    "mod-n-churn": ("how many of `hash % N`'s movers hop between two old nodes (churn)", []),
    "mover-count-sd": ("how far a count of keys strays from its mean: its binomial standard deviation",
                       ["√(n·p·(1 − p))", "√(n p (1 − p))"]),
    "weighted-rendezvous-share": ("what share of the keys a node of a given weight holds under weighted "
                                  "rendezvous", ["wᵢ/Σw", "w/Σw"]),
    # 03
    "fixed-shards-count-moved": ("how many fixed shards, and keys, move when a node joins", []),
    "leave-deals-shards-evenly": ("how a leaving node's fixed shards are dealt out to the others", []),
    "changing-shard-count-reshuffles": ("what changing the number of fixed shards moves", []),
    "per-process-hash-disagrees": ("what a hash seeded per process does to routing between two processes", []),
    # 04
    "jump-changes-harmonic": ("how often a key changes bucket as jump hash grows one bucket at a time",
                              ["1/2 + 1/3"]),
    "hash-tag-same-slot": ("where Redis Cluster puts keys that share a hash tag", []),
    "maglev-refill-race": ("how Maglev's lookup table refills when a backend fails, by hand on the paper's example",
                           []),
    "jump-middle-leave-renumbers": ("what jump hash moves when a node leaves from the middle", []),
    "maglev-survivor-churn": ("whether Maglev moves keys between backends that stay", []),
    # 05
    "lookup-memory-by-scheme": ("which scheme's lookup structure takes the most memory", []),
    "spread-falls-as-inverse-sqrt-points": ("how a ring's load spread shrinks as the points per node grow",
                                            ["1/√k", "1/√points"]),
    "ketama-weight-shares-scatter": ("how far ketama's shares stray from the weights", []),
    "bounded-loads-move-more": ("what a cap on the busiest node (bounded loads) costs in keys moved", []),
    # 06
    "redis-slots-uneven-keys": ("how many keys a Redis master holds when the 16,384 slots are split in thirds", []),
    "redis-rebalance-which-slots": ("which slots redis-cli moves to a joining master, and from which masters", []),
    "redis-moved-ask-routing": ("what a Redis master answers for a key it no longer serves, during and after a "
                                "migration", []),
    "redis-migrate-per-slot": ("how many MIGRATE commands redis-cli sends to empty a master", []),
    # 07
    "zipf-hottest-key-share": ("what share of the requests the hottest key takes under a Zipf workload",
                               ["1/H(n, s)"]),
    "balanced-keys-unbalanced-requests": ("whether balanced key counts give balanced request loads", []),
    "bound-cannot-split-a-key": ("how close a bound on load brings the busiest node when one key is hot", []),
    "splitting-hot-keys-costs-fanout": ("what splitting hot keys into sub-keys costs the reads", []),
    "replica-copies-on-join": ("how many replica copies a join makes anew", ["3/11"]),
    "failover-heirs": ("who takes over a failed node's requests, and how busy they get", []),
    # 08
    "twemproxy-ketama-fullest": ("how many keys twemproxy's ketama puts on its fullest server, and whether the "
                                 "crate names each key's server", []),
    "leaving-server-revives-old-copies": ("what cached reads return when a server leaves again", []),
    "modula-fnv1a-skew": ("how evenly twemproxy's modula spreads keys with its default hash", []),
    "nginx-vs-libketama-differ": ("whether nginx's consistent hash and a libketama client put keys alike", []),
    # 09
    "key-range-byte-order": ("which rows a key range holds when keys compare as bytes", []),
    "range-query-fan-out": ("how many nodes a range query asks, under ranges of keys and under ranges of hashes",
                            []),
    "timestamp-hot-spot": ("where the writes go when the key is a timestamp", []),
    "split-follows-the-hot-spot": ("where the next writes go after a hot range splits, and what a split by load "
                                   "moves", []),
    "sequential-splits-more": ("how many splits and balancing moves writes in time order cost, against writes "
                               "at random", []),
    "sensor-prefix-spreads-writes": ("what a sensor's name before the time does to the writes, and to a query "
                                     "across sensors", []),
    # 10
    "local-unique-index-lets-duplicates-in": ("what a unique constraint kept by each node's local index lets "
                                              "through", []),
    "fan-out-tail-amplification": ("what share of the queries that ask every node wait for a slow one",
                                   ["1 − (1 − p)^N", "1 − 0.99^N", "Π Fᵢ"]),
    "global-index-write-spans-nodes": ("how many nodes one insert writes under a local and under a global index",
                                       []),
    "async-index-stale-reads": ("how often a read misses a write that an index brought up to date later has not "
                                "taken yet", ["lag/period", "1 − lag/period"]),
    # 11
    "map-compare-and-swap-race": ("how many of several controllers that compare-and-swap one shard map entry at "
                                  "once win, and what the map's revision counts", []),
    "etcd-leader-election-window": ("how long a three-member etcd cluster is without a leader after its leader "
                                    "is killed", []),
    "lease-ttl-granted-and-expiry": ("what TTL etcd grants for a short lease, and when a key on it goes after "
                                     "the heartbeat stops", ["⌈1.5 × election timeout⌉"]),
    "stale-router-misroutes-by-policy": ("how many requests a router with an old shard map sends to the wrong "
                                         "node, under each way of refreshing it", []),
    "fencing-token-stops-zombie-writes": ("what becomes of the writes of a router that slept through a move, "
                                          "with and without a fence on the nodes", []),
    "auto-failover-pause-moves-shards": ("what automatic rebalancing does to a node whose heartbeat pauses "
                                         "for a while", []),
}


def course_findings(paths=None):
    """Who asks and who recalls each finding: ({id: (lab, notebook name)}, {id: [labs recalling it]},
    [problems]), read from the labs' metadata."""
    asked, recalled, problems = {}, {}, []
    for path in paths if paths is not None else notebooks():
        lab = path.name[:2]
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            meta = cell.metadata.get("reshard", {}) or {}
            if "predict" in (cell.metadata.get("tags") or []) and meta.get("finding"):
                asked.setdefault(meta["finding"], (lab, path.name))
            for r in meta.get("recalls", []) or []:
                recalled.setdefault(r, [])
                if lab not in recalled[r]:
                    recalled[r].append(lab)
    return asked, recalled, problems


def findings_problems(asked, recalled, findings=None):
    """A finding a Predict asks that the map lacks, an entry of the map no Predict asks, a recall
    of a finding not in the map."""
    findings = FINDINGS if findings is None else findings
    problems = [f"{where}: finding {f!r} is not in the findings map (scripts/notebook_index.py FINDINGS): add "
                f"one line in plain words, the question and not its answer"
                for f, (_, where) in sorted(asked.items()) if f not in findings]
    problems += [f"the findings map lists {f!r}, which no Predict asks: remove it, or ask it"
                 for f in sorted(findings) if f not in asked]
    problems += [f"a cell recalls {f!r}, which the findings map lacks" for f in sorted(recalled) if f not in findings]
    return problems


def findings_cell(asked, recalled):
    lines = ["## Findings map", "",
             "Every finding the course asks, once, in the order the labs ask it: what the question is about "
             "(not its answer), the lab that asks it, and the later labs that recall it in a computed line.",
             "", "| finding | the question, in plain words | asked in | recalled in |", "|---|---|---|---|"]
    order = sorted(asked, key=lambda f: (asked[f][0], list(FINDINGS).index(f) if f in FINDINGS else 0))
    for f in order:
        lab, name = asked[f]
        again = ", ".join(recalled.get(f, [])) or "—"
        lines.append(f"| `{f}` | {FINDINGS.get(f, ('?', []))[0]} | [{lab}]({name}) | {again} |")
    return "\n".join(lines) + "\n"


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
        ("findings", nbformat.v4.new_markdown_cell(findings_cell(*course_findings()[:2])), []),
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
    asked, recalled, _ = course_findings()
    problems += findings_problems(asked, recalled)
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
