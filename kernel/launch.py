"""Start evcxr_jupyter for reshard's notebooks with a kept build directory.

This is what the Jupyter kernelspec `rust` that `make setup` writes into
.venv/share/jupyter/kernels/rust runs (see kernel/README.md). Standard library
only. Before it hands over to evcxr_jupyter (exec, same process) it sets:

EVCXR_TMPDIR     a build directory kept between kernels: ~/.cache/reshard/kernels/kernel-<n>/build,
                 the first slot no running kernel holds (a lock file, held by evcxr and its
                 cargo until they exit). A restarted kernel finds reshard, md-5, rayon...
                 built there, so cargo only checks fingerprints (evcxr normally builds in a
                 fresh temporary directory that it deletes when the kernel stops). The slots
                 do not depend on the notebook's folder: notebooks/ and workspace/ of one
                 clone share their builds. A new slot (a second kernel open at the same time)
                 starts as a whole copy of another slot's build (seed_slot), never a mix of
                 two. Units whose sources are gone (a deleted clone's reshard) are deleted at
                 start (prune_dead_units). Unchanged if already set.
RUSTC_WRAPPER    kernel/rustc-guard (unless a wrapper is already set): when a cell cannot load a
                 crate of the kept build (rustc's E0460/E0463...), `launch.py --guard` builds
                 the slot afresh beside it, once, swaps it in and compiles the cell again
                 (guard()); one line on the kernel's log and in <slot>/guard.log says so.
<slot>/.cargo/config.toml
                 compiles the cells themselves (evcxr's crate `ctx`) at opt-level 0, while
                 reshard and its dependencies keep evcxr's opt-level (2): a cell's own code is
                 a few lines of glue, its heavy work runs inside reshard. Cuts a cell's CPU by
                 30-50%. Cargo reads this file because it sits above the build directory. Set
                 RESHARD_CELL_OPT=2 (or 1, 3, s, z) for another level, or =evcxr to leave the
                 cells at evcxr's `:opt` (no file written).
EVCXR_CONFIG_DIR a directory with an init.evcxr made of kernel/init.evcxr followed by your own
                 init.evcxr (your prelude.rs and evcxr.toml are copied too), so your evcxr
                 settings still apply and win: the slot's config/, or for a kernel without a
                 slot a folder named by its content beside the kept builds (shared_config).
                 Unchanged if already set (the notebook tests set their own).
RUST_SRC_PATH    (unless already set) a view of the toolchain's rust-src for evcxr's embedded
                 rust-analyzer: library/ without its Cargo.toml (so it reads the standard
                 library's own crates, not libc, hashbrown... through `cargo metadata`) and
                 without core::arch and core::simd, kept in ~/.cache/reshard/rust-src-<hash>.
                 About 3 CPU seconds less per kernel start and first cell.
                 RESHARD_RUST_SRC=full: none.

RESHARD_KERNEL_CACHE=DIR  the slots' folder instead of ~/.cache/reshard/kernels.
RESHARD_KERNEL_THROWAWAY=1  (set by the tests for notebooks they copy into a temporary
                 folder) no kept build directory: evcxr's own throwaway one.
RESHARD_GRADING=1  (set by nbgrader/nbgrader_config.py for `nbgrader autograde`) adds
                 `:preserve_vars_on_panic 0` last, so a panicking check cell is an error
                 the grader sees, not a success with a message on stderr.

Also `launch.py --install --evcxr PATH --prefix DIR` writes the kernelspec, and adds
the toolchain's rust-src component with rustup when it is missing (evcxr needs it).
Delete ~/.cache/reshard/kernels at any time to get the disk space back.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
INIT = HERE / "init.evcxr"
KERNEL_NAME = "rust"
MAX_KERNELS = 32  # kernels running at once with a kept build; more get a throwaway one


def user_cache_dir() -> Path:
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"


def user_evcxr_config_dir() -> Path:
    """Where evcxr itself looks (Rust `dirs::config_dir()/evcxr`)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "evcxr"
    if os.name == "nt":
        return Path(os.environ.get("APPDATA", Path.home())) / "evcxr"
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return (Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".config") / "evcxr"


def kernels_root() -> Path:
    """Where the kept builds live: one slot per kernel running at the same time (kernel-<n>)."""
    root = os.environ.get("RESHARD_KERNEL_CACHE")
    return Path(root) if root else user_cache_dir() / "reshard" / "kernels"


def try_lock(path: Path):
    """`path` opened and locked (flock, exclusive), or None when another process holds it (a
    kernel running in that slot; cargo building, for its .cargo-lock). Opened for appending: a
    holder's pid in it stays as it was. POSIX only (its callers check for fcntl first)."""
    import fcntl
    lock = open(path, "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return None
    return lock


def _posix() -> bool:
    try:
        import fcntl  # noqa: F401
    except ImportError:  # Windows: no flock, so no kept builds (evcxr's throwaway directory)
        return False
    return True


SLOT = re.compile(r"kernel-\d+")
OLD_FOLDER = re.compile(r".+-[0-9a-f]{8}")  # the per-folder layout before 7 December


def claim_slot(root: Path):
    """(slot, open lock file) for the first kernels_root()/kernel-<n> that no live kernel holds;
    (None, None) on Windows or when MAX_KERNELS are running. The lock is inherited by evcxr and
    its cargo (exec), so a slot stays taken until the last of them has exited."""
    if not _posix():
        return None, None
    for n in range(MAX_KERNELS):
        slot = root / f"kernel-{n}"
        try:
            slot.mkdir(parents=True, exist_ok=True)
            lock = try_lock(slot / ".lock")
        except OSError:
            return None, None
        if lock is None:
            continue
        os.set_inheritable(lock.fileno(), True)
        lock.truncate(0)
        lock.write(f"{os.getpid()}\n")
        lock.flush()
        return slot, lock
    return None, None


def drop_old_layout(root: Path) -> list[Path]:
    """Delete the kept builds of launchers before 7 December 2026 (root/<folder>-<hash>/kernel-<n>,
    one set per notebook folder), unless a kernel still runs in one of them. Some of them were
    broken for good: the test pool copied one build's reshard into another whose serde_json had
    been compiled elsewhere (kernel/README.md, "Why a build is copied whole or not at all")."""
    if not _posix():
        return []
    deleted = []
    try:  # <name>-<8 hex digits> holding kernel-<n> slots: nothing else in the folder is touched
        old = [d for d in root.iterdir() if OLD_FOLDER.fullmatch(d.name) and d.is_dir()
               and ((d / "folder.txt").is_file() or any(d.glob("kernel-*/.lock")))]
    except OSError:
        return []
    for folder in old:
        locks = []
        try:
            locks = [try_lock(lock) for lock in folder.glob("kernel-*/.lock")]
            if all(locks):
                shutil.rmtree(folder)
                deleted.append(folder)
        except OSError:
            pass
        finally:
            for lock in filter(None, locks):
                lock.close()
    return deleted


SEED_SKIP = ("incremental",)  # rustc's incremental state: only speeds up a rebuild of reshard
SEED_SKIP_PREFIXES = ("libcode_", "ctx-", "libctx-", "libctx.")  # evcxr's cell crate, its libraries
SEED_WAIT = 3.0  # seconds to wait while cargo is busy in every source (a cell compiles in 0.3)


def seed_slot(slot: Path) -> Path | None:
    """Start a new slot's build as a whole copy of another slot's `build/target` (the most
    recently built first), without the incremental state and the cells' own files. Returns the
    build copied, or None (the slot already has a build, or nothing could be copied: evcxr then
    builds from nothing, about 75 CPU seconds).

    A copy is made only while cargo is not running in the source (its locks held for the copy,
    as cargo takes them), so it is a state cargo left, and every unit in it was compiled against
    the dependencies beside it. That matters: serde_core includes a file from its build
    directory, so its crate hash differs from one build directory to the next, and a reshard
    copied on its own into a build whose serde_json was compiled elsewhere cannot be loaded
    (E0460/E0463). Nothing is ever merged into a build that has one. Cargo finds the copied
    units fresh (fingerprints don't depend on the build directory's path; the copy keeps file
    times), so a second kernel's first cell costs 2-3 s, not 45. A source where cargo is
    building right now is waited for, up to SEED_WAIT seconds in all."""
    target = slot / "build" / "target"
    if target.exists() or not _posix():
        return None
    for stale in target.parent.glob(".target-seeding-*"):  # a copy cut short (a killed start)
        shutil.rmtree(stale, ignore_errors=True)

    def built(candidate: Path) -> float | None:  # when its dependencies were last built
        try:
            return max(d.stat().st_mtime for d in candidate.glob("*/debug/deps") if any(d.iterdir()))
        except (OSError, ValueError):
            return None

    try:
        others = [s / "build" / "target" for s in slot.parent.iterdir() if s != slot and SLOT.fullmatch(s.name)]
    except OSError:
        return None
    ranked = sorted((-when, str(t)) for t in others if (when := built(t)) is not None)
    sources = [Path(t) for _, t in ranked]
    deadline = time.monotonic() + SEED_WAIT
    while sources:
        for source in list(sources):
            copied = _copy_build(source, target)
            if copied:
                return source
            if copied is False:  # failed (gone, a full disk): not tried again
                sources.remove(source)
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.2)  # each one busy: a kernel there compiling its start-up crate or a cell
    return None


def _profile_dirs(build: Path) -> list[Path]:
    """A build's profile directories: target/debug, and target/<triple>/debug for evcxr's
    `--target` builds; each has its .cargo-lock, deps/, build/ and .fingerprint/."""
    return [*build.glob("debug"), *build.glob("*/debug")]


def _cargo_locks(build: Path) -> list | None:
    """Every cargo lock of a build (each profile directory's .cargo-lock, flock as cargo takes
    them, made if missing), held; None, holding nothing, when cargo is building there now. A
    lock that cannot be opened raises OSError, holding nothing."""
    locks, held = [], False
    try:
        for d in _profile_dirs(build):
            locks.append(try_lock(d / ".cargo-lock"))
        held = all(locks)
        return locks if held else None
    finally:
        if not held:
            for lock in filter(None, locks):
                lock.close()


def _copy_build(source: Path, target: Path) -> bool | None:
    """Copy the build `source` whole to `target` (seed_slot): True when copied, None when cargo
    is building there now, False when the copy failed (nothing is left behind)."""
    if not _profile_dirs(source):
        return False
    try:
        locks = _cargo_locks(source)
    except OSError:  # its lock cannot be opened (the slot deleted meanwhile): not a source
        return False
    if locks is None:
        return None
    partial = target.with_name(f".target-seeding-{os.getpid()}")
    skip = lambda _dir, names: {n for n in names if n in SEED_SKIP or n.startswith(SEED_SKIP_PREFIXES)}
    try:
        shutil.copytree(source, partial, symlinks=True, ignore=skip)
        os.replace(partial, target)
        return True
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
        return False
    finally:
        for lock in locks:
            lock.close()


def prune_dead_units(target: Path) -> int:
    """Delete from a build we hold (no cargo runs in it) the units whose sources are gone:
    reshard built for a clone deleted since (30 MB each, never used again), as a unit's dep-info
    (deps/<crate>-<hash>.d) says, its crate root first. Cargo rebuilds anything that depended on
    one (it compares the outputs' times), so deleting a unit never leaves a build inconsistent.
    Returns the number of units deleted."""
    pruned = 0
    for profile in _profile_dirs(target):
        try:
            infos = list((profile / "deps").glob("*.d"))
        except OSError:
            continue
        dead = set()
        for info in infos:
            try:
                with open(info, encoding="utf-8", errors="replace") as f:
                    first = f.readline()
            except OSError:
                continue
            root = re.match(r"((?:\\ |[^ ])+)", first.partition(": ")[2].strip())
            if root and "-" in info.stem:
                path = Path(root.group(1).replace("\\ ", " "))
                if path.is_absolute() and _gone(path):
                    dead.add("-" + info.stem.rsplit("-", 1)[1])
        for sub in ("deps", "build", ".fingerprint"):
            try:
                entries = list((profile / sub).iterdir())
            except OSError:
                continue
            for entry in entries:
                if any(h + "." in entry.name or entry.name.endswith(h) for h in dead):
                    shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink(missing_ok=True)
        pruned += len(dead)
    return pruned


def _gone(path: Path) -> bool:
    """True only when `path` certainly does not exist: a folder that cannot be looked at now
    (permissions, a drive that answers with an error) is not gone."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except (OSError, ValueError):
        return False
    return False


# ---- the guard: a kept build that cannot load reshard is built afresh, once --------------------

GUARD = HERE / "rustc-guard"  # RUSTC_WRAPPER of a kernel with a kept slot (see guard())
# rustc's errors for a crate found but not loadable: E0460 found possibly newer version of a
# dependency, E0461 wrong target, E0462 a staticlib, E0463 can't find crate, E0464 multiple
# candidates, E0514 another rustc, E0786 invalid metadata
LOAD_ERRORS = re.compile(r"\b(E0460|E0461|E0462|E0463|E0464|E0514|E0786)\b")
CRATE_NAMED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")  # `reshard` in "can't find crate for `reshard`"
CARGO_CHILD_ENV = ("CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_CRATE_NAME", "CARGO_PRIMARY_PACKAGE",
                   "CARGO_RUSTC_CURRENT_DIR", "CARGO_MAKEFLAGS", "CARGO_BIN_NAME", "CARGO_SBOM_PATH",
                   "MAKEFLAGS", "MFLAGS", "OUT_DIR", "RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER")


def guard(stderr_file: str, rustc: list[str]) -> int:
    """Called by kernel/rustc-guard when rustc failed to compile a cell (evcxr's crate `ctx`)
    with one of LOAD_ERRORS naming a crate that the kept build holds: the build is inconsistent
    (a unit compiled against another build's dependencies), and cargo cannot see it, because its
    fingerprints don't change. Builds the slot afresh beside it, with the cargo and the flags of
    this build, puts that build in the place of the old one (cargo holds the slot's locks for
    us: nothing else runs there), then compiles the cell again. Once per kernel: a second
    failure is the cell's own. One line on the kernel's log says so, and <slot>/guard.log keeps
    it. Returns rustc's exit code, its errors on stderr as cargo expects them."""
    text = Path(stderr_file).read_text(encoding="utf-8", errors="replace")
    slot = Path(os.environ.get("RESHARD_KERNEL_SLOT", ""))
    deps = next((a.split("=", 1)[1] for a in rustc if a.startswith("dependency=")), None)
    named = {m for line in text.splitlines() if LOAD_ERRORS.search(line) for m in CRATE_NAMED.findall(line)}
    ours = sorted(n for n in named if deps and any(Path(deps).glob(f"lib{n}-*.rlib")))
    marker = slot / f".guarded-{os.environ.get('RESHARD_KERNEL_PID', '')}"
    target = slot / "build" / "target"
    if not ours or not slot.name or marker.exists() or not target.is_dir():
        sys.stderr.write(text)
        return 1
    marker.touch()
    t0 = time.monotonic()
    what = f"could not load `{'`, `'.join(ours)}` from the kept build in {slot}"
    _say(slot, f"reshard kernel: the cell {what} (its crates were not compiled against each other); "
               "building it afresh, once (about a minute)")
    ok = _build_afresh(slot, rustc)
    _say(slot, f"reshard kernel: {slot.name} built afresh in {time.monotonic() - t0:.0f} s"
               if ok else f"reshard kernel: building {slot.name} afresh failed; delete {slot} to start over")
    return subprocess.run(rustc).returncode


def _say(slot: Path, line: str) -> None:
    """A line on the kernel's log (its stderr: JupyterLab's terminal) and in <slot>/guard.log."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    try:
        with open(slot / "guard.log", "a", encoding="utf-8") as f:
            f.write(f"{stamp} {line}\n")
    except OSError:
        pass
    try:
        with open(f"/proc/{int(os.environ['RESHARD_KERNEL_PID'])}/fd/2", "w", encoding="utf-8") as f:
            f.write(line + "\n")
    except (OSError, KeyError, ValueError):
        sys.stderr.write(line + "\n")


def _build_afresh(slot: Path, rustc: list[str]) -> bool:
    """Build the slot's crate (evcxr's Cargo.toml) in a new directory beside it with the same
    cargo, rustc, flags and target, then swap its profile directories' contents into the kept
    build. The unit hashes are those of the old build (they don't depend on the directory), so
    the cell's rustc command, run again, finds its crates where it looks."""
    build = slot / "build"
    target, afresh = build / "target", build / ".target-afresh"
    shutil.rmtree(afresh, ignore_errors=True)
    triple = rustc[rustc.index("--target") + 1] if "--target" in rustc[:-1] else None
    env = {k: v for k, v in os.environ.items() if not k.startswith(CARGO_CHILD_ENV)}
    env.update(CARGO_TARGET_DIR=str(afresh), CARGO_BUILD_BUILD_DIR=str(afresh))
    cargo = os.environ.get("CARGO") or shutil.which("cargo") or "cargo"
    argv = [cargo, "build", "--message-format=short"] + (["--target", triple] if triple else [])
    try:
        subprocess.run(argv, cwd=build, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=3600)  # the cell's own errors don't matter here
    except (OSError, subprocess.SubprocessError):
        return False
    fresh = _profile_dirs(afresh)
    if not any((d / ".fingerprint").is_dir() for d in fresh):
        shutil.rmtree(afresh, ignore_errors=True)
        return False
    trash = build / f".target-old-{os.getpid()}"
    for profile in fresh:
        old = target / profile.relative_to(afresh)
        old.mkdir(parents=True, exist_ok=True)
        for name in ("deps", "build", ".fingerprint", "incremental", "examples"):
            if (old / name).exists():
                dest = trash / profile.relative_to(afresh) / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.replace(old / name, dest)
            if (profile / name).exists():
                os.replace(profile / name, old / name)
    shutil.rmtree(trash, ignore_errors=True)
    shutil.rmtree(afresh, ignore_errors=True)
    return True


GRADING_INIT = (
    "\n// RESHARD_GRADING=1 (nbgrader's autograde, see README): a panic fails its cell, so a\n"
    "// failed check or a todo!() stub costs the points instead of passing silently.\n"
    ":preserve_vars_on_panic 0\n")


def config_files(grading: bool = False) -> dict[str, bytes]:
    """The evcxr config a kernel gets: kernel/init.evcxr, then the reader's own init.evcxr
    (and the grader's line last); the reader's prelude.rs and evcxr.toml if there are any."""
    parts = [f"// written by {Path(__file__).name} at kernel start: {INIT} then your own init.evcxr\n",
             INIT.read_text(encoding="utf-8")]
    own = user_evcxr_config_dir()
    if (own / "init.evcxr").is_file():
        parts.append(f"\n// from {own / 'init.evcxr'}\n" + (own / "init.evcxr").read_text(encoding="utf-8"))
    if grading:
        parts.append(GRADING_INIT)  # last: a grader's setting wins over the reader's own
    files = {"init.evcxr": "".join(parts).encode("utf-8")}
    for name in ("prelude.rs", "evcxr.toml"):
        if (own / name).is_file():
            files[name] = (own / name).read_bytes()
    return files


def write_config(dest: Path, grading: bool = False) -> None:
    """config_files() into dest (a slot's config/); a prelude or toml the reader no longer has
    is deleted."""
    dest.mkdir(parents=True, exist_ok=True)
    files = config_files(grading)
    for name in ("init.evcxr", "prelude.rs", "evcxr.toml"):
        if name in files:
            (dest / name).write_bytes(files[name])
        elif (dest / name).exists():
            (dest / name).unlink()


def shared_config(grading: bool = False) -> Path:
    """The evcxr config of a kernel without a kept slot (a test's notebook in a temporary
    folder, nbgrader's autograde, Windows): a folder named by its content beside the kept builds,
    shared by every such kernel with the same config. It used to be a new temporary directory
    per kernel, which nothing deleted (the kernel replaces this process). Each file is written
    whole (a temporary name, then renamed), so kernels starting together read it complete.
    A temporary directory when the cache cannot be written."""
    files = config_files(grading)
    digest = hashlib.sha1()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha1(files[name]).digest())
    dest = kernels_root().parent / f"evcxr-config-{digest.hexdigest()[:12]}"
    try:
        dest.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            if not (dest / name).is_file() or (dest / name).read_bytes() != data:
                tmp = dest / f".{name}.{os.getpid()}"
                tmp.write_bytes(data)
                os.replace(tmp, dest / name)
        return dest
    except OSError:
        conf = Path(tempfile.mkdtemp(prefix="reshard-evcxr-config-"))
        write_config(conf, grading)
        return conf


CELL_OPT_DEFAULT = "0"
CELL_OPT_LEVELS = ("0", "1", "2", "3", "s", "z")
CELL_PROFILE_MARK = "# written by reshard's kernel/launch.py"


def write_cell_profile(slot: Path, level: str | None) -> None:
    """<slot>/.cargo/config.toml: the profile of evcxr's cell crate `ctx`.

    evcxr's generated Cargo.toml sets one [profile.dev] for everything (opt-level from
    `:opt`, default 2). Cargo merges .cargo/config.toml from the build directory's
    parents, and a per-package override there applies to `ctx` only, so reshard and
    md-5, rayon... keep their level (and their fingerprints: no rebuild)."""
    level = (level or CELL_OPT_DEFAULT).strip().strip('"').lower()
    conf = slot / ".cargo" / "config.toml"
    if level not in CELL_OPT_LEVELS:  # "evcxr", "off", typo: leave the cells to evcxr's :opt
        if conf.is_file() and conf.read_text(encoding="utf-8").startswith(CELL_PROFILE_MARK):
            conf.unlink()
        return
    value = level if level.isdigit() else f'"{level}"'
    text = (f"{CELL_PROFILE_MARK} (RESHARD_CELL_OPT={level}): see kernel/README.md\n"
            "# The notebook's cells (evcxr's crate `ctx`); reshard and its dependencies keep\n"
            "# evcxr's opt-level (`:opt`, default 2).\n"
            "[profile.dev.package.ctx]\n"
            f"opt-level = {value}\n")
    try:
        conf.parent.mkdir(parents=True, exist_ok=True)
        if not conf.is_file() or conf.read_text(encoding="utf-8") != text:
            conf.write_text(text, encoding="utf-8")
    except OSError:
        pass  # cells then compile at evcxr's level, as before


def rust_libdir(env: dict) -> str | None:
    """`rustc --print target-libdir`: where libstd-*.so lives."""
    rustc = shutil.which("rustc", path=env.get("PATH"))
    if not rustc:
        return None
    try:
        out = subprocess.run([rustc, "--print", "target-libdir"], capture_output=True, text=True,
                             env=env, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


# Left out of the view: the workspace manifest (so rust-analyzer does not load library/ as
# a cargo workspace), the test crates, and the sources of core::arch (stdarch: tens of
# thousands of SIMD intrinsics) and core::simd (portable-simd, nightly only).
RUST_SRC_SKIP = ("Cargo.toml", "Cargo.lock", "alloctests", "coretests", "stdarch", "portable-simd")


def with_cargo_bin(env: dict) -> dict:
    """env with ~/.cargo/bin last on PATH (rustup's cargo and rustc; a kernel started
    from a desktop launcher may not have it)."""
    cargo_bin = str(Path.home() / ".cargo" / "bin")
    if cargo_bin not in env.get("PATH", "").split(os.pathsep):
        env["PATH"] = env.get("PATH", "") + os.pathsep + cargo_bin
    return env


def ensure_rust_src(env: dict) -> str:
    """Add the rust-src component when the toolchain lacks it; say what was found or done.

    evcxr needs the standard library's sources (its rust-analyzer infers each `let`'s
    type from them) and says so in its README; nothing installs them for it. Without
    them the first kernel's rust-analyzer runs `rustup component add rust-src` itself,
    in the middle of a notebook, and until then the launcher has no view to give it
    (RUST_SRC_PATH unset: the whole `library/` workspace, about 3 CPU seconds more per
    kernel). So the kernelspec install adds it, once, where rustup is."""
    libdir = rust_libdir(env)
    if libdir and (Path(libdir).parents[1] / "src" / "rust" / "library" / "core").is_dir():
        return "rust-src: present"
    rustup = shutil.which("rustup", path=env.get("PATH"))
    if not rustup:
        return "rust-src: missing and no rustup to add it (evcxr's type inference needs it)"
    print("Adding the rust-src component (the standard library's sources, for evcxr's "
          "type inference; once)...", flush=True)
    try:
        done = subprocess.run([rustup, "component", "add", "rust-src"], env=env, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"rust-src: `rustup component add rust-src` failed ({e})"
    if done.returncode != 0:
        return f"rust-src: `rustup component add rust-src` exited {done.returncode}"
    return "rust-src: added"


def stitched_rust_src(libdir: str | None, root: Path) -> str | None:
    """A directory for RUST_SRC_PATH: the toolchain's rust-src `library/`, without
    its workspace manifest and without core::arch and core::simd.

    evcxr's embedded rust-analyzer reads the standard library's sources to infer each
    `let`'s type. Given `library/` as rustup installs it, with its Cargo.toml,
    rust-analyzer loads it as a cargo workspace (`cargo metadata`): core, alloc and std
    plus their crates.io dependencies and dev-dependencies (libc, hashbrown, rand,
    getopts...), and resolves every name in all of them, at kernel start and again
    after `:dep`. Without the manifest it falls back to its "stitched" sysroot, the
    standard library's own crates, which define every public std type; without stdarch
    and portable-simd it also skips core::arch's intrinsics and core::simd. Measured
    in kernel/README.md: about 3 CPU seconds less per kernel, half of it before the
    first cell. What it costs: a `let` whose type comes from std::arch or std::simd needs
    its type written out (`let t: u64 = ...`), as evcxr asks; rustc, which compiles the
    cells, uses the real standard library either way.

    The directory holds one symlink per kept entry of `library/` (rust-analyzer follows
    them), refreshed at every start, so a `rustup update` is seen. None (nothing set)
    without rust-src, or where symlinks cannot be made."""
    if not libdir:
        return None
    # target-libdir is <sysroot>/lib/rustlib/<host>/lib; the sources are in <sysroot>/lib/rustlib/src
    library = Path(libdir).parents[1] / "src" / "rust" / "library"
    if not (library / "core").is_dir():
        return None
    view = root / f"rust-src-{hashlib.sha1(str(library).encode()).hexdigest()[:8]}"
    try:
        view.mkdir(parents=True, exist_ok=True)
        wanted = {e.name: e for e in library.iterdir() if e.name not in RUST_SRC_SKIP}
        for name, target in wanted.items():
            link = view / name
            if link.is_symlink() and os.readlink(link) == str(target):
                continue
            tmp = view / f".{name}.{os.getpid()}"
            os.symlink(target, tmp)
            os.replace(tmp, link)  # atomic: a second kernel starting now sees one or the other
        for old in view.iterdir():
            if old.name not in wanted and old.is_symlink() and not old.name.startswith("."):
                old.unlink()
    except OSError:
        return None
    return str(view) if (view / "core").is_dir() else None


def find_evcxr(given: str | None) -> str | None:
    if given and os.path.exists(given):
        return given
    cargo_bin = Path.home() / ".cargo" / "bin"
    return shutil.which("evcxr_jupyter") or shutil.which("evcxr_jupyter", path=str(cargo_bin))


def launch(evcxr_given: str | None, evcxr_args: list[str]) -> int:
    evcxr = find_evcxr(evcxr_given)
    if not evcxr:
        print(f"reshard kernel: evcxr_jupyter not found (looked for {evcxr_given or 'it'} and on PATH). "
              "Run `make setup` in the reshard folder.", file=sys.stderr)
        return 1
    env = with_cargo_bin(dict(os.environ))
    grading = env.get("RESHARD_GRADING") == "1"
    if env.get("RESHARD_KERNEL_THROWAWAY") == "1":
        slot, _lock = None, None  # a test's notebook in a temporary folder: nothing worth keeping
    else:  # wherever the notebook lies: the first kept build no running kernel holds
        root = kernels_root()
        drop_old_layout(root)
        slot, _lock = claim_slot(root)
    if slot is not None:
        if "EVCXR_TMPDIR" not in env:
            env["EVCXR_TMPDIR"] = str(slot / "build")
            write_cell_profile(slot, env.get("RESHARD_CELL_OPT"))
            seeded = seed_slot(slot)
            if seeded is not None:
                print(f"reshard kernel: {slot.name} starts from a copy of {seeded.parent.parent.name}'s "
                      "build", file=sys.stderr, flush=True)
            prune_dead_units(slot / "build" / "target")
            set_guard(env, slot)
        if "EVCXR_CONFIG_DIR" not in env:
            write_config(slot / "config", grading)
            env["EVCXR_CONFIG_DIR"] = str(slot / "config")
    elif env.get("RESHARD_KERNEL_SLOT") and env.get("EVCXR_TMPDIR"):  # the test pool's worker's slot
        set_guard(env, Path(env["RESHARD_KERNEL_SLOT"]))
    elif "EVCXR_CONFIG_DIR" not in env:
        env["EVCXR_CONFIG_DIR"] = str(shared_config(grading))
    libdir = rust_libdir(env) if os.name != "nt" else None
    if env.get("EVCXR_TMPDIR") and sys.platform != "darwin" and libdir:
        # evcxr 0.22 loads each cell's libcode_N.so from target/<host>/debug/, but rustc
        # wrote its relative rpath ($ORIGIN/../..) for debug/deps/, one level deeper. In
        # a shallow /tmp/.tmpXXXX the extra ".." stops at / and still lands right; in a
        # directory under $HOME it misses and dlopen can't find libstd-*.so. Name the
        # directory explicitly (Linux/BSD; macOS and Windows load differently).
        env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (libdir, env.get("LD_LIBRARY_PATH")) if p)
    if "RUST_SRC_PATH" not in env and env.get("RESHARD_RUST_SRC") != "full":
        src = stitched_rust_src(libdir, kernels_root().parent)  # beside the kept builds, not in them
        if src:
            env["RUST_SRC_PATH"] = src
    os.execve(evcxr, [evcxr, *evcxr_args], env)
    return 1  # not reached


def set_guard(env: dict, slot: Path) -> None:
    """Run the cells' rustc through kernel/rustc-guard (RUSTC_WRAPPER), which calls guard()
    when a cell cannot load a crate of the kept build. Not where a wrapper is already set
    (sccache, evcxr's own `:cache`: theirs wins) or on Windows (no sh)."""
    if os.name == "nt" or env.get("RUSTC_WRAPPER") or env.get("CARGO_BUILD_RUSTC_WRAPPER"):
        return
    env.update(RUSTC_WRAPPER=str(GUARD), RESHARD_KERNEL_SLOT=str(slot), RESHARD_KERNEL_PID=str(os.getpid()),
               RESHARD_GUARD_PYTHON=sys.executable, RESHARD_GUARD_LAUNCH=str(Path(__file__).resolve()))


def evcxr_version(evcxr: str) -> str | None:
    """evcxr_jupyter has no --version: ask cargo's install record, else the binary."""
    path = Path(evcxr).resolve()
    record = path.parent.parent / ".crates2.json"  # <root>/bin/evcxr_jupyter -> <root>/.crates2.json
    try:
        for key in json.loads(record.read_text(encoding="utf-8")).get("installs", {}):
            name, version = key.split()[:2]
            if name == "evcxr_jupyter":
                return version
    except (OSError, ValueError, IndexError):
        pass
    try:  # panic locations keep the source path, e.g. .../evcxr_jupyter-0.22.0/src/core.rs
        found = re.findall(rb"evcxr_jupyter-(\d+\.\d+\.\d+)[/\\]", path.read_bytes())
    except OSError:
        return None
    return max(set(found), key=found.count).decode() if found else None


def install(evcxr_given: str | None, prefix: Path, python: str) -> int:
    """Write PREFIX/share/jupyter/kernels/rust/kernel.json pointing at this launcher."""
    evcxr = find_evcxr(evcxr_given)
    if not evcxr:
        print("evcxr_jupyter not found: run `make evcxr` first.", file=sys.stderr)
        return 1
    evcxr = str(Path(evcxr).resolve())
    data = prefix.resolve() / "share" / "jupyter"
    kdir = data / "kernels" / KERNEL_NAME
    if not (kdir / "logo-64x64.png").exists():
        # evcxr writes its logos, kernel.js and version.txt where JUPYTER_PATH says.
        subprocess.run([evcxr, "--install"], env={**os.environ, "JUPYTER_PATH": str(data)},
                       check=True, stdout=subprocess.DEVNULL)
    kdir.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [python, str(Path(__file__).resolve()), "--evcxr", evcxr, "--",
                 "--control_file", "{connection_file}"],
        "display_name": "Rust",
        "language": "rust",
        "interrupt_mode": "message",
        "metadata": {"reshard": {"evcxr_jupyter": evcxr, "evcxr_version": evcxr_version(evcxr),
                                 "kernel_builds": str(kernels_root())}},
    }
    (kdir / "kernel.json").write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
    rust_src = ensure_rust_src(with_cargo_bin(dict(os.environ)))
    print(f"Jupyter kernelspec '{KERNEL_NAME}': {kdir} -> {evcxr} "
          f"(builds kept in {kernels_root()}; {rust_src})")
    return 0


def main(argv: list[str]) -> int:
    evcxr = None
    install_prefix = None
    guard_stderr = None
    python = sys.executable
    while argv and argv[0] != "--":
        opt = argv.pop(0)
        if opt == "--evcxr":
            evcxr = argv.pop(0)
        elif opt == "--install":
            install_prefix = Path(sys.prefix)
        elif opt == "--prefix":
            install_prefix = Path(argv.pop(0))
        elif opt == "--python":
            python = argv.pop(0)
        elif opt == "--guard":  # kernel/rustc-guard: FILE (rustc's stderr) -- rustc ARGS...
            guard_stderr = argv.pop(0)
        else:
            print(f"launch.py: unknown option {opt}\n{__doc__}", file=sys.stderr)
            return 2
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if guard_stderr is not None:
        return guard(guard_stderr, argv)
    if install_prefix is not None:
        return install(evcxr, install_prefix, python)
    return launch(evcxr, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
