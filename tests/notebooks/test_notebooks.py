"""Every notebooks/*.ipynb runs cleanly from a fresh kernel, its committed
outputs are current and its bold numbers were printed. With no notebooks yet
this parametrization is empty (reported as one skip)."""

import pytest

import nbcheck
import nbrun

NOTEBOOKS = sorted(nbrun.NOTEBOOKS_DIR.glob("*.ipynb"))


@pytest.mark.usefixtures("rust_kernel")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook(path):
    nbcheck.assert_notebook_ok(path)
