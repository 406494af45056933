"""The index notebook and README's notebook list are generated from the
notebooks' own metadata (scripts/notebook_index.py); fail when stale."""
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
