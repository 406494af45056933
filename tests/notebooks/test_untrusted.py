"""A student opens a committed notebook without running it: JupyterLab does
not trust it, and shows inline <svg> inside HTML output as raw text. Every
plot must therefore be an <img> (data URI) or an image/* output."""
import re
from pathlib import Path

import nbformat
import pytest

NB_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_plots_render_untrusted(path):
    nb = nbformat.read(path, as_version=4)
    pictures = 0
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            html = out.get("data", {}).get("text/html", "")
            assert "<svg" not in html, f"{path.name} cell {i}: inline <svg> in HTML shows as text when untrusted"
            assert "<script" not in html, f"{path.name} cell {i}: <script> does not run when untrusted"
            pictures += len(re.findall(r'<img src="data:image/svg\+xml;base64,', html))
            pictures += sum(1 for k in out.get("data", {}) if k.startswith("image/"))
    if path.name != "00-index.ipynb":
        assert pictures >= 4, f"{path.name}: only {pictures} committed plots; each notebook shows at least 4"
