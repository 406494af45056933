"""One execution of each lab per test session, shared by every notebook check.

The notebook tests (conftest.py's fixtures `executed_lab` and `kernel_pool`) and `make
notebooks` run kernels through a KernelPool: NB_JOBS workers (default: the machine's cores, at
most 4), each owning one kept kernel build directory, so two labs run at once on two cores and
nothing compiles reshard twice in a slot it has already been built in.

KernelPool
    Each worker claims a kept build slot (kernel/launch.py's ~/.cache/reshard/kernels/kernel-<n>,
    the ones every kernel of this machine uses, locked for as long as the pool lives) and runs
    its jobs — `nbrun.py` subprocesses, or nbgrader — with EVCXR_TMPDIR pointing there and
    launch.py's guard on (RESHARD_KERNEL_SLOT). A kernel started in another folder (the
    learner's copy in .workspace-test/, nbgrader's autograded/<student>/) therefore reuses
    reshard as built there: every `:dep` names the same crate by an absolute path once evcxr
    has resolved it. Jobs run in priority order (lower first; labs 10, checks of a derivative
    0). A new slot starts as a whole copy of a kept build (launch.seed_slot). Each feature set
    of the crate is one build of reshard in a slot (about a minute of CPU), so a worker takes
    the jobs of the builds it holds first; a build is never copied from one worker's slot into
    another's (their serde_json was compiled in different directories, and rustc then cannot
    load a reshard compiled against the other's: kernel/README.md).

LabRuns
    Executes each lab once (`nbrun.py --out BUILD`), longest first (the previous session's times
    in BUILD/times.json, else the live labs first), and hands every check the same Execution:
    the committed notebook, the executed one (also saved as BUILD/<name>.ipynb, to read or diff
    after a failure), the seconds and CPU seconds it took, or the error that stopped it.

BUILD is REPO/.nbtest (git ignores it): a folder beside notebooks/, so an executed notebook's
`:dep reshard = { path = ".." }` still names the crate.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NOTEBOOKS_DIR = REPO / "notebooks"
BUILD = REPO / ".nbtest"
NBRUN = HERE / "nbrun.py"

sys.path.insert(0, str(REPO / "kernel"))
import launch  # noqa: E402  kernel/launch.py: the kept build slots

# Labs that start real servers: the programs they need, and how to install them.
NEEDS = {
    "06-a-real-redis-cluster.ipynb": (
        ("redis-server", "redis-cli"),
        "Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis",
    ),
    "08-proxies-twemproxy-and-nginx.ipynb": (
        ("nutcracker", "nginx", "redis-server"),
        "Debian/Ubuntu: apt-get install nutcracker nginx redis-server; "
        "macOS: brew install twemproxy nginx redis",
    ),
    "09-key-ranges-that-split.ipynb": (
        ("postgres",),
        "Debian/Ubuntu: apt-get install postgresql postgresql-contrib; macOS: brew install postgresql@15",
    ),
    "10-secondary-indexes-across-shards.ipynb": (
        ("postgres",),
        "Debian/Ubuntu: apt-get install postgresql postgresql-contrib; macOS: brew install postgresql@15",
    ),
}

# Debian installs nginx and nutcracker here, often not on a user's PATH;
# the crate looks here too (src/live/process.rs, `locate`).
SBIN = os.pathsep.join(["/usr/sbin", "/usr/local/sbin", "/sbin"])


def postgres_bin() -> str:
    """Where the crate finds PostgreSQL's programs (src/live/postgres.rs): RESHARD_PG_BINDIR, else
    beside the postgres on PATH, else Debian's /usr/lib/postgresql/<version>/bin (the newest)."""
    if os.environ.get("RESHARD_PG_BINDIR"):
        return os.environ["RESHARD_PG_BINDIR"]
    import glob

    numbered = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2])
                      if d.split("/")[-2].isdigit() else -1, reverse=True)
    return os.pathsep.join(numbered)


def missing_programs(name: str) -> tuple[list[str], str]:
    """The programs lab `name` needs that are not installed, and how to install them."""
    programs, how = NEEDS.get(name, ((), ""))
    path = os.environ.get("PATH", "") + os.pathsep + SBIN + os.pathsep + postgres_bin()
    return [p for p in programs if shutil.which(p, path=path) is None], how


def skip_reason(name: str) -> str | None:
    """Why lab `name` is skipped here (its programs are missing), or None. Under CI=true nothing
    is skipped: the run must fail instead (CI installs them: see .ci/run)."""
    missing, how = missing_programs(name)
    if missing and os.environ.get("CI") != "true":
        return f"{name} needs {' and '.join(missing)} on PATH ({how})"
    return None


def default_jobs() -> int:
    """NB_JOBS, else one kernel per core, at most 4 (a lab's heavy cells use every core)."""
    if os.environ.get("NB_JOBS"):
        return max(1, int(os.environ["NB_JOBS"]))
    return max(1, min(os.cpu_count() or 1, 4))


def lab_paths() -> list[Path]:
    return sorted(NOTEBOOKS_DIR.glob("*.ipynb"))


TIMED_TAG = "within-tolerance"  # nbcheck.WITHIN_TAG: a live timing checked against a tolerance


def runs_alone(nb_or_path) -> bool:
    """A lab with a cell tagged `within-tolerance` (lab 10: the share of live fan-out queries
    slower than half the slow shard's delay) measures wall-clock times against a stated
    tolerance: run beside another lab, its servers share the cores with that lab's heavy cells
    and the times leave the tolerance. The pool runs it alone, after every other job
    (KernelPool, `alone`)."""
    nb = nbformat.read(nb_or_path, as_version=4) if isinstance(nb_or_path, (str, Path)) else nb_or_path
    return any(TIMED_TAG in c.get("metadata", {}).get("tags", []) for c in nb.cells)


# ---------------------------------------------------------------------------------------------
# The pool
# ---------------------------------------------------------------------------------------------

@dataclass
class Finished:
    """A pool job's end: its exit status, output (stdout and stderr together) and cost."""
    argv: list
    returncode: int
    output: str
    seconds: float
    cpu: float  # user + system CPU seconds of the job and every process it waited for


DEP_LINE = re.compile(r"^:dep reshard = \{(.*)\}\s*$", re.MULTILINE)


def build_key(nb_or_path) -> str | None:
    """What a notebook makes its kernel compile: the `:dep reshard` line without its path
    (`default-features = false, features = ["charts", "redis"]`), None without one. Every
    different key is another build of the crate in a worker's build directory."""
    nb = nb_or_path
    if isinstance(nb_or_path, (str, Path)):
        nb = nbformat.read(nb_or_path, as_version=4)
    for cell in nb.cells:
        m = DEP_LINE.search(cell.source) if cell.cell_type == "code" else None
        if m:
            return re.sub(r'\s*path\s*=\s*"[^"]*"\s*,?\s*', "", m.group(1)).strip(" ,")
    return None


def key_features(key: str) -> frozenset[str] | None:
    """The features of reshard a build key compiles, as cargo resolves them (Cargo.toml's
    [features]: `live` turns on redis, proxies and postgres), for comparing with what a slot's
    fingerprints record; None when the key's features cannot be read."""
    import tomllib
    m = re.search(r"features\s*=\s*\[([^\]]*)\]", key)
    wanted = re.findall(r'"([^"]+)"', m.group(1)) if m else []
    if "default-features = false" not in key.replace("  ", " "):
        wanted.append("default")
    table = tomllib.loads((REPO / "Cargo.toml").read_text(encoding="utf-8")).get("features", {})
    seen: set = set()
    while wanted:
        f = wanted.pop()
        if f in seen or f.startswith("dep:") or "/" in f:
            continue
        seen.add(f)
        wanted += table.get(f, [])
    return frozenset(seen) - {"default"} if seen else frozenset()


def slot_builds(slot: Path) -> set[frozenset]:
    """The feature sets reshard has been built with in a slot, from its fingerprints (cargo's own
    record: what is there, whoever built it)."""
    found = set()
    for record in slot.glob("build/target/*/debug/.fingerprint/reshard-*/lib-reshard.json"):
        try:
            found.add(frozenset(json.loads(json.loads(record.read_text(encoding="utf-8"))["features"])))
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return found


@dataclass
class Job:
    priority: int
    seq: int
    argv: list
    cwd: object
    env: dict
    key: str | None
    future: Future
    alone: bool = False


class Worker:
    """A worker thread's build directory and the builds of the crate it holds (`keys`: the
    feature sets a job of it has asked for in this session, or that its slot holds already)."""

    def __init__(self, n: int, slot: Path | None, lock):
        self.n, self.slot, self.lock = n, slot, lock
        self.env = {}
        self.keys: set = set()
        if slot is not None:
            launch.write_cell_profile(slot, os.environ.get("RESHARD_CELL_OPT"))
            # the build directory is given: launch.py claims no slot, and guards this one
            self.env = {"EVCXR_TMPDIR": str(slot / "build"), "RESHARD_KERNEL_THROWAWAY": "1",
                        "RESHARD_KERNEL_SLOT": str(slot)}

    def built(self, key):
        if key is not None and self.slot is not None:
            self.keys.add(key)

    def holds(self, key) -> bool:
        """Whether this worker has `key`'s build: asked for here, or found in its slot."""
        if key in self.keys:
            return True
        if self.slot is None or key is None or (want := key_features(key)) is None:
            return False
        if want in slot_builds(self.slot):
            self.keys.add(key)
            return True
        return False


class KernelPool:
    """Worker threads, each running one job at a time with its own kept kernel build directory.

    A build of the crate costs about a minute of CPU per feature set (the live labs add `live` to
    charts), so a worker takes, in priority order: a job whose build it
    holds; else one whose build no worker holds; else one built elsewhere only when at least two
    such jobs wait (worth building it here too); else it waits for the next job or finished one.
    A job submitted `alone` starts only when it is the first job waiting, no other job runs and
    no expected user is still to come (expect), and nothing else starts while it runs (a lab that
    times its servers: runs_alone)."""

    def __init__(self, jobs: int | None = None):
        self.jobs = jobs or default_jobs()
        self._jobs: list[Job] = []
        self._cond = threading.Condition()
        self._seq = itertools.count()
        self._workers: list[Worker] = []
        self._threads: list[threading.Thread] = []
        self._running: set = set()  # the job processes, to interrupt on close(cancel=True)
        self._active: list[Job] = []  # the jobs taken by a worker and not yet finished
        self._started = False
        self._held = 0  # exclusive() sections open: no job starts while one is
        self._expected = 0  # users still to come (expect()): a job that runs alone waits for them
        self.closed = False

    def _claim(self, n: int) -> Worker:
        if os.environ.get("EVCXR_TMPDIR"):  # the reader chose one: one worker, theirs
            return Worker(n, None, None)
        root = launch.kernels_root()
        launch.drop_old_layout(root)
        slot, lock = launch.claim_slot(root)
        if slot is not None:  # as a kernel's start does: a new slot starts from a copy of a kept build
            launch.seed_slot(slot)
            launch.prune_dead_units(slot / "build" / "target")
        return Worker(n, slot, lock)  # slot None (no flock, every slot taken): as launch.py decides

    def _start(self):
        with self._cond:
            if self._started or self.closed:
                return
            self._started = True
            jobs = 1 if os.environ.get("EVCXR_TMPDIR") else self.jobs
            for n in range(jobs):
                w = self._claim(n)
                t = threading.Thread(target=self._work, args=(w,), daemon=True, name=f"kernel-pool-{n}")
                self._workers.append(w)
                self._threads.append(t)
                t.start()

    def submit(self, argv, *, cwd=None, env=None, priority: int = 10, key: str | None = None,
               alone: bool = False) -> Future:
        """Run argv (a list) on a worker (see the class); the Future gives a Finished. `key`: the
        build of the crate its kernels use (build_key), to run it where that build is; `alone`:
        with no other job running beside it."""
        self._start()
        fut: Future = Future()
        with self._cond:
            for w in self._workers:  # a build its slot holds already (an earlier session's) counts
                w.holds(key)
            self._jobs.append(Job(priority, next(self._seq), list(map(str, argv)), cwd, env or {}, key, fut,
                                  alone))
            self._cond.notify_all()
        return fut

    def run(self, argv, **kw) -> Finished:
        """Run argv ahead of the labs still waiting, and wait for it."""
        return self.submit(argv, priority=kw.pop("priority", 0), **kw).result()

    def execute(self, path, *, cwd=None, keep_guesses=False, out: Path | None = None) -> "Execution":
        """Execute a notebook that is not a lab as committed (a derivative: a slice of a lab, a
        learner's copy, a student edition) ahead of the labs still waiting; its copy goes to
        `out` (default: a folder beside it)."""
        path = Path(path).resolve()
        out = Path(out) if out is not None else path.parent / ".executed"
        argv = execute_argv(path, out, cwd=cwd, keep_guesses=keep_guesses)
        return read_result(path, out, self.run(argv, key=build_key(path)))

    @contextlib.contextmanager
    def batch(self):
        """Submit several jobs as one: no worker picks a job until the section ends, so its first
        pick sees them all (a worker that saw only the first few built a feature set a second
        time for want of the jobs behind them)."""
        with self._cond:  # an RLock: submit() takes it again
            yield

    def expect(self, n: int = 1) -> None:
        """n more users will submit jobs or open exclusive() sections (the tests collected that use
        the pool): a job submitted `alone` waits until each has said done(), so it does not hold
        back their jobs while it runs, nor they its time."""
        with self._cond:
            self._expected += n

    def done(self) -> None:
        """One expected user has finished (see expect)."""
        with self._cond:
            self._expected = max(0, self._expected - 1)
            self._cond.notify_all()

    @contextlib.contextmanager
    def exclusive(self):
        """A section that runs with no job of the pool beside it: entering waits for the running
        jobs to end, and no job starts until it is left. For a test that drives its own kernel
        on the same cores (a whole lab run by JupyterLab in a browser, test_explorables' live
        case): beside two lab executions on two cores it can take many times its own time."""
        with self._cond:
            self._held += 1
            while self._active:
                self._cond.wait()
        try:
            yield
        finally:
            with self._cond:
                self._held -= 1
                self._cond.notify_all()

    def _pick(self, w: Worker) -> Job | None:
        """The job worker w takes now (see the class), or None to wait."""
        if self._held:
            return None  # an exclusive() section runs
        jobs = sorted(self._jobs, key=lambda j: (j.priority, j.seq))
        if any(j.alone for j in self._active):
            return None  # nothing beside a job that runs alone
        if self._active:
            jobs = [j for j in jobs if not j.alone]
        elif jobs and jobs[0].alone and not self._expected:  # every worker is free: the one
            held = any(jobs[0].key in o.keys for o in self._workers if o is not w)  # holding its build
            return None if held and jobs[0].key not in w.keys else jobs[0]
        else:  # it waits for the jobs ahead of it, and for the users still to come (expect)
            jobs = [j for j in jobs if not j.alone]
        if w.slot is None:
            return jobs[0] if jobs else None
        held = set().union(*(o.keys for o in self._workers if o is not w))
        for j in jobs:
            if j.key is None or j.key in w.keys:
                return j
        for j in jobs:
            if j.key not in held:
                return j
        for j in jobs:
            if sum(i.key == j.key for i in jobs) >= 2:
                return j
        return None

    def _work(self, w: Worker):
        while True:
            with self._cond:
                while True:
                    if self.closed and not self._jobs:
                        return
                    job = self._pick(w)
                    if job is not None:
                        self._jobs.remove(job)
                        self._active.append(job)
                        break
                    self._cond.wait()
                w.built(job.key)  # others now leave this build's jobs to w
            if not job.future.set_running_or_notify_cancel():
                with self._cond:
                    self._active.remove(job)
                    self._cond.notify_all()
                continue
            try:
                done = self._run(job.argv, job.cwd, {**os.environ, **w.env, **job.env})
                job.future.set_result(done)
            except BaseException as e:  # noqa: BLE001  handed to whoever waits
                job.future.set_exception(e)
            finally:
                with self._cond:
                    self._active.remove(job)
                    self._cond.notify_all()

    def _run(self, argv, cwd, env) -> Finished:
        """Run a job to its end: output into a file (no pipe to fill), CPU from wait4."""
        with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as out:
            t0 = time.monotonic()
            p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, preexec_fn=_sigint_default if os.name == "posix" else None)
            with self._cond:
                self._running.add(p)
            try:
                if hasattr(os, "wait4"):
                    _, status, usage = os.wait4(p.pid, 0)
                    p.returncode = os.waitstatus_to_exitcode(status)
                    cpu = usage.ru_utime + usage.ru_stime
                else:  # Windows
                    p.wait()
                    cpu = float("nan")
            finally:
                with self._cond:
                    self._running.discard(p)
            secs = time.monotonic() - t0
            out.seek(0)
            return Finished(argv, p.returncode, out.read(), secs, cpu)

    def close(self, cancel: bool = False):
        """Stop the workers once the jobs are done; with `cancel`, drop the jobs not started and
        interrupt the running ones (nbrun then shuts its kernel down)."""
        with self._cond:
            self.closed = True
            if cancel:
                for job in self._jobs:
                    job.future.cancel()
                self._jobs.clear()
                for p in self._running:
                    p.send_signal(signal.SIGINT)
            running = list(self._running)
            self._cond.notify_all()
        if cancel:
            # SIGINT lets nbrun shut its kernel down; a job that does not end on it is terminated
            deadline = time.monotonic() + CANCEL_GRACE
            while time.monotonic() < deadline:  # the worker drops a process from _running once reaped
                with self._cond:
                    if not self._running.intersection(running):
                        break
                time.sleep(0.1)
            with self._cond:
                for p in self._running:
                    p.terminate()
        for t in self._threads:
            t.join(timeout=60 if cancel else None)
        for w in self._workers:
            if w.lock is not None:
                w.lock.close()


CANCEL_GRACE = 20.0  # seconds a cancelled job gets after SIGINT before SIGTERM


def _sigint_default():
    """In a job's process before exec: SIGINT back to its default. A process started in the
    background by a shell without job control (`make test &`, some CI runners) inherits SIGINT
    ignored, and a Python that starts with SIGINT ignored never raises KeyboardInterrupt, so
    close(cancel=True) could not interrupt nbrun (it ran on for a minute in such a run)."""
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_DFL)


def slice_lab(nb, *, through_tag: str | None = None, tags=()):
    """A cheap derivative of a lab: its first code cell (the `:dep` and `use` lines),
    every code cell up to and including the first one tagged `through_tag` (what that cell needs),
    and every later code cell tagged one of `tags`, in order; markdown cells are left out.
    The lab's one execution runs every cell; a derivative runs only the cells it is about."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    code = [c for c in nb.cells if c.cell_type == "code"]
    upto = 0
    if through_tag is not None:
        upto = next(k for k, c in enumerate(code) if through_tag in c.get("metadata", {}).get("tags", []))
    nb.cells = [c for k, c in enumerate(code)
                if k <= upto or set(c.get("metadata", {}).get("tags", [])) & set(tags)]
    return nb


# ---------------------------------------------------------------------------------------------
# One execution per lab
# ---------------------------------------------------------------------------------------------

@dataclass
class Execution:
    """A lab's one execution in this session."""
    path: Path           # the committed notebook
    file: Path | None    # the executed notebook, BUILD/<name> (None if it did not finish)
    error: str | None    # why it stopped (a failing cell, a panic, a timeout), else None
    seconds: float
    cpu: float
    log: str             # what nbrun printed

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def committed(self):
        return nbformat.read(self.path, as_version=4)

    @property
    def executed(self):
        if self.file is None:
            raise RuntimeError(f"{self.name} has no execution: {self.error}")
        return nbformat.read(self.file, as_version=4)


def execute_argv(path: Path, out: Path, *, cwd=None, keep_guesses=False) -> list:
    argv = [sys.executable, str(NBRUN), "--out", str(out), str(path)]
    if cwd is not None:
        argv[2:2] = ["--cwd", str(cwd)]
    if keep_guesses:
        argv.insert(2, "--keep-guesses")
    return argv


def read_result(path: Path, out: Path, done: Finished) -> Execution:
    """The Execution `nbrun.py --out OUT path` left behind."""
    path = Path(path)
    report = out / (path.stem + ".run.json")
    try:
        info = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        info = {"ok": False, "error": f"{path.name}: nbrun.py exited {done.returncode} without a "
                                      f"result:\n{done.output[-3000:]}"}
    file = out / path.name if info.get("ok") else None
    return Execution(path, file, None if info.get("ok") else info.get("error"), done.seconds, done.cpu,
                     done.output)


class LabRuns:
    """Each lab executed once, in the pool, its Execution kept for every check that asks."""

    def __init__(self, pool: KernelPool, build: Path = BUILD):
        self.pool, self.build = pool, build
        self._futures: dict[Path, Future] = {}
        self._lock = threading.Lock()
        self.results: dict[str, Execution] = {}

    def order(self, paths) -> list[Path]:
        """Longest first (the last session's times), so the two workers end together; a lab that
        runs alone (runs_alone) last."""
        try:
            times = json.loads((self.build / "times.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            times = {}

        def guess(p: Path) -> float:  # seconds; without a time yet, 2 s a code cell, servers 40 s
            if p.name in times:
                return times[p.name]
            cells = sum(c.cell_type == "code" for c in nbformat.read(p, as_version=4).cells)
            return 2.0 * cells + (40.0 if p.name in NEEDS else 0.0)

        return sorted(paths, key=lambda p: (runs_alone(p), -guess(p)))

    def schedule(self, paths) -> None:
        """Start executing these labs (each at most once per session)."""
        self.build.mkdir(parents=True, exist_ok=True)
        with self._lock, self.pool.batch():
            for p in self.order([Path(p).resolve() for p in paths]):
                if p not in self._futures:
                    alone = runs_alone(p)  # after the others (priority 20), with nothing beside it
                    self._futures[p] = self.pool.submit(execute_argv(p, self.build), priority=20 if alone else 10,
                                                        key=build_key(p), alone=alone)

    def get(self, path) -> Execution:
        """The lab's execution, waiting for it (and starting it, if nobody had)."""
        path = Path(path).resolve()
        self.schedule([path])
        done = self._futures[path].result()
        ex = read_result(path, self.build, done)
        self.results[path.name] = ex
        return ex

    def save_times(self) -> None:
        """Remember how long each lab took, for the next session's order."""
        if not self.results:
            return
        f = self.build / "times.json"
        try:
            times = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            times = {}
        times.update({n: round(e.seconds, 1) for n, e in self.results.items() if e.error is None})
        f.write_text(json.dumps(times, indent=1, sort_keys=True) + "\n", encoding="utf-8")
