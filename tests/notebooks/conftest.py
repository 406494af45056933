"""The notebook tests' shared executions (README.md here, "One execution per lab").

Fixtures:
  rust_kernel    fail fast, with a hint, when the kernelspec `rust` is missing.
  executed_lab   `executed_lab(path_or_name)` -> labruns.Execution: the lab's one execution in this
                 session (started when the tests were collected, two labs at a time on two cores),
                 skipped when the lab's servers are not installed. A test that reads it declares
                 which lab by a notebook parameter (`path`, `nb`, ... a Path to an .ipynb) or with
                 `@pytest.mark.labs("02", ...)`; otherwise every lab is executed for it.
  kernel_pool    labruns.KernelPool: run a derivative of a lab (a slice of it, nbgrader's autograde)
                 on a worker with a kept kernel build, so nothing compiles the crate again.

Test order: modules that start no kernel run first (while the labs execute), then the ones that
start kernels of their own (first those with `POOL_JOBS_EARLY = True`, whose jobs on the pool go
ahead of the labs still waiting), then the ones reading executions, in the order the labs finish.
Lab 10, which runs alone, starts only once every test that runs jobs of its own on the pool has
ended, so none of their jobs waits for it (KernelPool.expect).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import labruns
import nbrun

_STATE: dict = {"pool": None, "runs": None, "labs": []}
KERNEL_FIXTURES = {"rust_kernel", "kernel_pool", "executed_lab"}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "labs(*names): the labs (by number or file name) a test reads with executed_lab")


def lab_path(which) -> Path:
    """A lab by its path, file name or number ("02")."""
    p = Path(which)
    if p.suffix == ".ipynb" and p.exists():
        return p.resolve()
    found = [q for q in labruns.lab_paths() if q.name == str(which) or q.name.startswith(f"{which}-")]
    if len(found) != 1:
        raise ValueError(f"{which!r} names {len(found)} notebooks in {labruns.NOTEBOOKS_DIR}")
    return found[0].resolve()


def labs_of(item) -> list[Path]:
    """The labs a collected test reads through executed_lab."""
    if "executed_lab" not in getattr(item, "fixturenames", ()):
        return []
    marker = item.get_closest_marker("labs")
    if marker:
        return [lab_path(n) for n in marker.args]
    callspec = getattr(item, "callspec", None)
    given = [Path(v).resolve() for v in (callspec.params.values() if callspec else ())
             if isinstance(v, Path) and v.suffix == ".ipynb"]
    return given or [p.resolve() for p in labruns.lab_paths()]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    needed: list[Path] = []
    for item in items:
        needed += [p for p in labs_of(item) if p not in needed and not labruns.skip_reason(p.name)]
    runs = labruns.LabRuns(labruns.KernelPool())  # threads start with the first job
    order = {p: k for k, p in enumerate(runs.order(needed))}
    _STATE.update(runs=runs, pool=runs.pool, labs=[p for p in order])
    # The tests that run jobs of their own on the pool (a derivative of a lab, nbgrader's autograde,
    # an exclusive section): lab 10, which runs alone, waits until each has ended (KernelPool.expect).
    # Not one that reads an execution: that may be lab 10's.
    users = {i.nodeid for i in items if "kernel_pool" in getattr(i, "fixturenames", ())
             and "executed_lab" not in getattr(i, "fixturenames", ())}
    _STATE["expected"] = users
    runs.pool.expect(len(users))

    uses: dict = {}
    for i in items:
        uses.setdefault(i.module, set()).update(getattr(i, "fixturenames", ()))

    def module_rank(item):
        if "executed_lab" in uses[item.module]:
            return 3
        if uses[item.module] & KERNEL_FIXTURES:
            return 1 if getattr(item.module, "POOL_JOBS_EARLY", False) else 2
        return 0

    def lab_rank(item):
        labs = labs_of(item)
        return max((order.get(p, -1) for p in labs), default=-1)

    modules = list(dict.fromkeys(i.module for i in items))
    items[:] = sorted(items, key=lambda i: (module_rank(i), modules.index(i.module), lab_rank(i)))


def pytest_collection_finish(session):
    if _STATE["labs"] and not session.config.option.collectonly:
        _STATE["runs"].schedule(_STATE["labs"])


def pytest_runtest_logfinish(nodeid, location):
    if nodeid in _STATE.get("expected", ()):
        _STATE["expected"].discard(nodeid)
        _STATE["pool"].done()


def pytest_sessionfinish(session):
    runs, pool = _STATE["runs"], _STATE["pool"]
    if runs is not None:
        runs.save_times()
    if pool is not None:
        pool.close(cancel=True)


def pytest_terminal_summary(terminalreporter):
    runs = _STATE["runs"]
    if runs is None or not runs.results:
        return
    tr = terminalreporter
    tr.write_sep("-", f"lab executions ({runs.pool.jobs} at a time)")
    for name, ex in sorted(runs.results.items()):
        state = "ok" if ex.error is None else "FAILED"
        tr.write_line(f"{ex.seconds:7.1f} s {ex.cpu:7.1f} CPU s  {state:6}  {name}")


@pytest.fixture(scope="session")
def rust_kernel():
    """Fail fast, with a hint, when the evcxr kernelspec is not registered."""
    out = subprocess.run(
        [sys.executable, "-m", "jupyter_client.kernelspecapp", "list", "--json"],
        capture_output=True, text=True,
    )
    specs = json.loads(out.stdout or "{}").get("kernelspecs", {}) if out.returncode == 0 else {}
    if nbrun.KERNEL_NAME not in specs:
        pytest.fail(
            f"Jupyter kernelspec {nbrun.KERNEL_NAME!r} not found "
            f"(have: {sorted(specs)}). Run `make setup`.", pytrace=False,
        )


@pytest.fixture(scope="session")
def kernel_pool(rust_kernel):
    if _STATE["pool"] is None:
        _STATE["pool"] = labruns.KernelPool()
    return _STATE["pool"]


@pytest.fixture
def executed_lab(rust_kernel, kernel_pool):
    """executed_lab(path_or_name) -> labruns.Execution (see the module docstring)."""
    if _STATE["runs"] is None:
        _STATE["runs"] = labruns.LabRuns(kernel_pool)

    def get(which):
        path = lab_path(which)
        reason = labruns.skip_reason(path.name)
        if reason:
            pytest.skip(reason)
        return _STATE["runs"].get(path)

    return get
