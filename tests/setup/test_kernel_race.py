"""Kernels that start together from an empty kernel cache, as on a new machine (issue 40).

One test, on real kernels (evcxr through kernel/launch.py, the kernelspec `make setup` writes):

1. From an empty cache, at once: the test pool (tests/notebooks/labruns.py, as `make test` runs the
   labs: two workers, each in its kept slot) with one `["charts", "live"]` notebook and six
   `["charts"]` ones, and beside it a kernel of a reader's (charts and live) that is killed with
   SIGKILL, its cargo and rustc with it, while it builds.
2. Then two more readers' kernels, one for each feature set: one takes the killed kernel's
   half-built slot, the other a new one, copied from a kept build.

Every `:dep` must succeed, and every kernel must print md5("user:1") as Python computes it.
No build may need the guard (launch.py's rebuild of a slot that cannot load reshard): a build is
either whole or copied whole. Until 7 December the pool copied the worker's `["charts"]` build of
reshard into the other worker's slot, whose serde_json had been compiled in another directory:
every later `:dep` there failed with "can't find crate for `reshard`".

3. Then the guard itself: a slot broken that way (the other slot's reshard over its own) heals at
   the next cell, in one go, and says so in one line.

On a fresh machine (CI) the cache is the real one (~/.cache/reshard/kernels, empty there), so the
notebook tests that follow start from these builds rather than compiling reshard again;
elsewhere it is a temporary folder. Costs about 4 minutes on two idle cores.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "kernel"))
sys.path.insert(0, str(REPO / "tests" / "notebooks"))
import launch  # noqa: E402
import labruns  # noqa: E402

jupyter_client = pytest.importorskip("jupyter_client")

CHARTS = ':dep reshard = { path = "..", default-features = false, features = ["charts"] }'
LIVE = ':dep reshard = { path = "..", default-features = false, features = ["charts", "live"] }'
PRINT = 'println!("{}", reshard::hash::md5_u128(b"user:1"));'
EXPECTED = str(int.from_bytes(hashlib.md5(b"user:1").digest(), "big"))  # not the crate's: Python's
TRIPLE_DEBUG = "*/debug"


def kernel_ready() -> str | None:
    """Why no real kernel can start here, or None."""
    if not shutil.which("evcxr_jupyter") and not (Path.home() / ".cargo" / "bin" / "evcxr_jupyter").exists():
        return "evcxr_jupyter is not installed (make setup)"
    try:
        jupyter_client.kernelspec.KernelSpecManager().get_kernel_spec("rust")
    except Exception:  # noqa: BLE001  no such kernelspec
        return "no `rust` kernelspec (make setup)"
    return None


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty kernel cache: the real one where it has no slot yet (a fresh machine: the notebook
    tests then start from what this test built), else a temporary one."""
    real = launch.kernels_root()
    empty = not real.exists() or not any(real.glob("kernel-*/build/target"))
    root = real if empty and os.environ.get("CI") == "true" else tmp_path / "kernels"
    monkeypatch.setenv("RESHARD_KERNEL_CACHE", str(root))
    monkeypatch.delenv("EVCXR_TMPDIR", raising=False)
    monkeypatch.delenv("RESHARD_KERNEL_THROWAWAY", raising=False)
    yield root
    if root != real:  # 1.2 GB of builds: not for pytest's kept temporary folders
        shutil.rmtree(root, ignore_errors=True)


class Reader:
    """A kernel as JupyterLab starts it (the `rust` kernelspec, cwd notebooks/), run cell by cell."""

    def __init__(self):
        env = {**os.environ, "PATH": f"{Path.home() / '.cargo' / 'bin'}{os.pathsep}{os.environ['PATH']}"}
        self.km = jupyter_client.KernelManager(kernel_name="rust")
        self.km.start_kernel(cwd=str(REPO / "notebooks"), env=env)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=300)

    @property
    def pid(self) -> int:
        return self.km.provisioner.process.pid

    def run(self, code: str, timeout: float = 900) -> tuple[bool, str]:
        msg_id = self.kc.execute(code)
        out, err, deadline = [], None, time.monotonic() + timeout
        while True:
            msg = self.kc.get_iopub_msg(timeout=max(1.0, deadline - time.monotonic()))
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                out.append(content["text"])
            elif kind == "error":
                err = f"{content['ename']}: {content['evalue']}"
            elif kind == "status" and content["execution_state"] == "idle":
                return err is None, err or "".join(out)

    def slot(self) -> Path:
        ok, text = self.run('println!("{}", std::env::var("EVCXR_TMPDIR").unwrap_or_default());')
        assert ok, text
        return Path(text.strip()).parent

    def close(self):
        try:
            self.kc.stop_channels()
            self.km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001  already gone (killed)
            pass


def first_cell(dep: str) -> tuple[bool, str]:
    """A reader's kernel: `:dep`, then the print; (ok, what it printed or the error)."""
    reader = Reader()
    try:
        ok, text = reader.run(dep)
        if ok:
            ok, text = reader.run(PRINT)
        return ok, text.strip()
    finally:
        reader.close()


def notebook(folder: Path, name: str, dep: str, sleep: float) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "rust", "display_name": "Rust", "language": "rust"}
    nb.cells = [nbformat.v4.new_code_cell(dep), nbformat.v4.new_code_cell(PRINT),
                nbformat.v4.new_code_cell(f"std::thread::sleep(std::time::Duration::from_secs_f64({sleep}));")]
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def building(slot: Path) -> bool:
    """Whether cargo is well into a slot's build: md-5, one of reshard's first dependencies, done."""
    return any(slot.glob(f"build/target/{TRIPLE_DEBUG}/.fingerprint/md-5-*"))


def test_kernels_started_together_from_an_empty_cache_all_load_the_crate(cache, tmp_path):
    if reason := kernel_ready():
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    folder = tmp_path / "notebooks"
    folder.mkdir()
    # The live build takes longest; the charts jobs wait 20 s each after their cells, so that when
    # the live worker turns to charts the charts worker is busy and two or more charts jobs wait:
    # it then takes one (where, until 7 December, it copied the charts worker's reshard).
    jobs = [notebook(folder, "live", LIVE, 1.0)] + [notebook(folder, f"charts-{i}", CHARTS, 20.0) for i in range(6)]
    out = tmp_path / "executed"
    pool = labruns.KernelPool(2)
    results: dict = {}

    def reader_killed_while_it_builds():
        reader = Reader()
        results["killed slot"] = reader.slot()
        reader.kc.execute(LIVE)
        deadline = time.monotonic() + 600
        while not building(results["killed slot"]) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(3.0)  # well inside the build: md-5 done, reshard and others on the way
        if os.getpgid(reader.pid) == reader.pid:  # a session of its own, as jupyter_client starts it
            os.killpg(reader.pid, signal.SIGKILL)  # the kernel, its cargo and their rustc
        else:
            os.kill(reader.pid, signal.SIGKILL)
        reader.close()

    try:
        with pool.batch():
            futures = [pool.submit(labruns.execute_argv(p, out, cwd=REPO / "notebooks"), key=labruns.build_key(p))
                       for p in jobs]
        killer = threading.Thread(target=reader_killed_while_it_builds)
        killer.start()
        killer.join(timeout=900)
        after = {}
        threads = [threading.Thread(target=lambda d=d: after.__setitem__(d, first_cell(d))) for d in (CHARTS, LIVE)]
        for t in threads:
            t.start()
        finished = [labruns.read_result(p, out, f.result(timeout=1800)) for p, f in zip(jobs, futures)]
        for t in threads:
            t.join(timeout=1800)
    finally:
        pool.close()

    failed = [f"{run.path.name}: {run.error}" for run in finished if run.error]
    assert not failed, "\n".join(failed)
    for run in finished:
        printed = nbformat.read(run.file, as_version=4).cells[1].outputs[0]["text"].strip()
        assert printed == EXPECTED, (run.path.name, printed)
    assert after[CHARTS] == (True, EXPECTED) and after[LIVE] == (True, EXPECTED), after
    guarded = sorted(str(p) for p in cache.glob("kernel-*/guard.log"))
    assert not guarded, f"a build needed the guard: {guarded}"  # whole builds only, never a mix
    left = sorted(str(p) for p in cache.glob("kernel-*/build/.target-*"))
    assert not left, left

    # 3. The guard: a slot's reshard replaced by the same unit from a slot built on its own (what
    # the pool used to do), so that it was compiled against another directory's serde_json.
    donor, broken, unit = two_builds_of_one_unit(cache)
    dep = LIVE if "live" in features(broken, unit) else CHARTS
    break_with_the_others_reshard(donor, broken, unit)
    held = [launch.try_lock(s / ".lock") for s in sorted(cache.glob("kernel-*")) if slot_number(s) < slot_number(broken)]
    try:  # the slots before it taken, as by running kernels: the reader gets the broken one
        reader = Reader()
    finally:
        for lock in filter(None, held):
            lock.close()
    try:
        assert reader.slot() == broken
        assert reader.run(dep)[0]
        ok, text = reader.run(PRINT)
    finally:
        reader.close()
    assert (ok, text.strip()) == (True, EXPECTED)
    log = (broken / "guard.log").read_text().splitlines()
    assert len(log) == 2 and "could not load" in log[0] and "built afresh" in log[1], log


def slot_number(slot: Path) -> int:
    return int(slot.name.split("-")[1])


def features(slot: Path, unit: str) -> list[str]:
    """The features reshard was built with in a unit, as its fingerprint records them."""
    record = next((slot / "build" / "target").glob(f"{TRIPLE_DEBUG}/.fingerprint/{unit}/lib-reshard.json"))
    return json.loads(json.loads(record.read_text())["features"])


def two_builds_of_one_unit(cache: Path) -> tuple[Path, Path, str]:
    """(donor, broken, unit): two slots that each compiled the reshard unit `unit` (reshard-<hash>)
    against their own serde_json (the two files differ: serde_core's crate hash holds its build
    directory; a copied slot's serde_json is its source's), the broken one as late as can be, so
    that the notebook tests after this one, on a fresh machine, find the pool's slots whole."""
    def units(slot):  # finished builds only: a kernel killed mid-build leaves a unit without its record
        return {f.parent.name: f for f in
                (slot / "build" / "target").glob(f"{TRIPLE_DEBUG}/.fingerprint/reshard-*/lib-reshard.json")}

    def serde_json(slot):
        return {f.name: f.read_bytes() for f in (slot / "build" / "target").glob(f"{TRIPLE_DEBUG}/deps/libserde_json-*.rlib")}

    slots = sorted(cache.glob("kernel-*"), key=slot_number)
    for broken in reversed(slots):  # the last: the pool's slots (kernel-0, -1) stay as they are
        for donor in slots:
            common = sorted(set(units(donor)) & set(units(broken)), key=lambda u: "live" in features(broken, u))
            a, b = serde_json(donor), serde_json(broken)
            if donor != broken and common and a.keys() == b.keys() and a != b:
                return donor, broken, common[0]
    raise AssertionError(f"no two slots built reshard on their own: {[(s.name, sorted(units(s))) for s in slots]}")


def break_with_the_others_reshard(donor: Path, broken: Path, unit: str) -> None:
    """Copy the donor's files of `unit` (reshard-<hash>) over the broken slot's own: the old pool's
    merge_build, which copied a unit's files and fingerprint from another worker's slot. The copies
    are dated now: newer than the slot's serde_json, so cargo finds them fresh (the old pool kept
    the donor's times, and whether they were newer was luck)."""
    suffix = unit.rsplit("-", 1)[1]
    now = time.time() + 1
    for profile in (donor / "build" / "target").glob(TRIPLE_DEBUG):
        dest = broken / "build" / "target" / profile.relative_to(donor / "build" / "target")
        for f in profile.glob(f"deps/*reshard-{suffix}*"):
            shutil.copy2(f, dest / "deps" / f.name)
            os.utime(dest / "deps" / f.name, (now, now))
