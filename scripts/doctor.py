"""`make doctor`: is this machine ready for reshard's notebooks? One screen.

Checks the Rust toolchain against Cargo.toml's rust-version, Python, the
project virtualenv, evcxr_jupyter and its version, the Jupyter kernelspec
`rust` and the binary it starts, and the optional tools (Chromium for PDF
handouts; redis-server, nutcracker and nginx for the live labs 06 and 08;
PostgreSQL with postgres_fdw for labs 09 and 10; etcd and etcdctl for lab 11). Each problem comes with the
one command that fixes it. Standard library only: it runs before .venv exists.

    python3 scripts/doctor.py                 # exit 1 if something required is missing
    python3 scripts/doctor.py --before-setup  # what `make setup` installs is not a failure
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "kernel"))
import launch  # noqa: E402  (kernel/launch.py: evcxr_version, the launcher's path)

EVCXR_VERSION = os.environ.get("EVCXR_VERSION", "0.22.0")
EVCXR_MSRV = "1.95"            # evcxr 0.22.0's rust-version: needed to build it with cargo
FALLBACK_RUST_VERSION = "1.85"  # if Cargo.toml has none: evcxr 0.22 compiles cells as edition 2024
PYTHON_MIN = (3, 9)
KERNEL = "rust"
VENV = REPO / ".venv"  # --venv overrides (the tests point it at an empty folder)
CARGO_BIN = Path.home() / ".cargo" / "bin"


def which(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path=str(CARGO_BIN))


def vtuple(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def crate_rust_version() -> tuple[str | None, str]:
    """(rust-version from Cargo.toml's [package], or None; text of the file)."""
    try:
        text = (REPO / "Cargo.toml").read_text(encoding="utf-8")
    except OSError:
        return None, ""
    try:
        import tomllib  # 3.11+
        return tomllib.loads(text).get("package", {}).get("rust-version"), text
    except ImportError:
        pkg = re.search(r"^\[package\](.*?)(?=^\[|\Z)", text, re.S | re.M)
        m = pkg and re.search(r'^rust-version\s*=\s*"([^"]+)"', pkg.group(1), re.M)
        return (m.group(1) if m else None), text
    except ValueError:
        return None, text


def run(cmd: list[str]) -> str | None:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def jupyter_data_dirs() -> list[Path]:
    """Kernelspec search order of the venv's Jupyter (jupyter_core, env before user)."""
    dirs = [Path(p) for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    dirs.append(VENV / "share" / "jupyter")
    if sys.platform == "darwin":
        dirs.append(Path.home() / "Library" / "Jupyter")
    elif os.name == "nt":
        dirs.append(Path(os.environ.get("APPDATA", Path.home())) / "jupyter")
    else:
        xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        dirs.append(Path(xdg) / "jupyter")
    dirs += [Path("/usr/local/share/jupyter"), Path("/usr/share/jupyter")]
    return dirs


def find_kernelspec(name: str) -> Path | None:
    for d in jupyter_data_dirs():
        if (d / "kernels" / name / "kernel.json").is_file():
            return d / "kernels" / name
    return None


def kernel_binary(argv: list[str]) -> tuple[str | None, bool]:
    """(the evcxr_jupyter a kernelspec's argv starts, whether it is reshard's launcher)."""
    if "--evcxr" in argv:
        i = argv.index("--evcxr")
        return (argv[i + 1] if i + 1 < len(argv) else None), True
    return (argv[0] if argv else None), False


def find_chromium() -> str | None:
    """The Chromium `make handouts` prints PDFs with: $CHROMIUM, else the first on PATH."""
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def find_postgres() -> tuple[str | None, bool]:
    """The folder holding postgres, initdb and psql, as the crate looks for it (src/live/postgres.rs:
    $RESHARD_PG_BINDIR alone, else the postgres on PATH, else /usr/lib/postgresql/<newest>/bin, else
    Homebrew's), and whether postgres_fdw is installed beside it."""
    def has_all(d: Path) -> bool:
        return all(os.access(d / p, os.X_OK) and (d / p).is_file() for p in ("postgres", "initdb", "psql"))
    if os.environ.get("RESHARD_PG_BINDIR"):
        places = [Path(os.environ["RESHARD_PG_BINDIR"])]
    else:
        on_path = shutil.which("postgres")
        numbered = sorted((d for d in Path("/usr/lib/postgresql").glob("*/bin") if d.parent.name.isdigit()),
                          key=lambda d: int(d.parent.name), reverse=True)
        brew = sorted((d / "bin" for root in ("/opt/homebrew/opt", "/usr/local/opt")
                       for d in Path(root).glob("postgresql*")), reverse=True)
        places = ([Path(on_path).parent] if on_path else []) + numbered + [Path("/usr/local/pgsql/bin")] + brew
    found = next((d for d in places if has_all(d)), None)
    if found is None:
        return None, False
    share = run([str(found / "pg_config"), "--sharedir"]) if (found / "pg_config").exists() else None
    shares = [Path(share.strip())] if share else []
    shares += [found.parent / "share", Path("/usr/share/postgresql") / found.parent.name]
    return str(found), any((d / "extension" / "postgres_fdw.control").exists() for d in shares)


def install_hint(tool: str) -> str:
    if tool == "postgres":
        if sys.platform == "darwin":
            return "brew install postgresql@15"
        if shutil.which("apt-get"):
            sudo = "" if hasattr(os, "geteuid") and os.geteuid() == 0 else "sudo "
            return f"{sudo}apt-get install -y postgresql postgresql-contrib"
        return "install PostgreSQL 15 or newer with its contrib modules (postgres_fdw)"
    if tool == "etcd":
        if sys.platform == "darwin":
            return "brew install etcd"
        if shutil.which("apt-get"):
            sudo = "" if hasattr(os, "geteuid") and os.geteuid() == 0 else "sudo "
            return f"{sudo}apt-get install -y etcd-server etcd-client"
        return "install etcd 3.4 or newer with etcdctl"
    if tool == "proxies":
        if sys.platform == "darwin":
            return "brew install twemproxy nginx"
        if shutil.which("apt-get"):
            sudo = "" if hasattr(os, "geteuid") and os.geteuid() == 0 else "sudo "
            return f"{sudo}apt-get install -y nutcracker nginx"
        return "install twemproxy (nutcracker) and nginx"
    if sys.platform == "darwin":
        return {"chromium": "brew install --cask chromium", "redis": "brew install redis"}[tool]
    sudo = "" if hasattr(os, "geteuid") and os.geteuid() == 0 else "sudo "
    if shutil.which("apt-get"):
        pkg = {"chromium": "chromium", "redis": "redis-server"}[tool]
        return f"{sudo}apt-get install -y {pkg}"
    if shutil.which("dnf"):
        return f"{sudo}dnf install -y " + {"chromium": "chromium", "redis": "redis"}[tool]
    return {"chromium": "install Chromium or Google Chrome", "redis": "install Redis (redis-server)"}[tool]


class Report:
    def __init__(self, before_setup: bool):
        self.before_setup = before_setup
        self.rows: list[tuple[str, str, str, str]] = []
        self.failed = False

    def add(self, status: str, what: str, detail: str, fix: str = "") -> None:
        if status == "setup":  # missing, but `make setup` installs it
            status = "todo" if self.before_setup else "FAIL"
        if status == "FAIL":
            self.failed = True
        self.rows.append((status, what, detail, fix))

    def print(self, problems_only: bool = False) -> None:
        rows = [r for r in self.rows if r[0] not in ("ok", "opt")] if problems_only else self.rows
        if not problems_only:
            print(f"reshard doctor ({REPO})")
        for status, what, detail, fix in rows:
            print(f"  {status:<5} {what:<15} {detail}")
            if fix:
                print(f"  {'':<5} {'':<15} fix: {fix}")
        if self.failed:
            print("Something required is missing: run the fix above, then try again.")
        elif not problems_only:
            print("Ready: `make lab` opens the notebooks." if not self.before_setup
                  else "Ready for `make setup`.")


def check(before_setup: bool) -> Report:
    r = Report(before_setup)

    # Rust toolchain vs the crate's rust-version.
    wanted, _ = crate_rust_version()
    source = "Cargo.toml rust-version"
    if not wanted:
        wanted, source = FALLBACK_RUST_VERSION, "Cargo.toml has no rust-version; evcxr 0.22 cells are edition 2024"
    rustc = which("rustc")
    rustc_v = run([rustc, "--version"]) if rustc else None
    fix_rust = "rustup update stable" if which("rustup") else "install Rust from https://rustup.rs"
    if not rustc_v or not which("cargo"):
        r.add("FAIL", "Rust", "rustc/cargo not found", fix_rust)
    else:
        have = re.search(r"\d+\.\d+\.\d+", rustc_v).group(0)
        if vtuple(have) < vtuple(wanted):
            r.add("FAIL", "Rust", f"rustc {have}, needs >= {wanted} ({source})", fix_rust)
        else:
            r.add("ok", "Rust", f"rustc {have} (>= {wanted}, {source})")

    # Python (this interpreter runs make's recipes and creates the venv).
    pv = ".".join(map(str, sys.version_info[:3]))
    if sys.version_info[:2] < PYTHON_MIN:
        r.add("FAIL", "Python", f"{sys.executable} is {pv}, needs >= {'.'.join(map(str, PYTHON_MIN))}",
              "install Python 3.11 and run `make setup PYTHON=python3.11`")
    else:
        r.add("ok", "Python", f"{pv} ({sys.executable})")

    # The project virtualenv.
    vpy = VENV / "bin" / "python"
    stamp = VENV / ".requirements.stamp"
    req = REPO / "requirements.txt"
    if not vpy.exists():
        r.add("setup", "virtualenv", f"{VENV} missing", "make setup")
    elif not stamp.exists() or (req.exists() and stamp.stat().st_mtime < req.stat().st_mtime):
        r.add("setup", "virtualenv", "requirements.txt changed since the last install", "make setup")
    else:
        r.add("ok", "virtualenv", f"{VENV} (requirements installed)")

    # evcxr_jupyter on PATH (or ~/.cargo/bin).
    evcxr = which("evcxr_jupyter")
    if not evcxr:
        if rustc_v and vtuple(re.search(r"\d+\.\d+\.\d+", rustc_v).group(0)) < vtuple(EVCXR_MSRV):
            fix = f"rustup update stable (evcxr {EVCXR_VERSION} needs Rust >= {EVCXR_MSRV}), then make evcxr"
        else:
            fix = "make evcxr"
        r.add("setup", "evcxr_jupyter", "not found on PATH or in ~/.cargo/bin", fix)
    else:
        v = launch.evcxr_version(evcxr)
        if v and v != EVCXR_VERSION:
            r.add("warn", "evcxr_jupyter", f"{v} at {evcxr}; the notebooks are tested with {EVCXR_VERSION}",
                  f"cargo install --locked --force evcxr_jupyter --version {EVCXR_VERSION}")
        else:
            r.add("ok", "evcxr_jupyter", f"{v or 'version unknown'} ({evcxr})")

    # The `rust` kernelspec the venv's Jupyter would use, and what it starts.
    kdir = find_kernelspec(KERNEL)
    if not kdir:
        r.add("setup", "kernelspec", f"no '{KERNEL}' kernelspec in {', '.join(map(str, jupyter_data_dirs()[:3]))}...",
              "make kernel")
    else:
        try:
            spec = json.loads((kdir / "kernel.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            spec = {"argv": []}
            r.add("setup", "kernelspec", f"{kdir}/kernel.json unreadable: {e}", "make kernel")
        binary, ours = kernel_binary(spec.get("argv", []))
        if ours:
            launcher = next((a for a in spec["argv"] if a.endswith("launch.py")), "")
            if Path(launcher).resolve() != (REPO / "kernel" / "launch.py").resolve():
                r.add("setup", "kernelspec", f"{kdir} starts another checkout's launcher {launcher}", "make kernel")
        if binary and not (os.path.exists(binary) or shutil.which(binary)):
            r.add("setup", "kernelspec", f"{kdir} points to {binary}, which does not exist", "make kernel")
        elif binary:
            bv = launch.evcxr_version(shutil.which(binary) or binary)
            path_v = launch.evcxr_version(evcxr) if evcxr else None
            note = f"{kdir} -> {binary} ({bv or 'version unknown'})"
            if bv and bv != EVCXR_VERSION:
                r.add("warn", "kernelspec", note + f", not {EVCXR_VERSION}", "make kernel")
            elif evcxr and Path(binary).resolve() != Path(evcxr).resolve() and bv != path_v:
                r.add("warn", "kernelspec", note + f"; PATH has {evcxr} ({path_v})", "make kernel")
            elif not ours:
                r.add("warn", "kernelspec", note + "; plain evcxr: no kept builds, first cell ~14 s",
                      "make kernel")
            else:
                r.add("ok", "kernelspec", note + ", kept builds")

    # Optional tools.
    chrome = find_chromium()
    if chrome:
        r.add("ok", "Chromium", f"{chrome} (optional: PDF handouts)")
    else:
        r.add("opt", "Chromium", "not found (optional: PDF handouts)", install_hint("chromium"))
    redis = shutil.which("redis-server")
    if redis:
        r.add("ok", "redis-server", f"{redis} (optional: notebooks 06 and 08)")
    else:
        r.add("opt", "redis-server", "not found (optional: notebooks 06 and 08)", install_hint("redis"))
    # Debian puts these in /usr/sbin, often not on a user's PATH; the crate looks there too.
    sbin = os.environ.get("PATH", "") + os.pathsep + os.pathsep.join(["/usr/sbin", "/usr/local/sbin"])
    missing = [p for p in ("nutcracker", "nginx") if shutil.which(p, path=sbin) is None]
    if not missing:
        r.add("ok", "nutcracker", "and nginx found (optional: notebook 08)")
    else:
        r.add("opt", "nutcracker", f"{' and '.join(missing)} not found (optional: notebook 08)",
              install_hint("proxies"))
    pg, fdw = find_postgres()
    if pg and fdw:
        r.add("ok", "PostgreSQL", f"{pg}, with postgres_fdw (optional: notebooks 09 and 10)")
    elif pg:
        r.add("opt", "PostgreSQL", f"{pg}, but postgres_fdw is missing (optional: notebooks 09 and 10)",
              install_hint("postgres"))
    else:
        r.add("opt", "PostgreSQL", "not found (optional: notebooks 09 and 10)", install_hint("postgres"))
    missing = [p for p in ("etcd", "etcdctl") if shutil.which(p, path=sbin) is None]
    if not missing:
        r.add("ok", "etcd", f"{shutil.which('etcd', path=sbin)} and etcdctl (optional: notebook 11)")
    else:
        r.add("opt", "etcd", f"{' and '.join(missing)} not found (optional: notebook 11)", install_hint("etcd"))
    return r


def main(argv=None) -> int:
    global VENV
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before-setup", action="store_true",
                    help="what `make setup` installs is reported as todo, not as a failure")
    ap.add_argument("--problems-only", action="store_true", help="print only what needs doing (not the optional tools)")
    ap.add_argument("--venv", type=Path, default=VENV, help="the project virtualenv (default: .venv)")
    args = ap.parse_args(argv)
    VENV = args.venv.resolve()
    report = check(args.before_setup)
    report.print(problems_only=args.problems_only)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
