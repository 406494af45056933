"""The index notebook and README's notebook list are generated from the
notebooks' own metadata (scripts/notebook_index.py); fail when stale."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_index_and_readme_list_are_in_sync():
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "notebook_index.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, "notebook index out of date:\n" + r.stderr


def test_every_finding_is_in_the_map_and_the_map_has_no_orphans():
    """The index's findings map (scripts/notebook_index.py FINDINGS) lists every finding a Predict of
    the course asks, in plain words, and nothing else; each is asked by exactly one Predict."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import notebook_index

    asked, recalled, _ = notebook_index.course_findings()
    assert notebook_index.findings_problems(asked, recalled) == []
    assert set(asked) == set(notebook_index.FINDINGS)
    # the check catches both ways: a finding asked but not mapped, an entry no Predict asks
    fewer = {f: v for f, v in notebook_index.FINDINGS.items() if f != "timestamp-hot-spot"}
    more = {**notebook_index.FINDINGS, "an-orphan": ("a question no lab asks", [])}
    assert any("'timestamp-hot-spot' is not in the findings map" in p
               for p in notebook_index.findings_problems(asked, recalled, fewer))
    assert any("lists 'an-orphan', which no Predict asks" in p
               for p in notebook_index.findings_problems(asked, recalled, more))


def test_the_findings_map_in_the_index_lists_each_finding_once_with_its_lab():
    import nbformat

    index = nbformat.read(ROOT / "notebooks" / "00-index.ipynb", as_version=4)
    (cell,) = [c for c in index.cells if c.get("id") == "findings"]
    rows = [line for line in cell.source.splitlines() if line.startswith("| `")]
    ids = [line.split("`")[1] for line in rows]
    assert len(ids) == len(set(ids)), "a finding is listed twice"
    sys.path.insert(0, str(ROOT / "scripts"))
    import notebook_index

    asked, _, _ = notebook_index.course_findings()
    assert sorted(ids) == sorted(asked)
    for line in rows:  # the lab that asks it, linked
        f = line.split("`")[1]
        assert f"[{asked[f][0]}]({asked[f][1]})" in line, line
    # a line says what is asked, never a figure of its answer
    assert not any(re.search(r"\d+(\.\d+)?%", line) for line in rows), rows
