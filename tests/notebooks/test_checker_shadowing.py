"""No cell of a learner's can stand in for an exercise's check (issue 42).

nbgrader grades a lab by running the learner's notebook with its check cells restored, so every
cell the learner wrote runs before them. A check cell that called `exercises::ring_owner(…)` and
`assert!(…)` by those names would call whatever the learner's cells defined under them: a module
`exercises` of their own whose functions return a report that passes, or a `macro_rules! assert`
that checks nothing. Every lab's check cell therefore calls `::reshard::tutor::exercises::…` and
`::std::assert!` (teaching.py keeps it so, statically). Here, on real kernels, each lab's exercise
runs after a learner's cell that defines both fakes, with the stub left unwritten: the check must
fail. One lab runs the old unqualified check too, which the fakes do fool: the test of the others
means something.

Each run is a slice of the lab (its first cell, the learner's cell, the stub, the checks; the
hidden tests kept, as autograde runs them) on a worker of the tests' kernel pool."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

import labruns

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from editions import stub_source  # noqa: E402

# conftest.py: these run on the kernel pool, their jobs ahead of the labs still waiting
POOL_JOBS_EARLY = True

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / ".nbtest" / "shadowing"
LABS = [p for p in labruns.lab_paths()
        if any("solution" in c.get("metadata", {}).get("tags", []) for c in nbformat.read(p, as_version=4).cells)]

# What a learner who wants the points without the work would write above the check: a module
# `exercises` whose every checker returns a report that passes (the lab's own types re-exported,
# so the stub's signature still compiles), and an `assert!` that asserts nothing.
FAKES = r"""
mod exercises {
    pub use ::reshard::tutor::exercises::*;
    pub struct Passes;
    impl Passes {
        pub fn passed(&self) -> bool { true }
        pub fn seed(self, _: u64) -> Passes { self }
        pub fn scale(self, _: usize) -> Passes { self }
        pub fn balance(self) -> Passes { self }
        pub fn minimal_movement(self) -> Passes { self }
        pub fn determinism(self) -> Passes { self }
        pub fn errors(self) -> Passes { self }
    }
    impl std::fmt::Display for Passes {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { write!(f, "✓ (fake)") }
    }
    pub fn ring_owner<F>(_: F) -> Passes { Passes }
    pub fn rendezvous_owner<F>(_: F) -> Passes { Passes }
    pub fn shard_controller<F>(_: F) -> Passes { Passes }
    pub fn consistent_bucket<F>(_: F) -> Passes { Passes }
    pub fn bounded_owner<F>(_: F) -> Passes { Passes }
    pub fn key_slot<F>(_: F) -> Passes { Passes }
    pub fn replica_set<F>(_: F) -> Passes { Passes }
    pub fn nginx_backend<F>(_: F) -> Passes { Passes }
    pub fn range_of<F>(_: F) -> Passes { Passes }
    pub fn fanout_quantile<F>(_: F) -> Passes { Passes }
}
macro_rules! assert { ($($t:tt)*) => { () } }
"""


def shadowed(lab: Path, unqualified: bool = False):
    """The lab's exercise as a learner who wrote the fakes and no function would submit it."""
    nb = nbformat.read(lab, as_version=4)
    cut = labruns.slice_lab(nb, tags=("solution", "check"))
    for cell in cut.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if "solution" in tags:
            cell.source = stub_source(cell.source)
        if "check" in tags and unqualified:  # the checks as they were before issue 42
            cell.source = cell.source.replace("::reshard::tutor::exercises::", "exercises::")
            cell.source = re.sub(r"::std::assert!", "assert!", cell.source)
        cell.outputs = []
    fakes = nbformat.v4.new_code_cell(FAKES.strip())
    cut.cells.insert(1, fakes)
    return cut


def run(kernel_pool, lab: Path, unqualified: bool = False):
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{lab.stem}{'-unqualified' if unqualified else ''}.ipynb"
    nbformat.write(shadowed(lab, unqualified), path)
    return kernel_pool.execute(path, cwd=REPO / "notebooks", out=OUT / ".executed")


@pytest.mark.usefixtures("rust_kernel")
@pytest.mark.parametrize("lab", LABS, ids=lambda p: p.name[:2])
def test_a_learners_fake_exercises_and_assert_do_not_pass_the_check(kernel_pool, lab):
    done = run(kernel_pool, lab)
    assert done.error is not None, f"{lab.name}: the check passed a stub under a learner's fake `exercises`"
    # it stopped at the first check, the real one, on the stub: not at the learner's cell
    assert "::reshard::tutor::exercises::" in done.error, done.error
    assert "✗" in done.error or "not yet implemented" in done.error or "panicked" in done.error, done.error


@pytest.mark.usefixtures("rust_kernel")
def test_the_fakes_do_fool_a_check_that_calls_its_checker_by_a_short_name(kernel_pool):
    lab = next(p for p in LABS if p.name.startswith("01-"))
    done = run(kernel_pool, lab, unqualified=True)
    assert done.error is None, done.error
    checks = [c for c in done.executed.cells if "check" in c.get("metadata", {}).get("tags", [])]
    assert "✓ (fake)" in "".join(o.get("text", "") for c in checks for o in c.get("outputs", []))
