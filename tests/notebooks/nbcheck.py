"""Check one of reshard's notebooks: it runs, its committed outputs are current,
and every bold number in its prose was printed by the run.

    python tests/notebooks/nbcheck.py notebooks/01-modulo.ipynb [more.ipynb ...]
    python tests/notebooks/nbcheck.py --no-run notebooks/x.ipynb   # prose vs committed outputs only

Exit status 0 when every notebook passes, 1 otherwise. See README.md here for
the conventions (the `run-dependent` tag, bold numbers).
"""

from __future__ import annotations

import argparse
import difflib
import html
import json
import re
import sys
from pathlib import Path

import nbformat

import nbrun

RUN_DEPENDENT_TAG = "run-dependent"
# An explorable's chart (reshard::present::Explorable): JupyterLab draws it and saves an image/png
# of it beside the spec, which a fresh run (no browser) does not make: not compared.
VEGA_MIMES = ("application/vnd.vegalite.v5+json", "application/vnd.vega.v5+json")

# Text-like MIME types are diffed; the rest are reported as "image differs".
TEXT_MIMES = ("text/plain", "text/html", "text/markdown", "text/latex", "application/json")
MAX_SHOW = 1500  # characters of each side shown before switching to a diff
MAX_DIFF_LINES = 40
MAX_LINE = 200


class CheckFailure(AssertionError):
    pass


# ----------------------------------------------------------------------------
# Output normalisation and comparison
# ----------------------------------------------------------------------------

def _text(v) -> str:
    return "".join(v) if isinstance(v, list) else str(v)


def _data_text(v) -> str:
    """A MIME bundle's value as text: JSON data (a Vega-Lite spec) with sorted keys."""
    return json.dumps(v, sort_keys=True, ensure_ascii=False) if isinstance(v, dict) else _text(v)


def normalized_outputs(cell) -> list[tuple[str, str, str]]:
    """A cell's outputs as [(kind, mime_or_stream_name, text)], ignoring
    execution_count and metadata.

    stdout is gathered into one entry (how it is split into messages varies).
    stderr is left out: evcxr 0.22 forwards it without waiting, so a line can
    arrive after the cell finished and is then lost or shown under the next
    cell (measured: about half of one-line eprintln!s). Rich outputs follow
    in their order."""
    stdout = None
    data: list[tuple[str, str, str]] = []
    for out in cell.get("outputs", []):
        ot = out.get("output_type")
        if ot == "stream":
            if out.get("name", "stdout") == "stdout":
                stdout = (stdout or "") + _text(out.get("text", ""))
        elif ot in ("execute_result", "display_data"):
            d = out.get("data", {})
            for mime in sorted(d):
                if mime == "image/png" and any(m in d for m in VEGA_MIMES):
                    continue  # JupyterLab's picture of a chart it drew, saved beside the spec
                data.append(("data", mime, _data_text(d[mime])))
        elif ot == "error":
            data.append(("error", out.get("ename", ""), "\n".join(out.get("traceback", []))))
    return ([("stream", "stdout", stdout)] if stdout is not None else []) + data


def _short(s: str) -> str:
    return s if len(s) <= MAX_SHOW else s[:MAX_SHOW] + f"\n... [{len(s) - MAX_SHOW} more characters]"


def _is_image(mime: str) -> bool:
    return mime.startswith("image/")


def describe_difference(committed, fresh) -> str:
    """Human-readable account of how two normalized output lists differ."""
    if not committed:
        kinds = ", ".join(m for _, m, _ in fresh)
        preview = next((t for _, m, t in fresh if m in ("stdout", "text/plain")), "")
        preview = "\n".join(preview.splitlines()[:3])[:300]
        return (
            "committed notebook has no outputs for this cell but the run produced "
            f"{len(fresh)} ({kinds}); run `make notebooks` and commit the outputs."
            + (f"\n--- fresh, first lines ---\n{preview}" if preview else "")
        )
    lines = []
    ck = [(k, m) for k, m, _ in committed]
    fk = [(k, m) for k, m, _ in fresh]
    if ck != fk:
        lines.append(
            "output kinds differ:\n  committed: "
            + (", ".join(f"{k}:{m}" for k, m in ck) or "(none)")
            + "\n  fresh:     "
            + (", ".join(f"{k}:{m}" for k, m in fk) or "(none)")
        )
    # Pair outputs by (kind, mime) in order and show differing texts.
    fresh_by_key: dict = {}
    for k, m, t in fresh:
        fresh_by_key.setdefault((k, m), []).append(t)
    seen: dict = {}
    for k, m, ct in committed:
        n = seen.get((k, m), 0)
        seen[(k, m)] = n + 1
        fts = fresh_by_key.get((k, m), [])
        if n >= len(fts):
            continue
        ft = fts[n]
        if ct == ft:
            continue
        label = f"{k} {m}" if k != "stream" else f"stream {m}"
        if _is_image(m):
            lines.append(
                f"{label}: image differs (committed {len(ct)} chars, fresh {len(ft)} chars)"
            )
        elif len(ct) <= MAX_SHOW and len(ft) <= MAX_SHOW:
            lines.append(f"{label} differs:\n--- committed ---\n{ct}\n--- fresh ---\n{ft}")
        else:
            diff = list(
                difflib.unified_diff(
                    ct.splitlines(), ft.splitlines(), "committed", "fresh", lineterm="", n=1
                )
            )
            shown = [ln if len(ln) <= MAX_LINE else ln[:MAX_LINE] + f"... [{len(ln)} chars]" for ln in diff[:MAX_DIFF_LINES]]
            more = f"\n... [{len(diff) - MAX_DIFF_LINES} more diff lines]" if len(diff) > MAX_DIFF_LINES else ""
            lines.append(
                f"{label} differs (committed {len(ct)} chars, fresh {len(ft)} chars):\n"
                + "\n".join(shown)
                + more
            )
    return "\n".join(lines) or "outputs differ"


def compare_outputs(committed_nb, fresh_nb, name: str) -> list[str]:
    """Messages, one per code cell whose fresh outputs differ from the committed ones."""
    problems = []
    if len(committed_nb.cells) != len(fresh_nb.cells):  # cannot happen with nbclient
        return [f"{name}: cell count changed during execution"]
    for i, (c_cell, f_cell) in enumerate(zip(committed_nb.cells, fresh_nb.cells)):
        if f_cell.cell_type != "code":
            continue
        if RUN_DEPENDENT_TAG in f_cell.get("metadata", {}).get("tags", []):
            continue
        c_out, f_out = normalized_outputs(c_cell), normalized_outputs(f_cell)
        if c_out != f_out:
            problems.append(
                f"{name}: {nbrun.cell_label(fresh_nb, i)}: output differs from the committed one "
                f"(tag the cell `{RUN_DEPENDENT_TAG}` if it legitimately varies between runs, "
                f"else run `make notebooks`)\n" + describe_difference(c_out, f_out)
            )
    return problems


# ----------------------------------------------------------------------------
# Bold numbers in prose
# ----------------------------------------------------------------------------

# A number: digits with optional thousands separators (, _ thin/narrow-nbsp),
# optional decimals and exponent. Not preceded by a letter, digit or '_' so
# that names like md5, x86_64, SHA-256-ish identifiers are not numbers.
_SEP = ",_\u2009\u202f"
NUMBER_RE = re.compile(
    r"(?<![A-Za-z0-9_.])"
    r"(\d{1,3}(?:[" + _SEP + r"]\d{3})+|\d+)"  # integer part
    r"(\.\d+)?"                                 # fraction
    r"([eE][-+]?\d+)?"                          # exponent
)
BOLD_RE = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", re.DOTALL)
FENCE_RE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
TAG_RE = re.compile(r"<[^>]*>")
STYLE_SCRIPT_RE = re.compile(r"<(style|script)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE)


def _norm(intpart: str, frac: str | None, exp: str | None) -> str:
    for ch in _SEP:
        intpart = intpart.replace(ch, "")
    return intpart + (frac or "") + (exp or "").lower()


def numbers_in(text: str) -> list[str]:
    """Normalized numbers as written: '89,813' -> '89813', '8.98%' -> '8.98'.
    Signs are ignored, so '-3.2' and '−3.2' both give '3.2'."""
    return [_norm(*m.groups()) for m in NUMBER_RE.finditer(text)]


def _output_numbers(text: str) -> set[str]:
    """Numbers in printed output. Besides the separator-stripped reading, also
    take every digit run on its own, so "100,200" (a CSV line) provides 100, 200
    and 100200."""
    pool = set(numbers_in(text))
    pool.update(_norm(*m.groups()) for m in re.finditer(r"(?<![0-9.])(\d+)(\.\d+)?([eE][-+]?\d+)?", text))
    return pool


def html_to_text(s: str) -> str:
    return html.unescape(TAG_RE.sub(" ", STYLE_SCRIPT_RE.sub(" ", s)))


def printed_numbers(nb) -> set[str]:
    """Every number printed by a code cell: text/plain, text/markdown, stdout,
    and the visible text of text/html (not stderr, see normalized_outputs). Cells tagged run-dependent do not count:
    a figure that changes between runs must not be stated in bold."""
    pool: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if RUN_DEPENDENT_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        for kind, mime, text in normalized_outputs(cell):
            if kind == "stream" or mime in ("text/plain", "text/markdown"):
                pool |= _output_numbers(text)
            elif mime == "text/html":
                pool |= _output_numbers(html_to_text(text))
    return pool


def bold_numbers(markdown: str) -> list[tuple[str, str]]:
    """[(bold span text, normalized number)] for each number inside **bold**."""
    md = FENCE_RE.sub(" ", markdown)
    md = CODE_SPAN_RE.sub(" ", md)
    res = []
    for m in BOLD_RE.finditer(md):
        span = m.group(2)
        if "\n\n" in span:  # bold never crosses paragraphs; a stray ** pair
            continue
        for num in numbers_in(span):
            res.append((span.strip(), num))
    return res


def check_prose_numbers(nb, name: str, where: str = "by any code cell in this run") -> list[str]:
    pool = printed_numbers(nb)
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for span, num in bold_numbers(cell.source):
            if num not in pool:
                first = (cell.source.strip().splitlines() or [""])[0][:70]
                problems.append(
                    f"{name}: markdown cell {i} (`{first}`): bold number {num} "
                    f"(in **{span}**) was not printed {where}"
                )
    return problems


# ----------------------------------------------------------------------------
# Entry points
# ----------------------------------------------------------------------------

WITHIN_TAG = "within-tolerance"


def check_tolerances(nb, name: str) -> list[str]:
    """A cell tagged `within-tolerance` sets a figure that changes from run to run (a latency, a race)
    beside its prediction with a stated tolerance: its output is not compared (tag it `run-dependent`
    too), but a fresh run must show no ≠, so a run outside the tolerance fails the test."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and WITHIN_TAG in cell.get("metadata", {}).get("tags", []):
            shown = "\n".join(text for _, _, text in normalized_outputs(cell))
            if "≠" in shown:
                row = next((l for l in shown.splitlines() if "≠" in l), "")
                problems.append(f"{name}: cell {i} is outside its stated tolerance this run: {row.strip()[:160]}")
    return problems


def check_executed(committed, fresh, name: str) -> list[str]:
    """Every problem of a fresh execution against its committed notebook: stale outputs, bold
    numbers not printed, figures outside their stated tolerance (empty list = pass)."""
    return compare_outputs(committed, fresh, name) + check_prose_numbers(fresh, name) + check_tolerances(fresh, name)


def check_notebook(path, cwd=None) -> list[str]:
    """Run the notebook and return all problems (empty list = pass).
    A failing cell raises nbrun.NotebookRunError."""
    name = nbrun._rel(Path(path))
    committed, fresh, _ = nbrun.execute(path, cwd=cwd)
    return check_executed(committed, fresh, name)


def assert_notebook_ok(path, cwd=None) -> None:
    try:
        problems = check_notebook(path, cwd=cwd)
    except nbrun.NotebookRunError as e:
        raise CheckFailure(str(e)) from None
    if problems:
        raise CheckFailure("\n\n".join(problems))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("notebooks", nargs="+", type=Path)
    ap.add_argument("--no-run", action="store_true",
                    help="don't execute; check bold numbers against the committed outputs only")
    args = ap.parse_args(argv)
    bad = 0
    for p in args.notebooks:
        name = nbrun._rel(p)
        try:
            if args.no_run:
                problems = check_prose_numbers(nbformat.read(p, as_version=4), name,
                                               where="in any committed code cell output")
            else:
                problems = check_notebook(p)
        except nbrun.NotebookRunError as e:
            problems = [str(e)]
        if problems:
            bad += 1
            print(f"FAIL {name}\n" + "\n\n".join(problems) + "\n", file=sys.stderr)
        else:
            print(f"ok   {name}")
    ok = len(args.notebooks) - bad
    print(f"{ok} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
