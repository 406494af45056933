"""`make doctor` (scripts/doctor.py) and the kernel launcher (kernel/launch.py).

The doctor runs in a subprocess with a made-up machine: PATH, HOME, JUPYTER_PATH,
XDG_DATA_HOME and the virtualenv all point into a temporary folder, so a
missing kernelspec or evcxr_jupyter is simulated without touching the real ones.
"""

import json
import shutil
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
DOCTOR = REPO / "scripts" / "doctor.py"
LAUNCH = REPO / "kernel" / "launch.py"
sys.path.insert(0, str(REPO / "kernel"))
import launch  # noqa: E402


def fake_tool(bindir: Path, name: str, output: str = "", body: bytes = b"") -> Path:
    bindir.mkdir(parents=True, exist_ok=True)
    tool = bindir / name
    tool.write_bytes(b"#!/bin/sh\necho '" + output.encode() + b"'\n" + body)
    tool.chmod(0o755)
    return tool


@pytest.fixture
def machine(tmp_path):
    """A machine with Rust 1.95 and nothing else: no evcxr_jupyter, no kernelspec, no venv."""
    bindir = tmp_path / "bin"
    fake_tool(bindir, "rustc", "rustc 1.95.0 (59807616e 2026-04-14)")
    fake_tool(bindir, "cargo", "cargo 1.95.0")
    jupyter = tmp_path / "jupyter"
    jupyter.mkdir()
    env = {
        "PATH": str(bindir),
        "HOME": str(tmp_path / "home"),
        "JUPYTER_PATH": str(jupyter),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "LANG": "C.UTF-8",
    }
    return {"tmp": tmp_path, "bin": bindir, "jupyter": jupyter, "env": env, "venv": tmp_path / "venv"}


def doctor(m, *args):
    out = subprocess.run([sys.executable, str(DOCTOR), "--venv", str(m["venv"]), *args],
                         env=m["env"], capture_output=True, text=True, timeout=60)
    return out.returncode, out.stdout + out.stderr


def row(text: str, what: str) -> tuple[str, str]:
    """(the line for `what`, the fix line under it, if any)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.split()[1:2] == [what]:
            nxt = lines[i + 1] if i + 1 < len(lines) and "fix:" in lines[i + 1] else ""
            return line, nxt.strip()
    raise AssertionError(f"no {what} row in:\n{text}")


def install_evcxr(m, version="0.22.0") -> Path:
    # The version is read from the binary's embedded source paths, as for a real build.
    return fake_tool(m["bin"], "evcxr_jupyter", "",
                     f"# .../evcxr_jupyter-{version}/src/core.rs\n".encode())


def write_spec(m, argv):
    kdir = m["jupyter"] / "kernels" / "rust"
    kdir.mkdir(parents=True)
    (kdir / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "Rust", "language": "rust"}))
    return kdir


def test_missing_kernelspec_fails_with_make_kernel(machine):
    install_evcxr(machine)
    rc, out = doctor(machine)
    assert rc == 1, out
    line, fix = row(out, "kernelspec")
    assert line.split()[0] == "FAIL" and "no 'rust' kernelspec" in line
    assert fix == "fix: make kernel"
    assert row(out, "evcxr_jupyter")[0].split()[0] == "ok"


def test_missing_evcxr_jupyter_fails_with_make_evcxr(machine):
    rc, out = doctor(machine)
    assert rc == 1, out
    line, fix = row(out, "evcxr_jupyter")
    assert line.split()[0] == "FAIL" and "not found" in line
    assert fix == "fix: make evcxr"
    assert row(out, "Rust")[0].split()[0] == "ok"


def test_before_setup_reports_what_setup_installs_as_todo(machine):
    rc, out = doctor(machine, "--before-setup")
    assert rc == 0, out
    assert row(out, "evcxr_jupyter")[0].split()[0] == "todo"
    assert row(out, "kernelspec")[0].split()[0] == "todo"
    assert row(out, "virtualenv")[0].split()[0] == "todo"


def test_kernelspec_pointing_at_a_deleted_binary(machine):
    install_evcxr(machine)
    write_spec(machine, [str(machine["tmp"] / "gone" / "evcxr_jupyter"), "--control_file", "{connection_file}"])
    rc, out = doctor(machine)
    assert rc == 1
    line, fix = row(out, "kernelspec")
    assert "does not exist" in line and fix == "fix: make kernel"


def test_too_old_rust_says_rustup_update(machine):
    fake_tool(machine["bin"], "rustc", "rustc 1.70.0 (90c541806 2023-05-31)")
    fake_tool(machine["bin"], "rustup", "")
    rc, out = doctor(machine)
    assert rc == 1
    line, fix = row(out, "Rust")
    assert "1.70.0" in line and fix == "fix: rustup update stable"


def test_ready_machine(machine):
    evcxr = install_evcxr(machine)
    (machine["venv"] / "bin").mkdir(parents=True)
    (machine["venv"] / "bin" / "python").symlink_to(sys.executable)
    (machine["venv"] / ".requirements.stamp").touch()
    write_spec(machine, [sys.executable, str(LAUNCH), "--evcxr", str(evcxr), "--",
                         "--control_file", "{connection_file}"])
    rc, out = doctor(machine)
    assert rc == 0, out
    for what in ("Rust", "Python", "virtualenv", "evcxr_jupyter", "kernelspec"):
        assert row(out, what)[0].split()[0] == "ok", out
    assert "0.22.0" in row(out, "kernelspec")[0]
    # Optional tools never fail the check.
    assert row(out, "Chromium")[0].split()[0] in ("ok", "opt")


def test_wrong_evcxr_version_is_a_warning(machine):
    install_evcxr(machine, "0.21.1")
    rc, out = doctor(machine, "--before-setup")
    line, fix = row(out, "evcxr_jupyter")
    assert line.split()[0] == "warn" and "0.21.1" in line
    assert fix.startswith("fix: cargo install --locked --force evcxr_jupyter --version 0.22.0")


# kernel/launch.py

def test_two_live_kernels_get_two_build_dirs(tmp_path):
    folder = tmp_path / "nb-1234"
    a, lock_a = launch.claim_slot(folder)
    b, lock_b = launch.claim_slot(folder)
    assert (a.name, b.name) == ("kernel-0", "kernel-1")
    lock_a.close()  # the first kernel stopped: its directory is free again
    c, lock_c = launch.claim_slot(folder)
    assert c.name == "kernel-0"
    lock_b.close()
    lock_c.close()


def test_config_puts_the_readers_init_after_ours(tmp_path, monkeypatch):
    own = tmp_path / "xdg" / "evcxr"
    own.mkdir(parents=True)
    (own / "init.evcxr").write_text(":opt 0\n")
    (own / "prelude.rs").write_text("use std::fmt;\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(sys, "platform", "linux")
    launch.write_config(tmp_path / "conf")
    init = (tmp_path / "conf" / "init.evcxr").read_text()
    assert init.index(":cache 0") < init.index(":opt 0")
    assert (tmp_path / "conf" / "prelude.rs").read_text() == "use std::fmt;\n"


def test_install_writes_a_kernelspec_for_the_launcher(tmp_path):
    evcxr = fake_tool(tmp_path / "bin", "evcxr_jupyter", "", b"# evcxr_jupyter-0.22.0/src\n")
    kdir = tmp_path / "venv" / "share" / "jupyter" / "kernels" / "rust"
    kdir.mkdir(parents=True)
    (kdir / "logo-64x64.png").write_bytes(b"")  # skip `evcxr_jupyter --install`
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    subprocess.run([sys.executable, str(LAUNCH), "--prefix", str(tmp_path / "venv"), "--evcxr", str(evcxr)],
                   check=True, env=env, capture_output=True)
    spec = json.loads((kdir / "kernel.json").read_text())
    assert spec["argv"][1] == str(LAUNCH) and spec["argv"][3] == str(evcxr.resolve())
    assert spec["argv"][-2:] == ["--control_file", "{connection_file}"]
    assert spec["metadata"]["reshard"]["evcxr_version"] == "0.22.0"


def test_cells_compile_at_opt_level_0_and_reshard_keeps_evcxrs(tmp_path):
    slot = tmp_path / "kernel-0"
    launch.write_cell_profile(slot, None)
    conf = (slot / ".cargo" / "config.toml").read_text()
    assert "[profile.dev.package.ctx]\nopt-level = 0\n" in conf
    launch.write_cell_profile(slot, "evcxr")  # the reader opts out: the file goes
    assert not (slot / ".cargo" / "config.toml").exists()
    launch.write_cell_profile(slot, "1")
    cargo = shutil.which("cargo") or shutil.which("cargo", path=str(Path.home() / ".cargo" / "bin"))
    if not cargo:
        pytest.skip("no cargo")
    # Like evcxr: crate `ctx` in <slot>/build with [profile.dev] opt-level = 2 for everything,
    # a path dependency; cargo must pick up <slot>/.cargo/config.toml for ctx only.
    dep = tmp_path / "dep"
    (dep / "src").mkdir(parents=True)
    (dep / "Cargo.toml").write_text('[package]\nname = "dep"\nversion = "0.1.0"\nedition = "2021"\n')
    (dep / "src" / "lib.rs").write_text("pub fn f() -> u32 { 1 }\n")
    build = slot / "build"
    (build / "src").mkdir(parents=True)
    (build / "Cargo.toml").write_text(
        '[package]\nname = "ctx"\nversion = "1.0.0"\nedition = "2021"\n\n[lib]\npath = "src/lib.rs"\n\n'
        f'[profile.dev]\nopt-level = 2\n\n[dependencies]\ndep = {{ path = "{dep.as_posix()}" }}\n')
    (build / "src" / "lib.rs").write_text("pub fn g() -> u32 { dep::f() }\n")
    out = subprocess.run([cargo, "build", "-v", "--offline"], cwd=build, capture_output=True, text=True,
                         env={**os.environ, "CARGO_TARGET_DIR": str(build / "target")}, timeout=300)
    assert out.returncode == 0, out.stderr
    rustc_lines = {name: line for line in out.stderr.splitlines() if "Running `" in line
                   for name in ("ctx", "dep") if f"--crate-name {name} " in line}
    assert "opt-level=1" in rustc_lines["ctx"]
    assert "opt-level=2" in rustc_lines["dep"]
