"""Execute reshard's notebooks on the evcxr Rust kernel.

One execution path shared by the notebook tests (through labruns.py: each lab
executed once per session, its copy in .nbtest/), the checker CLI (nbcheck.py)
and `make notebooks` (re-execute in place, two at a time on two cores).

The kernel is started with cwd = the notebook's own directory, as JupyterLab
does, so `:dep reshard = { path = ".." }` resolves to the repo root.

EVCXR_CONFIG_DIR is pointed at tests/notebooks/evcxr/, whose init.evcxr sets
`:preserve_vars_on_panic 0`. Without it evcxr catches a panic, prints it to
stderr and reports the cell as *successful*, so a failing `assert!` in a
notebook would go unnoticed. Readers' own kernels are unaffected.

CLI:
    python tests/notebooks/nbrun.py --inplace notebooks/*.ipynb   # two at a time on two cores (-j)
    python tests/notebooks/nbrun.py handouts/student/*.ipynb      # only run them
    python tests/notebooks/nbrun.py --out DIR notebooks/x.ipynb   # keep the executed copy in DIR
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from queue import Empty

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionComplete, CellExecutionError, CellTimeoutError
from nbclient.util import ensure_async

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NOTEBOOKS_DIR = REPO / "notebooks"
EVCXR_CONFIG_DIR = HERE / "evcxr"
KERNEL_NAME = "rust"  # the kernelspec `evcxr_jupyter --install` registers

# First cell compiles reshard and its dependencies inside evcxr: 30-120 s warm
# machine, several minutes cold on 2 cores. Override with NB_CELL_TIMEOUT.
CELL_TIMEOUT = int(os.environ.get("NB_CELL_TIMEOUT", "900"))
STARTUP_TIMEOUT = int(os.environ.get("NB_STARTUP_TIMEOUT", "120"))

# Belt and braces: a panic message in a cell's stderr fails the run even if the
# kernel reported success (e.g. someone runs with a different config dir).
PANIC_RE = re.compile(r"^thread '[^']*'(?: \(\d+\))? panicked at", re.MULTILINE)


# evcxr_jupyter 0.22 forwards a cell's printed lines from another thread and reports
# "idle" after sleeping 1 ms "to increase the odds" that they were sent (core.rs). On a
# busy machine a line can come after "idle": nbclient drops it (the committed notebook
# then lacks an output), or evcxr stamps it with the next cell's request once that has
# started. So after "idle" we keep reading the cell's messages until none has come for
# SETTLE seconds, before the next cell is sent. Override with NB_SETTLE.
SETTLE = float(os.environ.get("NB_SETTLE", "0.15"))


class SettlingClient(NotebookClient):
    """NotebookClient that waits for a cell's late output (see SETTLE)."""

    async def _async_poll_output_msg(self, parent_msg_id, cell, cell_index):
        await super()._async_poll_output_msg(parent_msg_id, cell, cell_index)
        while True:
            try:
                msg = await ensure_async(self.kc.iopub_channel.get_msg(timeout=SETTLE))
            except Empty:
                return
            if msg["parent_header"].get("msg_id") != parent_msg_id:
                continue
            try:
                self.process_message(msg, cell, cell_index)
            except CellExecutionComplete:
                pass


class NotebookRunError(Exception):
    """A cell failed (error reply, panic, timeout). str() names notebook and cell."""


def cell_label(nb, index: int) -> str:
    """'cell 3 (`let ring = Ring::new(...)`)' for messages."""
    src = nb.cells[index].source.strip().splitlines()
    first = src[0] if src else ""
    if len(first) > 70:
        first = first[:67] + "..."
    return f"cell {index} (`{first}`)"


def kernel_env(cwd: Path | None = None) -> dict:
    env = dict(os.environ)
    env["EVCXR_CONFIG_DIR"] = str(EVCXR_CONFIG_DIR)
    if cwd is not None and not Path(cwd).resolve().is_relative_to(REPO):
        # a copy in a test's temporary folder: no kept build for a folder used once
        # (kernel/launch.py; a checkout anywhere else keeps its build)
        env["RESHARD_KERNEL_THROWAWAY"] = "1"
    cargo_bin = Path.home() / ".cargo" / "bin"
    if str(cargo_bin) not in env.get("PATH", "").split(os.pathsep):
        env["PATH"] = str(cargo_bin) + os.pathsep + env.get("PATH", "")
    return env


def execute(path: Path | str, cwd: Path | str | None = None, *, quiet: bool = False,
            fresh_guesses: bool = True):
    """Execute a copy of the notebook at `path` on a fresh Rust kernel.

    With `fresh_guesses` (the default) the run keeps its guesses (reshard::tutor::Predictions)
    in a fresh temporary folder (RESHARD_PREDICTIONS_DIR), never reading the ones an earlier run
    or a reader left beside the notebook, which would change the closing "your predictions"
    table; without it they are kept beside the notebook, as in a reader's session.

    Returns (committed_nb, executed_nb, seconds). Raises NotebookRunError on
    any cell error, panic or timeout.
    """
    with tempfile.TemporaryDirectory(prefix="reshard-predictions-") as guesses:
        env = kernel_env(Path(cwd).resolve() if cwd else Path(path).resolve().parent)
        if fresh_guesses:
            env["RESHARD_PREDICTIONS_DIR"] = guesses
        return _execute(path, cwd, env, quiet)


def _execute(path, cwd, env, quiet):
    path = Path(path).resolve()
    cwd = Path(cwd).resolve() if cwd else path.parent
    committed = nbformat.read(path, as_version=4)
    nb = nbformat.read(path, as_version=4)
    client = SettlingClient(
        nb,
        kernel_name=KERNEL_NAME,
        timeout=CELL_TIMEOUT,
        startup_timeout=STARTUP_TIMEOUT,
        allow_errors=False,
        record_timing=False,  # no per-cell timestamps in committed notebooks
        interrupt_on_timeout=False,
    )
    t0 = time.monotonic()
    if not quiet:
        print(f"[nbrun] executing {_rel(path)} (kernel cwd {_rel(cwd)})", file=sys.stderr, flush=True)
    try:
        client.execute(cwd=str(cwd), env=env)
    except CellTimeoutError as e:
        raise NotebookRunError(
            f"{_rel(path)}: a cell timed out after {CELL_TIMEOUT}s "
            f"(set NB_CELL_TIMEOUT to raise it)\n{e}"
        ) from None
    except CellExecutionError as e:
        idx = _failed_cell_index(nb)
        if idx is None:
            raise NotebookRunError(f"{_rel(path)}: a cell failed:\n{_strip_ansi(str(e))}") from None
        raise NotebookRunError(f"{_rel(path)}: {cell_label(nb, idx)} failed: {_failure_text(nb.cells[idx])}") from None
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and PANIC_RE.search(out.get("text", "")):
                raise NotebookRunError(
                    f"{_rel(path)}: {cell_label(nb, i)} panicked "
                    f"(kernel reported success):\n{_strip_ansi(out['text'])}"
                )
    secs = time.monotonic() - t0
    if not quiet:
        print(f"[nbrun] {_rel(path)}: ok in {secs:.1f}s", file=sys.stderr, flush=True)
    return committed, nb, secs


def _failed_cell_index(nb):
    # nbclient stops at the failing cell; it is the last code cell with outputs
    # containing an error, or failing that the last one that has an execution count.
    last = None
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            return i
        if cell.get("execution_count") is not None:
            last = i
    return last


def _failure_text(cell, max_lines: int = 40) -> str:
    """The error and the cell's printed output, without Rust backtraces."""
    err = next((o for o in cell.outputs if o.get("output_type") == "error"), None)
    head = f"{err.get('ename', 'Error')}: {err.get('evalue', '')}" if err else "error"
    lines = []
    if err:
        tb = [_strip_ansi(t) for t in err.get("traceback", [])]
        if tb and tb != [err.get("evalue", "")]:
            lines += tb
    skipping = False
    streams = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
    for line in _strip_ansi(streams).splitlines():
        if line.startswith("stack backtrace:"):
            skipping = True
        elif skipping and (line.startswith("note: ") or not line.strip()):
            skipping = False
        elif PANIC_RE.match(line) and " panicked at /rustc/" in line:
            break  # evcxr's follow-up "panic in a function that cannot unwind" abort
        elif not skipping and line.strip():
            lines.append(line)
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"... [{len(lines) - max_lines} more lines]"]
    return "\n".join([head] + ["    " + ln for ln in lines])


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _strip_ansi(s: str) -> str:
    return _ANSI.sub("", s)


def _rel(p: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(REPO))
    except ValueError:
        return str(p)


def write_inplace(path: Path, nb) -> None:
    nbformat.validate(nb)
    with open(path, "w", encoding="utf-8") as f:
        nbformat.write(nb, f)


def run_one(path: Path, *, inplace=False, out: Path | None = None, cwd: Path | None = None,
            keep_guesses=False) -> bool:
    """Execute one notebook as the CLI does; True when it ran (and its prose holds, with --inplace)."""
    t0 = time.monotonic()
    try:
        _, nb, secs = execute(path, cwd, fresh_guesses=not keep_guesses)
    except NotebookRunError as e:
        print(f"[nbrun] FAILED {e}", file=sys.stderr)
        if out is not None:
            write_result(out, path, None, str(e), time.monotonic() - t0)
        return False
    if out is not None:
        write_result(out, path, nb, None, secs)
    if not inplace:
        return True
    write_inplace(path, nb)
    # Fresh outputs may have moved figures the prose quotes: say so now.
    from nbcheck import check_prose_numbers

    problems = check_prose_numbers(nb, _rel(path))
    for msg in problems:
        print(f"[nbrun] PROSE {msg}", file=sys.stderr)
    return not problems


def write_result(out: Path, path: Path, nb, error: str | None, secs: float) -> None:
    """OUT/<name>: the executed notebook; OUT/<stem>.run.json: whether it ran, why not, how long
    (what tests/notebooks/labruns.py reads)."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / Path(path).name
    if nb is not None:
        tmp = target.with_suffix(".ipynb.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            nbformat.write(nb, f)
        tmp.replace(target)
    elif target.exists():
        target.unlink()  # no stale execution left to read
    info = {"notebook": str(Path(path).resolve()), "ok": error is None, "error": error,
            "seconds": round(secs, 2)}
    (out / (Path(path).stem + ".run.json")).write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inplace", action="store_true",
                    help="write fresh outputs back into each notebook (without it: only run them)")
    ap.add_argument("--out", type=Path, metavar="DIR",
                    help="write each executed notebook into DIR under its own name, with DIR/<stem>.run.json "
                         "(whether it ran, the error, the seconds)")
    ap.add_argument("--cwd", type=Path, metavar="DIR",
                    help="the kernel's working directory (default: the notebook's own folder)")
    ap.add_argument("--keep-guesses", action="store_true",
                    help="keep the guesses beside the notebook, as a reader's kernel does (default: a fresh "
                         "temporary folder, so earlier guesses do not change the predictions table)")
    ap.add_argument("-j", "--jobs", type=int, default=None,
                    help="notebooks run at once (default: NB_JOBS, else one per core, at most 4)")
    ap.add_argument("notebooks", nargs="*", type=Path)
    args = ap.parse_args(argv)

    paths = args.notebooks or sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
    if not paths:
        print("[nbrun] no notebooks to run", file=sys.stderr)
        return 0
    opts = dict(inplace=args.inplace, out=args.out, cwd=args.cwd, keep_guesses=args.keep_guesses)
    import labruns

    jobs = args.jobs or labruns.default_jobs()
    if len(paths) == 1:
        failed = not run_one(paths[0], **opts)
    elif jobs == 1:
        failed = sum(not run_one(p, **opts) for p in paths)
    else:
        failed = run_pooled(paths, jobs, opts)
    if failed and len(paths) > 1:
        print(f"[nbrun] {failed} notebook(s) had problems", file=sys.stderr)
    return 1 if failed else 0


def run_pooled(paths, jobs: int, opts) -> int:
    """Each notebook in its own `nbrun.py` process, `jobs` at a time, each worker with its own
    kept kernel build (tests/notebooks/labruns.py); the longest first, a lab that times its
    servers (labruns.runs_alone) last and alone. Returns the failures."""
    import labruns

    pool = labruns.KernelPool(jobs)
    flags = [f for f, on in (("--inplace", opts["inplace"]), ("--keep-guesses", opts["keep_guesses"])) if on]
    for name in ("out", "cwd"):
        if opts[name] is not None:
            flags += [f"--{name}", str(Path(opts[name]).resolve())]
    order = labruns.LabRuns(pool).order([Path(p).resolve() for p in paths])
    argv = lambda p: [sys.executable, str(Path(__file__).resolve()), *flags, str(p)]
    # a lab that times its servers against a tolerance runs last, with nothing beside it
    futures = [pool.submit(argv(p), key=labruns.build_key(p), alone=labruns.runs_alone(p),
                           priority=20 if labruns.runs_alone(p) else 10) for p in order]
    failed = 0
    try:
        for done in futures:
            done = done.result()
            sys.stderr.write(done.output)
            sys.stderr.flush()
            failed += done.returncode != 0
    finally:
        pool.close()
    return failed


if __name__ == "__main__":
    sys.exit(main())
