import json
import subprocess
import sys

import pytest

import nbrun


@pytest.fixture(scope="session")
def rust_kernel():
    """Fail fast, with a hint, when the evcxr kernelspec is not registered."""
    out = subprocess.run(
        [sys.executable, "-m", "jupyter_client.kernelspecapp", "list", "--json"],
        capture_output=True, text=True,
    )
    specs = json.loads(out.stdout or "{}").get("kernelspecs", {}) if out.returncode == 0 else {}
    if nbrun.KERNEL_NAME not in specs:
        pytest.fail(
            f"Jupyter kernelspec {nbrun.KERNEL_NAME!r} not found "
            f"(have: {sorted(specs)}). Run `make setup`.", pytrace=False,
        )
