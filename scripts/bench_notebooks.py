"""Time reshard's notebooks on the Rust kernel, the way a reader meets them.

For each notebook, each run starts a fresh kernel (as Kernel -> Restart Kernel
and Run All Cells does), with cwd = the notebook's folder, and times:

  start    kernel start until it answers (includes evcxr's init.evcxr)
  first    the first code cell (`:dep reshard = ...`: builds or reuses the crate)
  whole    start + every code cell: what "Restart Kernel and Run All" costs
  cpu      CPU seconds of the kernel, the cargo/rustc it ran and the process that runs
           the cells (Linux): unlike wall
           times, they hardly change when the machine is busy
  median   the median code cell of the run, and the slowest one (with its index)

Three cache states:
  cold    each run gets an empty XDG_CACHE_HOME: no evcxr `:cache`, no kept
          kernel build directory (what a reader's very first run costs)
  warm    one untimed run of the first cell fills the caches, then the timed runs
          (Restart Kernel: the kernel finds its kept build)
  second  a second lab opened while the first is still open, the first time: a kernel
          on the first notebook given holds its kept build (first cell run, untimed);
          before each run every other kept build is deleted, so the timed kernel gets
          a new one (kernel/launch.py copies it from the held build)

Numbers printed are medians over --runs runs. Usage:
    .venv/bin/python scripts/bench_notebooks.py                  # all notebooks, warm and cold, 3 runs
    .venv/bin/python scripts/bench_notebooks.py --cache warm --runs 1 notebooks/02-*.ipynb
    .venv/bin/python scripts/bench_notebooks.py --kernel rust-plain --json out.json
    .venv/bin/python scripts/bench_notebooks.py --cache second notebooks/02-*.ipynb notebooks/04-*.ipynb
Needs nbclient (the project's .venv). `make bench-notebooks` runs the first form.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = REPO / "notebooks"
CELL_TIMEOUT = int(os.environ.get("NB_CELL_TIMEOUT", "900"))


def kernel_env(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    cargo_bin = str(Path.home() / ".cargo" / "bin")
    if cargo_bin not in env.get("PATH", "").split(os.pathsep):
        env["PATH"] = cargo_bin + os.pathsep + env.get("PATH", "")
    env.update(extra)
    return env


def cpu_seconds(pid: int | None, live_children: bool = True) -> float | None:
    """CPU used so far by the kernel and all its processes, finished (cargo, rustc) or
    still running (evcxr's execution process): Linux only, else None.

    Wall times swing with other load on a shared machine; this doesn't."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total = sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
        for task in Path(f"/proc/{pid}/task").iterdir() if live_children else ():
            for child in (task / "children").read_text().split():
                total += cpu_seconds(int(child)) or 0.0
        return total
    except (OSError, ValueError, TypeError, IndexError):
        return None


def own_cpu(pid: int | None) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, TypeError, IndexError):
        return None


def kernel_pid(client) -> int | None:
    try:
        return client.km.provisioner.process.pid
    except AttributeError:
        return None


def code_cells(nb) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]


def run_once(path: Path, kernel: str, env: dict[str, str], only_first: bool = False) -> dict:
    """One fresh kernel through the notebook (or just its first code cell)."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, kernel_name=kernel, timeout=CELL_TIMEOUT, startup_timeout=300,
        allow_errors=False, record_timing=False, interrupt_on_timeout=False,
    )
    cells = code_cells(nb)
    if only_first:
        cells = cells[:1]
    times: list[float] = []
    cpu: list[float | None] = []
    own: list[float | None] = []  # evcxr_jupyter's own process (rust-analyzer, codegen of the cell's source)
    t0 = time.monotonic()
    with client.setup_kernel(cwd=str(path.parent), env=env):
        start = time.monotonic() - t0
        pid = kernel_pid(client)
        start_cpu = cpu_seconds(pid)
        build0 = cpu_seconds(pid, live_children=False)
        for i in cells:
            t, c, o = time.monotonic(), cpu_seconds(pid), own_cpu(pid)
            client.execute_cell(nb.cells[i], i)
            times.append(time.monotonic() - t)
            c2, o2 = cpu_seconds(pid), own_cpu(pid)
            cpu.append(None if c is None or c2 is None else c2 - c)
            own.append(None if o is None or o2 is None else o2 - o)
        build1 = cpu_seconds(pid, live_children=False)
        own_total = own_cpu(pid)
    slowest = max(range(len(times)), key=times.__getitem__)
    return {
        "start": start,
        "first": times[0],
        "whole": start + sum(times),
        "median_cell": statistics.median(times),
        "slowest_cell": times[slowest],
        "slowest_index": cells[slowest],
        "cells": times,
        "start_cpu": start_cpu,
        "first_cpu": cpu[0],
        "whole_cpu": None if None in cpu or start_cpu is None else start_cpu + sum(cpu),
        "cells_cpu": cpu,
        # the kernel and its finished children only (not the process running the cells)
        "build_cpu": None if build0 is None or build1 is None else start_cpu + build1 - build0,
        # evcxr_jupyter's own process (rust-analyzer, code generation), whole run
        "evcxr_cpu": own_total,
        "cells_evcxr_cpu": own,
    }


def fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}s"


def free_slots(root: Path) -> None:
    """Delete every kept build under root that no running kernel holds (its lock free)."""
    import fcntl
    for slot in sorted(root.glob("**/kernel-*")):
        try:
            with open(slot / ".lock", "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                shutil.rmtree(slot)
        except OSError:
            pass  # held: the first kernel's


@contextlib.contextmanager
def first_kernel(path: Path, kernel: str, env: dict[str, str]):
    """A kernel on `path` that has run its first code cell, open until the block ends."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, kernel_name=kernel, timeout=CELL_TIMEOUT, startup_timeout=300,
                            allow_errors=False, record_timing=False)
    with client.setup_kernel(cwd=str(path.parent), env=env):
        i = code_cells(nb)[0]
        client.execute_cell(nb.cells[i], i)
        yield


def bench(path: Path, kernel: str, cache: str, runs: int, extra_env: dict[str, str],
          held: Path | None = None) -> dict:
    results = []
    base_env = kernel_env(extra_env)
    if cache in ("warm", "second"):
        run_once(path, kernel, base_env, only_first=True)  # fill the caches, untimed
    for _ in range(runs):
        if cache == "second":
            root = Path(base_env.get("RESHARD_KERNEL_CACHE") or
                        Path(base_env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "reshard" / "kernels")
            with first_kernel(held or path, kernel, base_env):
                free_slots(root)
                results.append(run_once(path, kernel, base_env, only_first=True))
                results[-1]["whole"] = results[-1]["start"] + results[-1]["first"]
        elif cache == "cold":
            with tempfile.TemporaryDirectory(prefix="reshard-cold-") as tmp:
                results.append(run_once(path, kernel, {**base_env, "XDG_CACHE_HOME": tmp}))
        else:
            results.append(run_once(path, kernel, base_env))
        r = results[-1]
        print(f"  {path.name} {cache}: start {r['start']:.1f}s first {r['first']:.1f}s "
              f"whole {r['whole']:.1f}s (cpu: first {fmt(r['first_cpu'])} whole {fmt(r['whole_cpu'])}; "
              f"load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
    med = {k: statistics.median(r[k] for r in results)
           for k in ("start", "first", "whole", "median_cell", "slowest_cell")}
    for k in ("first_cpu", "whole_cpu"):
        vals = [r[k] for r in results if r[k] is not None]
        med[k] = statistics.median(vals) if vals else None
    slowest_run = max(results, key=lambda r: r["slowest_cell"])
    med["slowest_index"] = slowest_run["slowest_index"]
    med["runs"] = results
    return med


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("notebooks", nargs="*", type=Path)
    ap.add_argument("--kernel", default="rust", help="kernelspec name (default: rust)")
    ap.add_argument("--cache", choices=["warm", "cold", "both", "second"], default="both",
                    help="both: warm and cold; second: the first notebook given stays open (its first "
                         "cell run) while each run times a second kernel on a new kept build")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="extra environment for the kernel (repeatable)")
    ap.add_argument("--json", type=Path, help="also write every run's numbers here")
    args = ap.parse_args(argv)

    paths = args.notebooks or sorted(p for p in NOTEBOOKS_DIR.glob("[0-9]*.ipynb")
                                     if code_cells(nbformat.read(p, as_version=4)))
    extra_env = dict(kv.split("=", 1) for kv in args.env)
    states = ["warm", "cold"] if args.cache == "both" else [args.cache]
    rows = []
    for state in states:
        for p in (paths[1:] or paths) if state == "second" else paths:
            rows.append({"notebook": p.name, "cache": state,
                         **bench(p.resolve(), args.kernel, state, args.runs, extra_env,
                                 held=paths[0].resolve() if state == "second" else None)})

    print(f"\nkernel {args.kernel!r}, medians of {args.runs} run(s), seconds")
    head = (f"{'notebook':<38} {'cache':<6} {'start':>6} {'first':>6} {'whole':>6} {'median':>7} "
            f"{'slowest (cell)':>15} {'cpu first':>9} {'cpu whole':>9}")
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['notebook'][:38]:<38} {r['cache']:<6} {r['start']:>6.1f} {r['first']:>6.1f} "
              f"{r['whole']:>6.1f} {r['median_cell']:>7.2f} {r['slowest_cell']:>9.1f} ({r['slowest_index']:>3}) "
              f"{fmt(r['first_cpu']):>9} {fmt(r['whole_cpu']):>9}")
    print("start = kernel start; first = first code cell; whole = start + all cells; median/slowest: "
          "one cell.\ncpu = CPU seconds of the kernel and its compilers (steady on a busy machine); "
          f"load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.")
    if args.json:
        args.json.write_text(json.dumps({"kernel": args.kernel, "runs": args.runs, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
