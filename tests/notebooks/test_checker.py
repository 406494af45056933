"""The checker itself: each check can fail, with a message that says why.

The fixtures under fixtures/ use std-only Rust (no :dep) so they run in
seconds. Regenerate good.ipynb's outputs with
    .venv/bin/python tests/notebooks/nbrun.py --inplace tests/notebooks/fixtures/good.ipynb
"""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

import nbcheck
import nbrun

FIXTURES = Path(__file__).resolve().parent / "fixtures"
kernel = pytest.mark.usefixtures("rust_kernel")


def check_failure(path) -> str:
    """Run the checker on a notebook that must fail; return its message."""
    with pytest.raises(nbcheck.CheckFailure) as exc:
        nbcheck.assert_notebook_ok(path)
    return str(exc.value)


# --- whole-notebook checks on the real kernel --------------------------------

@kernel
def test_good_fixture_passes():
    nbcheck.assert_notebook_ok(FIXTURES / "good.ipynb")


@kernel
def test_failing_assert_is_rejected():
    msg = check_failure(FIXTURES / "panic.ipynb")
    assert "panic.ipynb: cell 2 (`assert_eq!(1, 2, \"fixture: deliberate failure\");`) failed" in msg
    # The panic aborts evcxr's child process; that is what the kernel reports.
    # (The panic text itself comes over stderr, which evcxr delivers racily.)
    assert "Subprocess terminated" in msg
    assert "stack backtrace" not in msg


@kernel
def test_stale_output_is_rejected():
    msg = check_failure(FIXTURES / "stale.ipynb")
    assert "stale.ipynb: cell 1 (`println!(\"{}\", 6 * 7);`)" in msg
    assert "output differs" in msg
    assert "--- committed ---\n41\n" in msg
    assert "--- fresh ---\n42\n" in msg


@kernel
def test_unprinted_bold_number_is_rejected():
    msg = check_failure(FIXTURES / "bold_unprinted.ipynb")
    assert "bold_unprinted.ipynb: markdown cell 0" in msg
    assert "bold number 1234 (in **1,234**)" in msg
    assert "not printed" in msg
    assert "bold number 42 " not in msg  # 42 was printed


@kernel
def test_notebook_committed_without_outputs_is_rejected(tmp_path):
    nb = nbformat.read(FIXTURES / "good.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    path = tmp_path / "no_outputs.ipynb"
    nbformat.write(nb, path)
    msg = check_failure(path)
    assert "cell 1 (`println!(\"{}\", 6 * 7);`)" in msg
    assert "committed notebook has no outputs for this cell" in msg
    assert "run-dependent" in msg  # the hint
    assert "cell 5 " not in msg  # the run-dependent cell is exempt even here


# --- evcxr panic behaviour: why tests/notebooks/evcxr/init.evcxr exists -------

PANIC_NB = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('assert_eq!(1, 2);')])


def _run_raw(env_config_dir):
    """Plain nbclient, no nbrun panic scan: what does the kernel itself report?"""
    nb = nbformat.from_dict(PANIC_NB)
    env = nbrun.kernel_env()
    env["EVCXR_CONFIG_DIR"] = str(env_config_dir)
    client = NotebookClient(nb, kernel_name=nbrun.KERNEL_NAME, timeout=nbrun.CELL_TIMEOUT,
                            startup_timeout=nbrun.STARTUP_TIMEOUT)
    client.execute(env=env)
    return nb


@kernel
def test_init_evcxr_makes_panics_cell_errors():
    with pytest.raises(CellExecutionError):
        _run_raw(nbrun.EVCXR_CONFIG_DIR)


@kernel
def test_evcxr_default_reports_panic_as_success(tmp_path):
    # Documents the evcxr 0.22 default (preserve_vars_on_panic = 1): the panic
    # is only printed to stderr. nbrun's stderr scan is the second line of defence.
    nb = _run_raw(tmp_path)  # empty config dir: no exception raised
    assert not any(o.get("output_type") == "error" for o in nb.cells[0].outputs)


# --- pure functions ------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("**89,813** keys", ["89813"]),
    ("8.98%", ["8.98"]),
    ("10.1×", ["10.1"]),
    ("−3.2 and -4", ["3.2", "4"]),
    ("1\u202f000\u202f000", ["1000000"]),
    ("md5 and x86_64 and v2", []),
    ("1.5e-7", ["1.5e-7"]),
])
def test_numbers_in(text, expected):
    assert nbcheck.numbers_in(text) == expected


def test_bold_numbers_ignore_code_and_plain_bold():
    md = "A **12.5%** b **word** `**7**` __3×__\n```\n**9**\n```\n*4* 5"
    assert [n for _, n in nbcheck.bold_numbers(md)] == ["12.5", "3"]


def test_printed_numbers_sources():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("", outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="100,200 moved\n"),
            nbformat.v4.new_output("execute_result", data={
                "text/plain": "3.25", "text/html": "<td style='w:999'>1,024</td>",
                "image/svg+xml": "<svg width='555'/>"}, execution_count=1),
        ]),
        nbformat.v4.new_code_cell("", metadata={"tags": ["run-dependent"]}, outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="took 17 ms\n")]),
    ])
    pool = nbcheck.printed_numbers(nb)
    assert {"100200", "100", "200", "3.25", "1024"} <= pool
    assert "999" not in pool and "555" not in pool and "17" not in pool


def test_image_difference_reported_by_length():
    a = [("data", "image/png", "A" * 5000)]
    b = [("data", "image/png", "B" * 5004)]
    assert nbcheck.describe_difference(a, b) == \
        "data image/png: image differs (committed 5000 chars, fresh 5004 chars)"


def test_long_text_difference_is_truncated():
    a = [("data", "text/html", "<p>x</p>\n" * 1000)]
    b = [("data", "text/html", "<p>x</p>\n" * 999 + "<p>y</p>\n")]
    msg = nbcheck.describe_difference(a, b)
    assert "committed 9000 chars, fresh 9000 chars" in msg
    assert "-<p>x</p>" in msg and "+<p>y</p>" in msg
    assert len(msg) < 1000


def test_a_run_outside_its_stated_tolerance_fails():
    def nb_with(text, tags):
        nb = nbformat.v4.new_notebook()
        c = nbformat.v4.new_code_cell("checks")
        c.metadata["tags"] = tags
        c.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        nb.cells = [c]
        return nb
    inside = "slow queries  3.9% ± 1.9 points (3σ)  4.4%  ✓\n"
    outside = "slow queries  3.9% ± 1.9 points (3σ)  7.1%  ≠\n"
    tags = ["run-dependent", "within-tolerance"]
    assert nbcheck.check_tolerances(nb_with(inside, tags), "x") == []
    found = nbcheck.check_tolerances(nb_with(outside, tags), "x")
    assert len(found) == 1 and "outside its stated tolerance" in found[0] and "7.1%" in found[0]
    assert nbcheck.check_tolerances(nb_with(outside, ["run-dependent"]), "x") == []  # not a tolerance check
