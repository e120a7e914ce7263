"""Numbers the documentation quotes from the code are checked against the code, so a page cannot
drift from it (the rest come from the tests and scripts named beside them):

  - a sentence "`daekit solve ARGS` prints scd X" or "`daekit solve ARGS` takes N steps" on any
    page (README.md, docs/**/*.md) is run and compared (scd to the quoted decimal, steps exactly);
  - a table after `<!-- output: Suite.Test -->` (docs/rk-theory.md's) is verbatim what that
    test prints (scripts/doc_outputs.py).
"""
import json
import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import doc_outputs  # noqa: E402
import doc_snippets  # noqa: E402

BUILD = os.environ.get("DAEKIT_BUILD_DIR", os.path.join(ROOT, "build"))
QUOTE = re.compile(r"`(daekit solve [^`]+)`\s+(prints scd|takes)\s+(\d+(?:\.\d+)?)(?:\s+steps)?")


def _quotes():
    out = []
    for path in doc_snippets.pages():
        text = " ".join(open(path, encoding="utf-8").read().split())
        for m in QUOTE.finditer(text):
            out.append(pytest.param(m.group(1), m.group(2), m.group(3),
                                    id="%s: %s %s" % (os.path.relpath(path, ROOT), m.group(1),
                                                      m.group(3))))
    return out


QUOTES = _quotes()


def test_the_pages_quote_command_figures():
    assert len(QUOTES) >= 4


@pytest.mark.parametrize("command,kind,value", QUOTES)
def test_quoted_command_figure(command, kind, value, cli):
    proc = subprocess.run([cli] + shlex.split(command)[1:] + ["--json"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    if kind == "takes":
        assert result["stats"]["naccept"] == int(value), result["stats"]["naccept"]
    else:
        decimals = len(value.split(".")[1]) if "." in value else 0
        assert abs(result["scd"] - float(value)) <= 0.51 * 10.0 ** -decimals, result["scd"]


def _output_blocks():
    out = []
    for path in doc_snippets.pages():
        text = open(path, encoding="utf-8").read()
        for test, body, _ in doc_outputs.marked_blocks(text):
            out.append(pytest.param(test, body, id="%s: %s" % (os.path.relpath(path, ROOT), test)))
    return out


OUTPUT_BLOCKS = _output_blocks()


def test_rk_theory_marks_its_tables():
    assert len([b for b in OUTPUT_BLOCKS if "rk-theory" in b.id]) >= 13


@pytest.mark.parametrize("test,body", OUTPUT_BLOCKS)
def test_table_is_what_its_test_prints(test, body):
    """A table after `<!-- output: TEST -->` is what the test prints today (rewrite it with
    scripts/doc_outputs.py --update PAGE)."""
    if not os.path.exists(os.path.join(BUILD, "tests", "daekit_tests")):
        pytest.fail("daekit_tests not built in %s" % BUILD)
    assert doc_outputs.test_output(BUILD, test) == body
