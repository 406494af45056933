"""What the tests leave behind: servers still running, directories in the temp folder, segments in
/dev/shm. `make test` takes a snapshot before its first test and checks against it after its last
one; anything of ours that is new fails the run, with what it is and where.

    python scripts/leftovers.py snapshot FILE   # before
    python scripts/leftovers.py check FILE      # after: exit 1 if something of ours was left

Ours: the processes of the programs the tests start (redis-server, nutcracker, nginx, postgres,
etcd, evcxr_jupyter, the crate's reshard-watchdog, JupyterLab, Chromium), the crate's directories
`reshard-*` in the temp folder and in /dev/shm, and PostgreSQL's shared memory segments
(/dev/shm/PostgreSQL.*, which a postmaster killed with SIGKILL cannot remove). Only what was not
there before counts, so a server or a JupyterLab of your own is left alone. Standard library only;
Linux (elsewhere it reports nothing).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

PROGRAMS = ("redis-server", "nutcracker", "nginx", "postgres", "postmaster", "etcd", "etcdctl",
            "evcxr_jupyter", "reshard-watchdog", "jupyter-lab", "chromium", "chrome")
SHM = Path("/dev/shm")


def processes() -> dict[str, str]:
    """pid -> command line, for the processes of PROGRAMS (zombies left out: their parent reaps them)."""
    found = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            stat = (proc / "stat").read_text()
            if stat.rsplit(")", 1)[1].split()[0] == "Z":
                continue
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError):
            continue
        name = Path(argv[0].decode(errors="replace")).name if argv and argv[0] else ""
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        if any(p in (name, comm) or name.startswith(p + ":") for p in PROGRAMS) and int(proc.name) != os.getpid():
            found[proc.name] = " ".join(a.decode(errors="replace") for a in argv if a)[:200]
    return found


def files() -> list[str]:
    """Our directories in the temp folder and /dev/shm, and PostgreSQL's segments."""
    out = []
    for base in {Path(tempfile.gettempdir()), SHM}:
        try:
            out += [str(p) for p in base.iterdir() if p.name.startswith("reshard-")
                    and not p.name.startswith("reshard-ci-home.")]  # .ci/run's HOME, its own to delete
        except OSError:
            pass
    try:
        out += [str(p) for p in SHM.iterdir() if p.name.startswith("PostgreSQL.")]
    except OSError:
        pass
    return sorted(out)


def snapshot() -> dict:
    return {"processes": processes(), "files": files()}


def left(before: dict) -> list[str]:
    now = snapshot()
    procs = [f"process {pid}: {cmd}" for pid, cmd in sorted(now["processes"].items())
             if before["processes"].get(pid) != cmd]
    paths = [f"left on disk: {p}" for p in now["files"] if p not in before["files"]]
    return procs + paths


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("snapshot", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    file = Path(argv[1])
    if argv[0] == "snapshot":
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(snapshot(), indent=1), encoding="utf-8")
        return 0
    before = json.loads(file.read_text(encoding="utf-8"))
    deadline = time.monotonic() + 10  # a server stopped a moment ago may still be exiting
    while (found := left(before)) and time.monotonic() < deadline:
        time.sleep(0.5)
    if found:
        print("The tests left these behind (scripts/leftovers.py):", *found, sep="\n  ", file=sys.stderr)
        return 1
    print(f"leftovers: none (processes, {tempfile.gettempdir()}/reshard-*, /dev/shm)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
