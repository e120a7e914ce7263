#!/usr/bin/env python3
"""Tables on the documentation pages that are the verbatim output of a test: a fenced block right
after a line

    <!-- output: Suite.Test -->

(or a gtest filter: A.B:C.D, A.*) is what `daekit_tests --gtest_filter=Suite.Test` prints (without GoogleTest's own lines).
python/tests/test_docs_numbers.py checks every such block against the test; after a change of
the code, this script rewrites them:

    /usr/bin/python3 scripts/doc_outputs.py --update [--build build] docs/rk-theory.md

(then read the page's prose beside the tables: it must still say what they show). A block after
`<!-- output (benchmark): COMMAND -->` is a dated benchmark record: shown, not rerun.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MARKED = re.compile(r"^<!-- output: (?P<test>[A-Za-z0-9_.*:]+) -->\n```\n(?P<body>.*?)^```",
                    re.S | re.M)


def marked_blocks(text):
    """(test name, block text, match) of every marked block."""
    return [(m.group("test"), m.group("body"), m) for m in MARKED.finditer(text)]


def test_output(build, test):
    """What the test prints, without GoogleTest's lines; raises if the test fails."""
    exe = os.path.join(build, "tests", "daekit_tests")
    proc = subprocess.run([exe, "--gtest_filter=" + test], capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0 or "[  PASSED  ]" not in proc.stdout:
        raise RuntimeError("%s failed or did not run:\n%s" % (test, proc.stdout[-3000:]))
    lines = [line for line in proc.stdout.splitlines()
             if not line.startswith("[") and not line.startswith("Note: Google Test filter")
             and not line.startswith("Running main()")]
    return "\n".join(lines).rstrip("\n") + "\n"


def update(path, build):
    text = open(path, encoding="utf-8").read()
    out, last = [], 0
    for test, _, m in marked_blocks(text):
        out.append(text[last:m.start("body")])
        out.append(test_output(build, test))
        last = m.end("body")
    out.append(text[last:])
    new = "".join(out)
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return len(marked_blocks(text))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--update", action="store_true", required=True)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("pages", nargs="+")
    args = ap.parse_args()
    for page in args.pages:
        print("%s: %d blocks rewritten from the tests" % (page, update(page, args.build)))


if __name__ == "__main__":
    sys.exit(main())
