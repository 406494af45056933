"""labruns.py without a kernel: the pool runs jobs on workers that own build directories, keeps
a build's jobs on the worker that holds it, and a derivative of a lab keeps the cells it is about."""

import sys
import threading

import nbformat
import pytest

import labruns


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """The kept kernel builds in a temporary folder, not the reader's."""
    monkeypatch.setenv("RESHARD_KERNEL_CACHE", str(tmp_path / "kernels"))
    monkeypatch.delenv("EVCXR_TMPDIR", raising=False)
    return tmp_path / "kernels"


def test_each_worker_owns_a_build_directory_and_reports_cpu(cache):
    pool = labruns.KernelPool(2)
    try:
        code = ("import os, time\ntime.sleep(0.3)\nwhile time.process_time() < 0.2: pass\n"
                "print(os.environ['EVCXR_TMPDIR'], os.environ['RESHARD_KERNEL_SLOT'])")
        done = [pool.submit([sys.executable, "-c", code]) for _ in range(4)]
        pairs = {tuple(f.result().output.split()) for f in done}
        dirs = {d for d, _ in pairs}
    finally:
        pool.close()
    assert len(dirs) == 2 and all(d.startswith(str(cache)) and d.endswith("/build") for d in dirs), dirs
    # the kernels get launch.py's guard on the worker's slot (RESHARD_KERNEL_SLOT)
    assert all(labruns.Path(d).parent == labruns.Path(s) for d, s in pairs), pairs
    assert all(f.result().returncode == 0 and f.result().cpu >= 0.2 for f in done)
    # each slot has the cells' profile beside its build directory, as launch.py writes it
    assert all((labruns.Path(d).parent / ".cargo" / "config.toml").is_file() for d in dirs)


def test_a_build_stays_on_the_worker_that_holds_it(cache):
    pool = labruns.KernelPool(2)
    pool._start()
    a, b = pool._workers
    a.keys, b.keys = {"charts"}, {"charts+redis"}
    job = lambda key, prio=10: labruns.Job(prio, len(pool._jobs), [], None, {}, key, None)
    pool._jobs = [job("charts+redis", 0), job("charts", 5)]
    assert pool._pick(a).key == "charts"  # its own build first, though the other job comes first
    pool._jobs = [job("charts+postgres", 5), job("charts+redis", 0)]
    assert pool._pick(a).key == "charts+postgres"  # a build nobody holds before one b holds
    pool._jobs = [job("charts+redis")]
    assert pool._pick(a) is None  # one job of b's build: b builds it once, a waits
    pool._jobs = [job("charts+redis"), job("charts+redis")]
    assert pool._pick(a).key == "charts+redis"  # two: worth building it on a too
    pool._jobs = [job(None)]
    assert pool._pick(b).key is None
    pool._jobs = []
    pool.close()


def test_close_with_cancel_drops_waiting_jobs_and_interrupts_running_ones(cache):
    pool = labruns.KernelPool(1)
    started = threading.Event()
    running = pool.submit([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)"])
    waiting = pool.submit([sys.executable, "-c", "pass"])
    for _ in range(200):
        if pool._running:
            started.set()
            break
        threading.Event().wait(0.05)
    assert started.is_set()
    pool.close(cancel=True)
    assert waiting.cancelled()
    assert running.result(timeout=30).returncode != 0  # KeyboardInterrupt, not 60 s later


def test_build_key_is_the_dep_line_without_its_path():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(":dep not code"),
                nbformat.v4.new_code_cell(':dep reshard = { path = "../..", default-features = false, '
                                          'features = ["charts", "redis"] }\nuse reshard::notebook::*;')]
    assert labruns.build_key(nb) == 'default-features = false, features = ["charts", "redis"]'
    nb.cells[1].source = ':dep reshard = { path = "/abs/reshard", default-features = false, features = ["charts"] }'
    assert labruns.build_key(nb) == 'default-features = false, features = ["charts"]'
    nb.cells = nb.cells[:1]
    assert labruns.build_key(nb) is None


def test_a_slice_keeps_the_first_cell_the_cells_up_to_the_tag_and_the_tagged_ones():
    def code(src, *tags):
        c = nbformat.v4.new_code_cell(src)
        c.metadata["tags"] = list(tags)
        return c

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# t"), code(":dep"), code("let a = 1;", "parameters"),
                nbformat.v4.new_markdown_cell("**Predict.**"), code("let g = 1;", "guess"),
                code("a + g"), code("fn f() {}", "solution"), code("check(f)", "check"), code("book", "predictions")]
    cut = labruns.slice_lab(nb, through_tag="guess", tags=("solution", "check", "predictions"))
    assert [c.source for c in cut.cells] == [":dep", "let a = 1;", "let g = 1;", "fn f() {}", "check(f)", "book"]
    cut = labruns.slice_lab(nb, tags=("solution", "check"))
    assert [c.source for c in cut.cells] == [":dep", "fn f() {}", "check(f)"]
    assert len(nb.cells) == 9  # the lab itself is not changed


def test_a_timed_lab_runs_alone_after_the_others(cache):
    pool = labruns.KernelPool(2)
    pool._start()
    a, b = pool._workers
    a.keys, b.keys = {"charts"}, {"charts+postgres"}
    job = lambda key, prio=10, alone=False: labruns.Job(prio, len(pool._jobs), [], None, {}, key, None, alone)
    timed, other = job("charts+postgres", 20, True), job("charts")
    pool._jobs = [timed, other]
    assert pool._pick(a) is other  # the jobs ahead of it first
    pool._active, pool._jobs = [other], [timed]
    assert pool._pick(b) is None  # not beside a running job
    pool._active = []
    assert pool._pick(a) is None and pool._pick(b) is timed  # all free: where its build is
    pool._active, pool._jobs = [timed], [job("charts", 0)]
    assert pool._pick(a) is None  # nothing starts beside it, not even a derivative
    pool._active, pool._jobs = [], []
    pool.close()


def test_an_exclusive_section_waits_for_running_jobs_and_holds_back_new_ones(cache):
    pool = labruns.KernelPool(2)
    started = threading.Event()
    slow = pool.submit([sys.executable, "-c", "import time; time.sleep(1.5)"])
    while not slow.running():
        threading.Event().wait(0.01)
    inside = []

    def section():
        with pool.exclusive():
            inside.append(slow.done())  # entered only once the running job ended
            started.set()
            later = pool.submit([sys.executable, "-c", "pass"])
            threading.Event().wait(1.0)
            inside.append(later.running() or later.done())  # nothing started while held
        inside.append(later.result(timeout=60).returncode)  # and it runs once left

    t = threading.Thread(target=section)
    t.start()
    t.join(timeout=90)
    assert started.is_set() and inside == [True, False, 0]
    pool.close()


def test_jobs_submitted_as_a_batch_build_each_feature_set_once(cache):
    pool = labruns.KernelPool(2)
    where = lambda secs: [sys.executable, "-c",
                          f"import os, time; time.sleep({secs}); print(os.environ['EVCXR_TMPDIR'])"]
    jobs = []
    with pool.batch():  # both workers pick with the four jobs in sight, however slow the submitting
        for key, secs in (("live", 1), ("live", 1), ("live", 1), ("charts", 5)):
            jobs.append(pool.submit(where(secs), key=key))
            threading.Event().wait(0.3)
    dirs = [f.result(timeout=60).output.strip() for f in jobs]
    pool.close()
    # the idle worker took charts, not a second live job (two were waiting when it looked)
    assert dirs[0] == dirs[1] == dirs[2] != dirs[3], dirs


def test_a_job_that_runs_alone_waits_for_the_users_still_expected(cache):
    pool = labruns.KernelPool(2)
    pool.expect(1)  # a test still to come will run jobs of its own
    alone = pool.submit([sys.executable, "-c", "pass"], alone=True)
    threading.Event().wait(1.0)
    assert not (alone.running() or alone.done())
    first = pool.submit([sys.executable, "-c", "pass"])  # that user's job runs meanwhile
    assert first.result(timeout=60).returncode == 0 and not alone.done()
    pool.done()
    assert alone.result(timeout=60).returncode == 0
    pool.close()


def test_a_lab_that_times_its_servers_is_ordered_last(tmp_path):
    def lab(name, *tags):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(":dep"), nbformat.v4.new_code_cell("t")]
        nb.cells[1].metadata["tags"] = list(tags)
        nbformat.write(nb, tmp_path / name)
        return tmp_path / name

    timed = lab("10-timed.ipynb", "run-dependent", "within-tolerance")
    plain = [lab("01-a.ipynb"), lab("02-b.ipynb", "run-dependent")]
    assert labruns.runs_alone(timed) and not any(labruns.runs_alone(p) for p in plain)
    runs = labruns.LabRuns(labruns.KernelPool(1), build=tmp_path / "build")
    assert runs.order([timed, *plain])[-1] == timed


def test_a_worker_holds_the_builds_its_slot_has_from_an_earlier_session(cache, tmp_path):
    """The feature sets of reshard in a slot's fingerprints (cargo's record) count as the worker's
    builds, so a session that starts on kept slots sends each lab where its build is."""
    def fingerprint(slot, unit, features):
        record = slot / "build" / "target" / "x86_64-unknown-linux-gnu" / "debug" / ".fingerprint" / unit
        record.mkdir(parents=True)
        (record / "lib-reshard.json").write_text(labruns.json.dumps({"features": labruns.json.dumps(features)}))
    fingerprint(cache / "kernel-1", "reshard-0live", ["charts", "etcd", "live", "postgres", "proxies", "redis"])
    fingerprint(cache / "kernel-0", "reshard-0c", ["charts"])
    charts = 'default-features = false, features = ["charts"]'
    live = 'default-features = false, features = ["charts", "live"]'
    assert labruns.key_features(live) == {"charts", "etcd", "live", "postgres", "proxies", "redis"}
    assert labruns.key_features('features = ["live"]') == {"cli", "charts", "serde", "live", "etcd",
                                                            "postgres", "proxies", "redis"}  # with the defaults
    pool = labruns.KernelPool(2)
    pool._start()
    a, b = pool._workers
    assert not a.keys and not b.keys
    for key in (charts, live):
        for w in pool._workers:
            w.holds(key)
    assert (a.keys, b.keys) == ({charts}, {live})
    pool.close()
