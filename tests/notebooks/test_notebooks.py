"""Every notebooks/*.ipynb runs cleanly from a fresh kernel, its committed
outputs are current and its bold numbers were printed. With no notebooks yet
this parametrization is empty (reported as one skip)."""

import glob
import os
import shutil

import pytest

import nbcheck
import nbrun

NOTEBOOKS = sorted(nbrun.NOTEBOOKS_DIR.glob("*.ipynb"))

# Notebooks that start real servers: the programs they need, and how to install them.
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
}

# Debian installs nginx and nutcracker here, often not on a user's PATH;
# the crate looks here too (src/live/process.rs, `locate`).
SBIN = os.pathsep.join(["/usr/sbin", "/usr/local/sbin", "/sbin"])


def postgres_bin() -> str:
    """Where the crate finds PostgreSQL's programs (src/live/postgres.rs): RESHARD_PG_BINDIR, else
    beside the postgres on PATH, else Debian's /usr/lib/postgresql/<version>/bin (the newest)."""
    if os.environ.get("RESHARD_PG_BINDIR"):
        return os.environ["RESHARD_PG_BINDIR"]
    numbered = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2])
                      if d.split("/")[-2].isdigit() else -1, reverse=True)
    return os.pathsep.join(numbered)


def skip_unless_installed(name):
    """Skip a notebook whose programs are missing, except under CI=true,
    where the run must fail instead (CI installs them: see .ci/run)."""
    programs, how = NEEDS.get(name, ((), ""))
    path = os.environ.get("PATH", "") + os.pathsep + SBIN + os.pathsep + postgres_bin()
    missing = [p for p in programs if shutil.which(p, path=path) is None]
    if missing and os.environ.get("CI") != "true":
        pytest.skip(f"{name} needs {' and '.join(missing)} on PATH ({how})")


@pytest.mark.usefixtures("rust_kernel")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook(path):
    skip_unless_installed(path.name)
    nbcheck.assert_notebook_ok(path)
