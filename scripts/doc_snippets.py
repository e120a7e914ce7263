#!/usr/bin/env python3
"""The code examples of daekit's documentation (README.md and docs/**/*.md), found by language:

  ```python  blocks: run as scripts by python/tests/test_docs_examples.py;
  ```cpp     blocks: compiled and run by the ctest tests doc_snippet_* (cmake/doc_snippets.cmake
             calls this script at configure time: `doc_snippets.py cpp OUTDIR`); a block with
             `int main` is a program, any other block runs inside a function with the fixture
             below (dae, t0, t_end, y0, options of the built-in index-2 pendulum);
  ```sh      blocks and inline code: every line or span that starts with `daekit ` or
             `build/apps/daekit ` is a command line, run by test_docs_examples.py.

Pages under docs/results/ (dated benchmark records) are not searched. A block preceded by a
line `<!-- not-run: REASON -->` is left out (REASON says why; the test
counts them and allows none on the user-guide pages). Shared by the CMake build and the tests.
"""
import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

FENCE = re.compile(r"^(?P<skip><!-- not-run:[^\n]*-->\n)?```(?P<lang>[A-Za-z+]*)[^\n]*\n(?P<code>.*?)^```[ \t]*$",
                   re.S | re.M)
INLINE = re.compile(r"`((?:build/apps/)?daekit [^`]+)`")


def pages(root=ROOT):
    """README.md and every Markdown page of the site (docs/, recursively), sorted, without the
    dated records under docs/results/ (their commands are benchmark runs, rerun by hand)."""
    found = [os.path.join(root, "README.md")]
    found += sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
    results = os.path.join(root, "docs", "results") + os.sep
    return [p for p in found if os.path.exists(p) and not p.startswith(results)]


def page_id(path, root=ROOT):
    rel = os.path.relpath(path, root)
    return re.sub(r"[^A-Za-z0-9]+", "_", rel[:-3] if rel.endswith(".md") else rel).strip("_")


def blocks(lang, root=ROOT, include_skipped=False):
    """(page path, index on the page, code) of every fenced block in `lang` (python, cpp, sh)."""
    aliases = {"python": ("python", "py"), "cpp": ("cpp", "c++"), "sh": ("sh", "bash", "console")}
    out = []
    for path in pages(root):
        text = open(path, encoding="utf-8").read()
        k = 0
        for m in FENCE.finditer(text):
            if m.group("lang").lower() not in aliases[lang]:
                continue
            if m.group("skip") and not include_skipped:
                continue
            out.append((path, k, m.group("code")))
            k += 1
    return out


def command_lines(root=ROOT):
    """(page path, command) of every `daekit ...` command line in sh blocks and inline code."""
    out = []
    for path, _, code in blocks("sh", root):
        for line in code.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith(("daekit ", "build/apps/daekit ")):
                out.append((path, line))
    for path in pages(root):
        text = open(path, encoding="utf-8").read()
        text = FENCE.sub("", text)
        for m in INLINE.finditer(text):
            cmd = " ".join(m.group(1).split())
            if _is_template(cmd) or (path, cmd) in out:
                continue
            out.append((path, cmd))
    return out


def _is_template(cmd):
    """A command written with placeholders (NAME, <problem>, [--first I], ...) or a bare
    subcommand (`daekit solve`) is a pattern, not an example."""
    words = cmd.split()
    if words[1] in ("solve", "sweep") and (len(words) < 3 or words[2].startswith("-")):
        return True
    return any(c in cmd for c in "<>[]|") or "..." in cmd or any(
        re.fullmatch(r"[A-Z][A-Z0-9_.]*", w) for w in words)


FIXTURE = """\
  const BuiltinProblem doc_problem = make_builtin_problem("pendulum-index2");
  const MassMatrixDae& dae = doc_problem.dae;
  const double t0 = doc_problem.t0, t_end = doc_problem.t_end;
  const Vector y0 = doc_problem.y0;
  Options options;
  options.rtol = options.atol = 1e-6;
  (void)dae, (void)t0, (void)t_end, (void)y0, (void)options;
"""


def cpp_translation_unit(code, name, source):
    """The C++ block as a translation unit defining `int name()` (its main, or the fragment in a
    function with FIXTURE)."""
    lines = code.splitlines()
    head = []
    while lines and (lines[0].startswith("#include") or not lines[0].strip()
                     or lines[0].lstrip().startswith("//")):
        head.append(lines.pop(0))
    body = "\n".join(lines)
    out = ["// Generated from %s by scripts/doc_snippets.py: edit the page, not this file." % source]
    out += head
    out += ["#include <cstdio>", '#include "daekit/daekit.hpp"', ""]
    if re.search(r"\bint\s+main\s*\(", body):
        out += ["#define main %s" % name, body, "#undef main"]
    else:
        out += ["int %s() {" % name, "  using namespace daekit;", FIXTURE.rstrip("\n"), "  {",
                body, "  }", "  return 0;", "}"]
    return "\n".join(out) + "\n"


def write_cpp(outdir, root=ROOT):
    """Writes one .cpp per C++ block and doc_snippets_main.cpp (runs the snippet named by argv[1]);
    prints the snippet names (one per line) for CMake. Files are rewritten only when changed."""
    os.makedirs(outdir, exist_ok=True)
    names = []
    for path, k, code in blocks("cpp", root):
        name = "doc_snippet_%s_%d" % (page_id(path, root), k)
        names.append(name)
        _write_if_changed(os.path.join(outdir, name + ".cpp"),
                          cpp_translation_unit(code, name, os.path.relpath(path, root)))
    main = ["// Generated by scripts/doc_snippets.py: runs the documentation's C++ block argv[1].",
            "#include <cstdio>", "#include <cstring>", ""]
    main += ["int %s();" % n for n in names]
    main += ["", "int main(int argc, char** argv) {",
             "  struct Entry { const char* name; int (*run)(); };",
             "  static const Entry entries[] = {"]
    main += ['      {"%s", &%s},' % (n, n) for n in names]
    main += ['      {nullptr, nullptr}};',
             "  for (const Entry* e = entries; argc > 1 && e->name; ++e)",
             "    if (!std::strcmp(argv[1], e->name)) return e->run();",
             '  std::fprintf(stderr, "usage: daekit_doc_snippets NAME (a documentation snippet)\\n");',
             "  return 2;", "}"]
    _write_if_changed(os.path.join(outdir, "doc_snippets_main.cpp"), "\n".join(main) + "\n")
    for stale in glob.glob(os.path.join(outdir, "doc_snippet_*.cpp")):
        if os.path.basename(stale)[:-4] not in names:
            os.remove(stale)
    print(";".join(names))


def _write_if_changed(path, text):
    if os.path.exists(path) and open(path, encoding="utf-8").read() == text:
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "cpp":
        write_cpp(sys.argv[2])
    else:
        sys.stderr.write("usage: doc_snippets.py cpp OUTDIR\n")
        sys.exit(2)
