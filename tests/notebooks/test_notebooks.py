"""Every notebooks/*.ipynb runs cleanly from a fresh kernel, its committed
outputs are current, its bold numbers were printed, and the fresh run keeps the
teaching rules. Each lab is executed once per session (conftest.py's
`executed_lab`, two at a time on two cores); every check here reads that one
execution. With no notebooks yet this parametrization is empty (reported as one
skip)."""

import pytest

import labruns
import nbcheck
import nbrun
import teaching

NOTEBOOKS = sorted(nbrun.NOTEBOOKS_DIR.glob("*.ipynb"))


def skip_unless_installed(name):
    """Skip a notebook whose programs are missing, except under CI=true,
    where the run must fail instead (CI installs them: see .ci/run)."""
    reason = labruns.skip_reason(name)
    if reason:
        pytest.skip(reason)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook(path, executed_lab):
    skip_unless_installed(path.name)
    run = executed_lab(path)
    if run.error:
        raise nbcheck.CheckFailure(run.error)
    problems = nbcheck.check_executed(run.committed, run.executed, nbrun._rel(path))
    # the teaching rules on the fresh outputs too (test_teaching.py checks the committed ones):
    # a run-dependent cell's output is not compared, but it must still fit the page; a
    # run-dependent answer is not held to the pair rule here (by chance, a run's value can be a
    # ratio printed above; its committed value is held to it)
    problems += [f"the fresh run: {m}" for m in teaching.problems(run.file, fresh=True)]
    if problems:
        raise nbcheck.CheckFailure("\n\n".join(problems))
