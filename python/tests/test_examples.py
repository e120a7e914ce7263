"""The examples under examples/python/ run (and check their own results)."""

import glob
import os
import subprocess
import sys

import pytest

EXAMPLES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                                         "python", "*.py")))


def test_examples_found():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_runs(path, tmp_path, child_env):
    proc = subprocess.run([sys.executable, path, str(tmp_path)], capture_output=True, text=True,
                          env=child_env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip()
