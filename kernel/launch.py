"""Start evcxr_jupyter for reshard's notebooks with a kept build directory.

This is what the Jupyter kernelspec `rust` that `make setup` writes into
.venv/share/jupyter/kernels/rust runs (see kernel/README.md). Standard library
only. Before it hands over to evcxr_jupyter (exec, same process) it sets:

EVCXR_TMPDIR     a build directory kept between kernels, one per notebook folder
                 and per kernel running at the same time:
                   ~/.cache/reshard/kernels/<folder>-<hash>/kernel-<n>/build
                 A restarted kernel finds reshard, md-5, rayon... already built
                 there, so cargo only checks fingerprints instead of recompiling
                 the crate (evcxr normally builds in a fresh temporary directory
                 that it deletes when the kernel stops). A lock file keeps two
                 live kernels out of one directory. Unchanged if already set.
                 A new slot (a second kernel open on the folder, a new folder)
                 starts from a copy of another kept build (seed_slot), so it
                 builds only what differs instead of everything (about 75 CPU s).
                 The folder's path goes into <folder>-<hash>/folder.txt, and each
                 start first deletes the kept builds of folders that no longer exist
                 (prune_kept: a deleted clone's 190-700 MB).
<slot>/.cargo/config.toml
                 compiles the cells themselves (evcxr's crate `ctx`) at opt-level 0,
                 while reshard and its dependencies keep evcxr's opt-level (2): a
                 cell's own code is a few lines of glue, its heavy work runs inside
                 reshard. Cuts a cell's CPU by 30-50%. Cargo reads
                 this file because it sits above the build directory. Set
                 RESHARD_CELL_OPT=2 (or 1, 3, s, z) for another level, or =evcxr to
                 leave the cells at evcxr's `:opt` (no file written).
EVCXR_CONFIG_DIR a directory with an init.evcxr made of kernel/init.evcxr followed
                 by your own init.evcxr (your prelude.rs and evcxr.toml are
                 copied too), so your evcxr settings still apply and win: the
                 slot's config/, or for a kernel without a slot a folder named by
                 its content beside the kept builds (shared_config).
                 Unchanged if already set (the notebook tests set their own).

RUST_SRC_PATH    (unless already set) a view of the toolchain's rust-src for evcxr's
                 embedded rust-analyzer: library/ without its Cargo.toml (so it
                 reads the standard library's own crates, not libc, hashbrown...
                 through `cargo metadata`) and without core::arch and core::simd,
                 kept in ~/.cache/reshard/rust-src-<hash>. About 3 CPU seconds less
                 per kernel start and first cell. RESHARD_RUST_SRC=full: none.

RESHARD_KERNEL_THROWAWAY=1  (set by the tests for notebooks they copy into a temporary
                 folder) no kept build directory: evcxr's own throwaway one. Anything else,
                 wherever the checkout lies (a clone under /tmp too), keeps its build.
RESHARD_GRADING=1  (set by nbgrader/nbgrader_config.py for `nbgrader autograde`) adds
                 `:preserve_vars_on_panic 0` last, so a panicking check cell is an error
                 the grader sees, not a success with a message on stderr.

Also `launch.py --install --evcxr PATH --prefix DIR` writes the kernelspec, and adds
the toolchain's rust-src component with rustup when it is missing (evcxr needs it).
Delete ~/.cache/reshard/kernels at any time to get the rest of the disk space back.
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
MAX_KERNELS = 32  # live kernels per notebook folder before falling back to a throwaway dir


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
    root = os.environ.get("RESHARD_KERNEL_CACHE")
    return Path(root) if root else user_cache_dir() / "reshard" / "kernels"


def folder_key(cwd: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", cwd.name) or "root"
    return f"{name}-{hashlib.sha1(str(cwd).encode()).hexdigest()[:8]}"


FOLDER_RECORD = "folder.txt"  # in each kept folder: the notebook folder its builds are for


def kept_folder(cwd: Path) -> Path:
    """Where the kernels of notebook folder `cwd` keep their builds (kernels_root()/<name>-<hash>),
    with `cwd` written in it (folder.txt) so that prune_kept can tell when that folder is gone."""
    folder = kernels_root() / folder_key(cwd)
    record = folder / FOLDER_RECORD
    try:
        if not record.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            record.write_text(f"{cwd}\n", encoding="utf-8")
    except OSError:
        pass  # unrecorded: never pruned, as before
    return folder


def prune_kept(root: Path) -> list[Path]:
    """Delete the kept builds of notebook folders that no longer exist (a deleted or moved clone,
    a test's temporary copy): 190-330 MB each kernel slot, which nothing else would ever reuse.
    Left alone: a kept folder without a readable folder.txt (made before it was written), one
    whose notebook folder exists or cannot be looked at now (_gone), and one with a kernel
    running in it (a slot's lock held, as claim_slot takes it). Returns the folders deleted."""
    try:
        import fcntl  # noqa: F401  (try_lock's)
    except ImportError:  # Windows: no flock, no kept builds (claim_slot)
        return []
    try:
        kept = list(root.iterdir())
    except OSError:
        return []
    deleted = []
    for folder in kept:
        try:
            origin = Path((folder / FOLDER_RECORD).read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            continue  # no record (made before folder.txt, or not a kept folder), or unreadable
        if not origin.is_absolute() or not _gone(origin):
            continue
        locks = []
        try:
            for lock_path in folder.glob("kernel-*/.lock"):
                locks.append(try_lock(lock_path))
            if all(locks):  # no kernel runs there
                shutil.rmtree(folder)
                deleted.append(folder)
        except OSError:
            pass
        finally:
            for lock in filter(None, locks):
                lock.close()
    return deleted


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


def claim_slot(folder: Path):
    """(slot dir, open lock file) for the first kernel-<n> no live kernel holds."""
    try:
        import fcntl  # noqa: F401  (try_lock's)
    except ImportError:  # Windows: no flock; let evcxr use a throwaway directory
        return None, None
    for n in range(MAX_KERNELS):
        slot = folder / f"kernel-{n}"
        slot.mkdir(parents=True, exist_ok=True)
        lock = try_lock(slot / ".lock")
        if lock is None:
            continue
        # Inherited by evcxr_jupyter (exec) and its children: held until they exit.
        os.set_inheritable(lock.fileno(), True)
        lock.truncate(0)
        lock.write(f"{os.getpid()}\n")
        lock.flush()
        return slot, lock
    return None, None


SEED_SKIP = ("incremental",)  # rustc's incremental state: only speeds up a rebuild of reshard
SEED_SKIP_PREFIXES = ("libcode_", "ctx-", "libctx-", "libctx.")  # evcxr's cell crate, its libraries
SEED_TRIES = 4  # source builds to try before building from nothing
SEED_WAIT = 3.0  # seconds to wait for one of them while cargo is busy in each (a cell compiles in 0.3)


def seed_slot(slot: Path) -> Path | None:
    """Start a new slot's build as a copy of another kept build: its `build/target` without the
    incremental state and the cells' own files. Returns the build copied, or None.

    Without it a second kernel open on a folder (two labs at once), or the first kernel in a new
    folder (the learner's workspace/ beside notebooks/), compiled md-5, rayon, plotters... and
    reshard again: about 75 CPU seconds (45 s) before its first cell answered. Cargo finds the
    copied artifacts fresh (it checks fingerprints and file times, which the copy keeps, and
    build scripts' paths relative to the target directory), so only what differs is built:
    nothing for the same checkout, reshard alone for another one. The sources are tried in
    order (the same notebook folder's other slots first, then the most recently built). One
    where cargo is building right now (its locks on the target directory held) is passed over,
    for up to SEED_WAIT seconds in all: two kernels started together find the first one's
    start-up build running. While one is copied its locks are held, so a kernel running there
    waits for the copy before its next build. Nothing happens when the slot already has a
    build, or none can be copied. The caller holds the slot (claim_slot)."""
    target = slot / "build" / "target"
    if target.exists():
        return None
    try:
        import fcntl  # noqa: F401  (try_lock's)
    except ImportError:
        return None
    for stale in target.parent.glob(".target-seeding-*"):  # a copy cut short (a killed start)
        shutil.rmtree(stale, ignore_errors=True)
    root = slot.parent.parent  # kernels_root(): every notebook folder's kept builds

    def built(candidate: Path) -> float | None:  # when its dependencies were last built, or None
        try:
            deps = [d for d in candidate.glob("*/debug/deps") if any(d.iterdir())]
            return max(d.stat().st_mtime for d in deps)
        except (OSError, ValueError):
            return None

    try:
        folders = list(root.iterdir())
    except OSError:
        return None
    candidates = []  # (another folder's?, -when built, path): our folder first, then the newest
    for folder in folders:
        for other in folder.glob("kernel-*/build/target"):
            when = built(other)
            if when is not None:
                candidates.append((folder != slot.parent, -when, str(other)))
    sources = [Path(source) for _, _, source in sorted(candidates)[:SEED_TRIES]]
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


def _unit_hash(name: str) -> str:
    """"-<hash>" of a unit's name (.fingerprint/reshard-<hash>, deps/reshard-<hash>.d's stem)."""
    return "-" + name.rsplit("-", 1)[-1]


def _of_units(name: str, hashes) -> bool:
    """Whether a file or folder of a build belongs to one of the units `hashes` ("-<hash>"):
    deps/libreshard-<hash>.rlib, deps/reshard-<hash>.d, build/libm-<hash>/, .fingerprint/x-<hash>/."""
    return any(h + "." in name or name.endswith(h) for h in hashes)


def _copy_build(source: Path, target: Path) -> bool | None:
    """Copy the build `source` to `target` (seed_slot): True when copied, None when cargo is
    building there now (its locks held), False when the copy failed (nothing is left behind)."""
    if not _profile_dirs(source):
        return False
    try:
        locks = _cargo_locks(source)
    except OSError:  # its lock cannot be opened (a folder pruned meanwhile): not a source
        return False
    if locks is None:
        return None
    try:
        partial = target.with_name(f".target-seeding-{os.getpid()}")
        dead = set().union(*(_dead_units(d) for d in _profile_dirs(source)))
        ignore = lambda _dir, names: {n for n in names if n in SEED_SKIP or n.startswith(SEED_SKIP_PREFIXES)
                                      or _of_units(n, dead)}
        try:
            shutil.copytree(source, partial, symlinks=True, ignore=ignore)
            os.replace(partial, target)
        except OSError:
            shutil.rmtree(partial, ignore_errors=True)
            return False
        return True
    except OSError:
        return False
    finally:
        for lock in locks:
            lock.close()


def merge_build(source: Path, target: Path) -> int | None:
    """Copy into the build `target` the units of the build `source` that it lacks: the test
    pool's worker about to run a lab whose feature set the other worker has built (reshard
    with "live", or without) takes that build instead of compiling it again. Returns the
    number of units copied, or None when cargo stayed busy in `source` for SEED_WAIT seconds.
    No kernel may be running in `target` (the pool calls it between a worker's jobs).

    A unit (one compiled crate, one build script or its run) is named <crate>-<hash> in
    .fingerprint/, and its files in deps/ and build/ carry the same -<hash>. A unit whose
    fingerprint `target` lacks is copied whole, over any file of that hash left there (cargo
    must not find a stale one under the copied fingerprint); its fingerprint goes last, so a
    copy cut short leaves a unit that cargo builds again. Cargo then decides, as always, what
    is fresh: a unit whose dependencies were rebuilt in `target` since is rebuilt there."""
    deadline = time.monotonic() + SEED_WAIT
    while (locks := _cargo_locks(source)) is None:
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.2)
    try:
        copied = 0
        for profile_dir in _profile_dirs(source):
            dest = target / profile_dir.relative_to(source)
            dead = _dead_units(profile_dir)
            try:
                units = [u.name for u in (profile_dir / ".fingerprint").iterdir()
                         if not u.name.startswith(SEED_SKIP_PREFIXES)
                         and not (dest / ".fingerprint" / u.name).exists()
                         and _unit_hash(u.name) not in dead]
            except OSError:
                continue
            hashes = {_unit_hash(u) for u in units if "-" in u}
            for sub in ("deps", "build"):
                try:
                    entries = list((profile_dir / sub).iterdir())
                except OSError:
                    continue
                for entry in entries:
                    if _of_units(entry.name, hashes):
                        _replace_with_copy(entry, dest / sub / entry.name)
            for unit in units:
                _replace_with_copy(profile_dir / ".fingerprint" / unit, dest / ".fingerprint" / unit)
                copied += 1
        return copied
    finally:
        for lock in locks:
            lock.close()


def _replace_with_copy(src: Path, dst: Path) -> None:
    """dst becomes a copy of src (a file or a folder, file times kept), copied beside it first."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.merging-{os.getpid()}")
    try:
        if src.is_dir():
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.copytree(src, tmp, symlinks=True)
            if dst.exists():
                shutil.rmtree(dst)
        else:
            shutil.copy2(src, tmp)
        os.replace(tmp, dst)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True) if tmp.is_dir() else tmp.unlink(missing_ok=True)
        raise


def _dead_units(profile_dir: Path) -> set[str]:
    """The "-<hash>" of the units in a profile directory whose sources are gone: reshard built for
    a clone deleted since. A seed or a merge leaves them out, or every copy would carry them on
    to the next (each 30 MB, never used: their crate's path no longer exists). A unit's dep-info
    (deps/<crate>-<hash>.d) names its sources after the first ": ", its crate root first."""
    dead = set()
    try:
        infos = list((profile_dir / "deps").glob("*.d"))
    except OSError:
        return dead
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
                dead.add(_unit_hash(info.stem))
    return dead


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
    cwd = Path.cwd().resolve()
    if env.get("RESHARD_KERNEL_THROWAWAY") == "1":
        slot, _lock = None, None  # a test's notebook in a temporary folder: nothing worth keeping
    else:  # wherever the checkout lies (a clone under /tmp too): keep the build
        prune_kept(kernels_root())  # first, the builds of folders deleted since
        slot, _lock = claim_slot(kept_folder(cwd))
    if slot is not None:
        if "EVCXR_TMPDIR" not in env:
            env["EVCXR_TMPDIR"] = str(slot / "build")
            write_cell_profile(slot, env.get("RESHARD_CELL_OPT"))
            seeded = seed_slot(slot)
            if seeded is not None:
                print(f"reshard kernel: {slot.name} of {slot.parent.name} starts from a copy of the "
                      f"build in {seeded.parent.parent}", file=sys.stderr, flush=True)
        if "EVCXR_CONFIG_DIR" not in env:
            write_config(slot / "config", grading)
            env["EVCXR_CONFIG_DIR"] = str(slot / "config")
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
        else:
            print(f"launch.py: unknown option {opt}\n{__doc__}", file=sys.stderr)
            return 2
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if install_prefix is not None:
        return install(evcxr, install_prefix, python)
    return launch(evcxr, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
