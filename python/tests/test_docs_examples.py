"""Every code example of the documentation runs (README.md and docs/**/*.md, the pages of the site
built by scripts/docs.sh; scripts/doc_snippets.py finds them), so a page cannot drift from the
code without a test failing:
  - every ```python block is executed as a script (it asserts what it claims);
  - every `daekit ...` command line (```sh blocks, and inline code outside the dated
    docs/results/ records) is run with the built command and must succeed;
  - the ```cpp blocks are compiled and run by the ctest tests doc_snippet_* (the test here checks
    that the build knows each of them).
"""
import os
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import doc_snippets  # noqa: E402

BUILD = os.environ.get("DAEKIT_BUILD_DIR", os.path.join(ROOT, "build"))



def _rel(path):
    return os.path.relpath(path, ROOT)


PYTHON = [pytest.param(code, id="%s-%d" % (_rel(path), k))
          for path, k, code in doc_snippets.blocks("python")]
COMMANDS = [pytest.param(cmd, id="%s: %s" % (_rel(path), cmd))
            for path, cmd in doc_snippets.command_lines()]


def test_the_pages_have_examples_of_each_kind():
    assert len(PYTHON) >= 10 and len(COMMANDS) >= 10
    assert len(doc_snippets.blocks("cpp")) >= 5


@pytest.mark.parametrize("lang", ["python", "cpp", "sh"])
def test_no_example_on_the_user_pages_is_left_out(lang):
    """`<!-- not-run: ... -->` may mark a block of the theory pages, never of the getting-started
    pages and the user guide."""
    def user_page(path):
        rel = _rel(path)
        return rel.startswith(os.path.join("docs", "start")) or rel.startswith(
            os.path.join("docs", "guide"))
    every = [b[0] for b in doc_snippets.blocks(lang, include_skipped=True) if user_page(b[0])]
    run = [b[0] for b in doc_snippets.blocks(lang) if user_page(b[0])]
    assert every == run


@pytest.mark.parametrize("code", PYTHON)
def test_docs_python_example_runs(code, tmp_path, child_env):
    script = tmp_path / "example.py"
    script.write_text(code)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=child_env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_docs_command_line_runs(command, cli, tmp_path):
    words = shlex.split(command)
    proc = subprocess.run([cli] + words[1:], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_every_cpp_block_is_a_ctest_test():
    """cmake/doc_snippets.cmake turns each C++ block into the test doc_snippet_<page>_<k>; a
    block added to a page after the build was configured makes this fail until CMake reruns
    (it does on the next build: the pages are configure dependencies)."""
    ctest = os.path.join(BUILD, "CTestTestfile.cmake")
    if not os.path.exists(ctest):
        pytest.skip("no CMake build at %s" % BUILD)
    proc = subprocess.run(["ctest", "--test-dir", BUILD, "-N", "-R", "^doc_snippet_"],
                          capture_output=True, text=True, timeout=60)
    listed = proc.stdout
    for path, k, _ in doc_snippets.blocks("cpp"):
        name = "doc_snippet_%s_%d" % (doc_snippets.page_id(path), k)
        assert name in listed, "%s (%s, C++ block %d) is not a ctest test" % (name, _rel(path), k)
