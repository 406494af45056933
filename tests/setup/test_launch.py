"""kernel/launch.py: a checkout keeps its kernel build wherever it lies; tests opt out by
setting RESHARD_KERNEL_THROWAWAY=1; RESHARD_GRADING=1 makes panics cell errors; evcxr's
rust-analyzer gets a view of rust-src without its workspace manifest (RUST_SRC_PATH)."""

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

LAUNCH = Path(__file__).resolve().parents[2] / "kernel" / "launch.py"


def launch(tmp_path, cwd, **extra):
    """Run launch.py with a stand-in evcxr_jupyter that prints the environment it got."""
    fake = tmp_path / "fake-evcxr"
    fake.write_text("#!/bin/sh\nexec python3 -c 'import json,os; print(json.dumps(dict(os.environ)))'\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("EVCXR_", "RESHARD_")) and k != "RUST_SRC_PATH"}
    # TMPDIR: where a kernel without a kept slot got its evcxr config (mkdtemp) before it was shared
    env.update(RESHARD_KERNEL_CACHE=str(tmp_path / "cache"), XDG_CONFIG_HOME=str(tmp_path / "cfg"),
               TMPDIR=str(tmp_path), **extra)
    out = subprocess.run([sys.executable, str(LAUNCH), "--evcxr", str(fake), "--"], cwd=cwd, env=env,
                         capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


def test_a_checkout_under_tmp_keeps_its_build(tmp_path):
    clone = tmp_path / "reshard" / "notebooks"
    clone.mkdir(parents=True)
    got = launch(tmp_path, clone)
    assert got["EVCXR_TMPDIR"].startswith(str(tmp_path / "cache")), got.get("EVCXR_TMPDIR")
    again = launch(tmp_path, clone)  # the next kernel (the first has exited): the same build
    assert again["EVCXR_TMPDIR"] == got["EVCXR_TMPDIR"]
    init = Path(got["EVCXR_CONFIG_DIR"], "init.evcxr").read_text()
    assert "preserve_vars_on_panic" not in init  # a reader's kernel keeps variables after a panic


def test_slots_are_shared_by_every_folder_and_the_old_layout_goes(tmp_path):
    """A kernel in notebooks/ and one in workspace/ of the same clone use the same kept builds (their
    `:dep` names the same crate); the per-folder builds of launchers before 7 December are deleted,
    but for one whose kernel still runs."""
    nbs, ws = tmp_path / "reshard" / "notebooks", tmp_path / "reshard" / "workspace"
    nbs.mkdir(parents=True)
    ws.mkdir(parents=True)
    old = tmp_path / "cache" / "notebooks-1234abcd"
    (old / "kernel-0" / "build" / "target").mkdir(parents=True)
    (old / "folder.txt").write_text(str(nbs) + "\n")
    running = tmp_path / "cache" / "workspace-5678abcd"
    (running / "kernel-0").mkdir(parents=True)
    mine = tmp_path / "cache" / "notes-0000cafe"  # not a kept build: never touched
    mine.mkdir()
    import fcntl
    with open(running / "kernel-0" / ".lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a kernel of the old launcher still runs
        first = launch(tmp_path, nbs)["EVCXR_TMPDIR"]
        assert not old.exists() and running.is_dir() and mine.is_dir()
    assert first == str(tmp_path / "cache" / "kernel-0" / "build")
    assert launch(tmp_path, ws)["EVCXR_TMPDIR"] == first  # the first kernel has exited: the same slot
    assert not running.exists()


def test_a_deleted_clones_crates_are_pruned_from_a_slot_at_kernel_start(tmp_path):
    here = tmp_path / "reshard" / "notebooks"
    here.mkdir(parents=True)
    slot = Path(launch(tmp_path, here)["EVCXR_TMPDIR"]).parent
    dep = fake_build(slot)
    debug = slot / "build" / "target" / "x86_64-unknown-linux-gnu" / "debug"
    dead_unit(debug, tmp_path)
    (debug / "build" / "reshard-0dead").mkdir(parents=True)
    launch(tmp_path, here)
    gone = [p for p in ("deps/libreshard-0dead.rlib", "deps/reshard-0dead.d", ".fingerprint/reshard-0dead",
                        "build/reshard-0dead") if (debug / p).exists()]
    assert not gone, gone
    assert dep.is_file() and (debug / "deps" / "md5-1.d").is_file()  # a unit whose sources exist stays


def fake_build(slot, crate="md5-1"):
    """What a build leaves in a slot: a dependency with its fingerprint, the cells' own files,
    reshard's incremental state. Returns the dependency's path."""
    debug = slot / "build" / "target" / "x86_64-unknown-linux-gnu" / "debug"
    for d in ("deps", f".fingerprint/{crate}", "incremental/reshard-1x", "incremental/ctx-2y"):
        (debug / d).mkdir(parents=True, exist_ok=True)
    (slot / "build" / "target" / "debug").mkdir(exist_ok=True)
    dep = debug / "deps" / f"lib{crate}.rlib"
    dep.write_bytes(b"an rlib " + crate.encode())
    os.utime(dep, ns=(1_700_000_000_123_456_789, 1_700_000_000_123_456_789))
    (debug / ".fingerprint" / crate / "lib-md5").write_text("0123abcd")
    for cell in ("deps/libctx-9f.so", "deps/ctx-9f.d", "libcode_7.so", "incremental/reshard-1x/a.bin"):
        (debug / cell).write_bytes(b"x" * 64)
    return dep


def dead_unit(debug, tmp_path):
    """A unit built from a clone deleted since (its dep-info names sources that are gone), beside
    one whose sources exist."""
    src = tmp_path / "registry" / "md-5" / "src" / "lib.rs"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text("// md-5")
    (debug / "deps" / "md5-1.d").write_text(f"{debug}/deps/md5-1.d: {src}\n")
    (debug / "deps" / "reshard-0dead.d").write_text(
        f"{debug}/deps/reshard-0dead.d: {tmp_path}/deleted-clone/src/lib.rs {tmp_path}/deleted-clone/src/a.rs\n")
    (debug / "deps" / "libreshard-0dead.rlib").write_bytes(b"an rlib nobody can use")
    (debug / ".fingerprint" / "reshard-0dead").mkdir(parents=True)


def test_a_new_slot_starts_from_a_copy_of_a_kept_build(tmp_path):
    import fcntl
    here, elsewhere = tmp_path / "reshard" / "notebooks", tmp_path / "reshard" / "workspace"
    here.mkdir(parents=True)
    elsewhere.mkdir(parents=True)
    first = Path(launch(tmp_path, here)["EVCXR_TMPDIR"]).parent  # cache/kernel-0
    dep = fake_build(first)
    triple = Path("target", "x86_64-unknown-linux-gnu", "debug")
    dead_unit(first / "build" / triple, tmp_path)
    with open(first / ".lock", "a") as running:  # a kernel runs in kernel-0: the next one gets kernel-1
        fcntl.flock(running, fcntl.LOCK_EX | fcntl.LOCK_NB)
        second = Path(launch(tmp_path, here)["EVCXR_TMPDIR"])
        assert second.parent.name == "kernel-1"
        copied = second / triple / "deps" / dep.name
        assert copied.read_bytes() == dep.read_bytes()
        assert copied.stat().st_mtime_ns == dep.stat().st_mtime_ns  # cargo compares file times
        assert (second / triple / ".fingerprint" / "md5-1" / "lib-md5").read_text() == "0123abcd"
        left_out = [p for p in ("deps/libctx-9f.so", "deps/ctx-9f.d", "libcode_7.so", "incremental",
                                "deps/libreshard-0dead.rlib", "deps/reshard-0dead.d", ".fingerprint/reshard-0dead")
                    if (second / triple / p).exists()]
        assert not left_out, left_out  # the cells' own files, the incremental state, a deleted clone's crate
        assert (second / triple / "deps" / "md5-1.d").is_file()  # a unit whose sources exist
        # A slot that has a build keeps it: the next kernel in kernel-1 copies nothing over it.
        (second / triple / "deps" / "libmine.rlib").write_bytes(b"built here")
        assert Path(launch(tmp_path, here)["EVCXR_TMPDIR"]) == second
        assert (second / triple / "deps" / "libmine.rlib").read_bytes() == b"built here"
    # Cargo building in every kept build (its locks held) for longer than the launcher waits
    # (SEED_WAIT), while kernels run in kernel-0 and kernel-1: a third builds from nothing.
    held = []
    for slot in (first, second.parent):
        held.append(open(slot / ".lock", "a"))
        fcntl.flock(held[-1], fcntl.LOCK_EX | fcntl.LOCK_NB)
        for profile in ("target/debug", str(triple)):
            held.append(open(slot / "build" / profile / ".cargo-lock", "a"))
            fcntl.flock(held[-1], fcntl.LOCK_EX | fcntl.LOCK_NB)
    busy = Path(launch(tmp_path, elsewhere)["EVCXR_TMPDIR"])
    assert busy.parent.name == "kernel-2" and not (busy / "target").exists()
    # A build that ends while the launcher waits (a kernel there compiling a cell) is copied.
    shutil.rmtree(busy.parent)  # that kernel never built
    cargo_locks = [lock for lock in held if lock.name.endswith(".cargo-lock")]
    threading.Timer(1.0, lambda: [lock.close() for lock in cargo_locks]).start()
    assert (Path(launch(tmp_path, elsewhere)["EVCXR_TMPDIR"]) / triple / "deps" / dep.name).is_file()
    for lock in held:
        lock.close()


def test_a_build_whose_lock_cannot_be_opened_is_passed_over_not_fatal(tmp_path):
    """A source's .cargo-lock that cannot be opened (a folder pruned meanwhile, a disk gone): the
    seed takes the next source, and the kernel still starts."""
    sys.path.insert(0, str(LAUNCH.parent))
    import launch as kernel_launch
    root = tmp_path / "kernels"
    good, broken = root / "kernel-0", root / "kernel-1"
    dep = fake_build(good)
    fake_build(broken)
    os.utime(broken / "build" / "target" / "x86_64-unknown-linux-gnu" / "debug" / "deps", (2e9, 2e9))  # newest
    (broken / "build" / "target" / "debug" / ".cargo-lock").mkdir()  # open(…, "a") fails, even as root
    new = root / "kernel-2"
    new.mkdir(parents=True)
    assert kernel_launch.seed_slot(new) == good / "build" / "target"
    debug = Path("build", "target", "x86_64-unknown-linux-gnu", "debug")
    assert (new / debug / "deps" / dep.name).read_bytes() == dep.read_bytes()
    assert not list((new / "build").glob(".target-seeding-*"))


def test_tests_opt_out_of_the_kept_build(tmp_path):
    got = launch(tmp_path, tmp_path, RESHARD_KERNEL_THROWAWAY="1")
    assert "EVCXR_TMPDIR" not in got
    assert not (tmp_path / "cache").exists()


def test_kernels_without_a_slot_share_a_config_named_by_its_content(tmp_path):
    folder = tmp_path / "nb"
    folder.mkdir()
    first = launch(tmp_path, folder, RESHARD_KERNEL_THROWAWAY="1")["EVCXR_CONFIG_DIR"]
    again = launch(tmp_path, folder, RESHARD_KERNEL_THROWAWAY="1")["EVCXR_CONFIG_DIR"]
    assert first == again and Path(first).parent == tmp_path  # beside the kept builds (cache/)
    assert ":cache 0" in Path(first, "init.evcxr").read_text()
    graded = launch(tmp_path, folder, RESHARD_KERNEL_THROWAWAY="1", RESHARD_GRADING="1")["EVCXR_CONFIG_DIR"]
    assert graded != first and "preserve_vars_on_panic 0" in Path(graded, "init.evcxr").read_text()
    own = tmp_path / "cfg" / "evcxr"  # the reader's own config (XDG_CONFIG_HOME=tmp/cfg)
    own.mkdir(parents=True)
    (own / "init.evcxr").write_text(":opt 1\n")
    (own / "prelude.rs").write_text("use std::fmt::Write;\n")
    mine = launch(tmp_path, folder, RESHARD_KERNEL_THROWAWAY="1")["EVCXR_CONFIG_DIR"]
    assert mine not in (first, graded)
    assert Path(mine, "init.evcxr").read_text().rstrip().endswith(":opt 1")
    assert Path(mine, "prelude.rs").read_text() == "use std::fmt::Write;\n"
    assert not Path(first, "prelude.rs").exists()  # the earlier config is as it was
    assert not list(tmp_path.glob("reshard-evcxr-config-*"))  # nothing left in TMPDIR


def test_grading_makes_a_panic_an_error(tmp_path):
    got = launch(tmp_path, tmp_path, RESHARD_GRADING="1")
    init = Path(got["EVCXR_CONFIG_DIR"], "init.evcxr").read_text()
    assert init.rstrip().endswith(":preserve_vars_on_panic 0"), init


def rust_src_library():
    """The toolchain's rust-src library/ (None without rustc or rust-src)."""
    rustc = shutil.which("rustc") or shutil.which("rustc", path=str(Path.home() / ".cargo" / "bin"))
    if not rustc:
        return None
    sysroot = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True).stdout.strip()
    library = Path(sysroot, "lib", "rustlib", "src", "rust", "library")
    return library if (library / "core").is_dir() else None


def test_rust_analyzer_reads_the_standard_library_without_its_workspace(tmp_path):
    library = rust_src_library()
    if library is None:
        pytest.skip("no rust-src component: the launcher sets nothing")
    got = launch(tmp_path, tmp_path)
    view = Path(got["RUST_SRC_PATH"])
    assert view.parent == tmp_path  # beside the kept builds (RESHARD_KERNEL_CACHE=tmp/cache)
    # rust-analyzer loads library/ as a cargo workspace (libc, hashbrown... too) only
    # when it finds the manifest; core, alloc and std are all there, through symlinks
    assert not (view / "Cargo.toml").exists()
    for crate in ("core", "alloc", "std"):
        assert (view / crate / "src" / "lib.rs").resolve() == (library / crate / "src" / "lib.rs").resolve()
    assert not (view / "stdarch").exists() and not (view / "portable-simd").exists()
    assert launch(tmp_path, tmp_path)["RUST_SRC_PATH"] == str(view)  # the next kernel: the same view


def test_a_rust_src_path_of_ones_own_is_kept(tmp_path):
    got = launch(tmp_path, tmp_path, RUST_SRC_PATH="/somewhere/library")
    assert got["RUST_SRC_PATH"] == "/somewhere/library"
    assert "RUST_SRC_PATH" not in launch(tmp_path, tmp_path, RESHARD_RUST_SRC="full")


def fake_toolchain(tmp_path, with_src):
    """A bin/ with a rustc that prints a sysroot's target-libdir and a rustup that logs its
    arguments; the sysroot holds rust-src's library/core when with_src."""
    sysroot = tmp_path / "sysroot"
    libdir = sysroot / "lib" / "rustlib" / "x86_64-unknown-linux-gnu" / "lib"
    libdir.mkdir(parents=True)
    if with_src:
        (sysroot / "lib" / "rustlib" / "src" / "rust" / "library" / "core").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "rustc").write_text(f"#!/bin/sh\necho {libdir}\n")
    (bin_dir / "rustup").write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path / 'rustup.log'}\n")
    for tool in ("rustc", "rustup"):
        (bin_dir / tool).chmod(0o755)
    return bin_dir


def installed_with(tmp_path, bin_dir):
    fake = tmp_path / "fake-evcxr"
    (tmp_path / "prefix" / "share" / "jupyter" / "kernels" / "rust").mkdir(parents=True)
    (tmp_path / "prefix" / "share" / "jupyter" / "kernels" / "rust" / "logo-64x64.png").write_bytes(b"")
    fake.write_text("#!/bin/sh\necho evcxr_jupyter 0.22.0\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVCXR_", "RESHARD_"))}
    env.update(PATH=f"{bin_dir}:/usr/bin:/bin", HOME=str(tmp_path / "home"),
               RESHARD_KERNEL_CACHE=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, str(LAUNCH), "--evcxr", str(fake), "--prefix",
                          str(tmp_path / "prefix")], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    log = tmp_path / "rustup.log"
    return out.stdout, (log.read_text() if log.exists() else "")


def test_the_kernelspec_install_adds_a_missing_rust_src(tmp_path):
    # evcxr needs rust-src; without it the first kernel's rust-analyzer fetches it mid-notebook
    printed, rustup_calls = installed_with(tmp_path, fake_toolchain(tmp_path, with_src=False))
    assert rustup_calls.split("\n")[0] == "component add rust-src", rustup_calls
    assert "rust-src: added" in printed, printed


def test_the_kernelspec_install_leaves_a_present_rust_src_alone(tmp_path):
    printed, rustup_calls = installed_with(tmp_path, fake_toolchain(tmp_path, with_src=True))
    assert rustup_calls == "", rustup_calls
    assert "rust-src: present" in printed, printed


def test_no_kernel_of_ours_turns_on_evcxrs_compilation_cache():
    # evcxr 0.22's `:cache` keys a compiled crate by its rustc arguments without the build
    # directory; serde_core includes a file from its build directory, so two kernels compiling
    # it at once in two build directories left serde_json cached against the other serde_core,
    # and every later kernel in a new folder failed at `:dep` ("can't find crate for
    # `serde_json`", kernel/init.evcxr). Both init files keep the cache off.
    root = LAUNCH.parents[1]
    for init in (root / "kernel" / "init.evcxr", root / "tests" / "notebooks" / "evcxr" / "init.evcxr"):
        commands = [line.split() for line in init.read_text().splitlines()
                    if line.strip() and not line.lstrip().startswith("//")]
        sizes = [c[1] if len(c) > 1 else "" for c in commands if c[0] == ":cache"]
        assert sizes == ["0"], (init, sizes)


E0463 = ('{"$message_type":"diagnostic","message":"can\'t find crate for `%s`","code":{"code":"E0463",'
         '"explanation":null},"level":"error","rendered":"error[E0463]: can\'t find crate for `%s`\\n"}')


def guard_setup(tmp_path, missing="reshard"):
    """A slot whose cell rustc (a stand-in) fails with E0463 for `missing` until deps/libreshard-1.rlib
    says "fresh", and a stand-in cargo that writes such a build where CARGO_TARGET_DIR says."""
    slot = tmp_path / "kernels" / "kernel-0"
    triple = "x86_64-unknown-linux-gnu"
    deps = slot / "build" / "target" / triple / "debug" / "deps"
    deps.mkdir(parents=True)
    (slot / "build" / "target" / "debug").mkdir()
    (deps / "libreshard-1.rlib").write_text("built against another serde_json")
    (deps.parent / ".fingerprint" / "reshard-1").mkdir(parents=True)
    (tmp_path / "error.json").write_text(E0463 % (missing, missing) + "\n")
    rustc = tmp_path / "rustc"
    rustc.write_text("#!/bin/sh\n"
                     f'echo "$*" >> {tmp_path}/rustc.calls\n'
                     f'[ "$(cat {deps}/libreshard-1.rlib)" = fresh ] && exit 0\n'
                     f"cat {tmp_path}/error.json >&2\nexit 1\n")
    cargo = tmp_path / "cargo"
    cargo.write_text("#!/bin/sh\n"
                     f'echo "$PWD $*" >> {tmp_path}/cargo.calls\n'
                     f'd="$CARGO_TARGET_DIR/{triple}/debug"\n'
                     'mkdir -p "$d/deps" "$d/.fingerprint/reshard-1" "$CARGO_TARGET_DIR/debug/.fingerprint"\n'
                     'echo fresh > "$d/deps/libreshard-1.rlib"\n'
                     'exit 101\n')  # the cell itself may fail here: its dependencies are what counts
    for f in (rustc, cargo):
        f.chmod(0o755)
    env = {**os.environ, "RESHARD_GUARD_PYTHON": sys.executable, "RESHARD_GUARD_LAUNCH": str(LAUNCH),
           "RESHARD_KERNEL_SLOT": str(slot), "RESHARD_KERNEL_PID": "999999999", "CARGO": str(cargo),
           "CARGO_PKG_NAME": "ctx", "CARGO_MAKEFLAGS": "--jobserver-auth=3,4"}
    argv = [str(LAUNCH.parent / "rustc-guard"), str(rustc), "--crate-name", "ctx", "--edition=2024",
            "src/lib.rs", "--target", triple, "-L", f"dependency={deps}"]
    return slot, deps, env, argv


def test_the_guard_builds_a_slot_afresh_once_when_a_cell_cannot_load_its_crates(tmp_path):
    slot, deps, env, argv = guard_setup(tmp_path)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (deps / "libreshard-1.rlib").read_text() == "fresh\n"  # the afresh build swapped in
    assert len((tmp_path / "rustc.calls").read_text().splitlines()) == 2  # the cell, then again
    cargo_calls = (tmp_path / "cargo.calls").read_text().splitlines()
    assert cargo_calls == [f"{slot / 'build'} build --message-format=short --target x86_64-unknown-linux-gnu"]
    log = (slot / "guard.log").read_text().splitlines()
    assert len(log) == 2 and "could not load `reshard`" in log[0] and "built afresh" in log[1], log
    assert not list((slot / "build").glob(".target-*"))  # nothing left beside the build
    # Once per kernel: broken again, the same kernel's next failure is the cell's own.
    (deps / "libreshard-1.rlib").write_text("broken again")
    again = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "E0463" in again.stderr
    assert len((tmp_path / "cargo.calls").read_text().splitlines()) == 1


def test_the_guard_leaves_a_crate_the_build_does_not_hold_to_the_cell(tmp_path):
    """`extern crate nosuch;` in a cell: rustc's own error, no rebuild."""
    slot, deps, env, argv = guard_setup(tmp_path, missing="nosuch")
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "can't find crate for `nosuch`" in done.stderr
    assert not (tmp_path / "cargo.calls").exists() and not (slot / "guard.log").exists()
    # Any other crate cargo compiles goes straight to rustc, untouched.
    other = [argv[0], str(tmp_path / "rustc"), "--crate-name", "md5", "src/lib.rs"]
    assert subprocess.run(other, env=env, capture_output=True, timeout=60).returncode == 1


def test_a_kernel_with_a_kept_slot_gets_the_guard(tmp_path):
    here = tmp_path / "reshard" / "notebooks"
    here.mkdir(parents=True)
    got = launch(tmp_path, here)
    assert got["RUSTC_WRAPPER"] == str(LAUNCH.parent / "rustc-guard")
    assert got["RESHARD_KERNEL_SLOT"] == str(Path(got["EVCXR_TMPDIR"]).parent)
    assert "RUSTC_WRAPPER" not in launch(tmp_path, here, RESHARD_KERNEL_THROWAWAY="1")
    assert launch(tmp_path, here, RUSTC_WRAPPER="sccache")["RUSTC_WRAPPER"] == "sccache"  # theirs wins
