"""Run the Python code blocks of a source document, as its author did.

The source documents (not part of this repository) interleave prose, code
and printed output. This script keeps the code: a block starts at a line
that opens a Python statement (import, def, class, for, print(, an
assignment, …) and runs through the indented and blank lines after it;
everything else (prose and output) is dropped. It then runs the result in
one Python process and prints the wall time, so `examples/bench.rs` can set
the crate's time beside the document's own.

    python3 scripts/doc_python.py PATH [--show]
"""

import re
import sys
import time

START = re.compile(r"^(import |from \S+ import |def |class |for |while |if |with |print\(|@|[A-Za-z_][\w, ]*\s*=[^=])")


def code_of(text: str) -> str:
    out, in_code = [], False
    for line in text.splitlines():
        if START.match(line):
            in_code = True
        elif in_code and (line.startswith((" ", "\t")) or not line.strip()):
            pass
        else:
            in_code = False
        if in_code:
            out.append(line)
    return "\n".join(out) + "\n"


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    code = code_of(open(sys.argv[1], encoding="utf-8").read())
    if "--show" in sys.argv:
        print(code)
        return 0
    start = time.perf_counter()
    exec(compile(code, sys.argv[1], "exec"), {"__name__": "__main__"})
    print(f"[doc_python] wall {time.perf_counter() - start:.3f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
