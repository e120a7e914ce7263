"""The Python examples of the documentation run: every ```python block in docs/*.md that follows
a line starting with ``<!-- tested`` is executed as it stands (docs cannot drift from the code)."""

import glob
import os
import re
import subprocess
import sys

import pytest

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs")


def _blocks():
    out = []
    for path in sorted(glob.glob(os.path.join(DOCS, "*.md"))):
        text = open(path, encoding="utf-8").read()
        for k, m in enumerate(re.finditer(r"^<!-- tested[^\n]*\n```python\n(.*?)^```", text,
                                          re.S | re.M)):
            out.append(pytest.param(m.group(1), id="%s-%d" % (os.path.basename(path), k)))
    return out


BLOCKS = _blocks()


def test_docs_have_tested_examples():
    assert len(BLOCKS) >= 1


@pytest.mark.parametrize("code", BLOCKS)
def test_docs_example_runs(code, tmp_path, child_env):
    script = tmp_path / "example.py"
    script.write_text(code)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=child_env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
