"""What users read cites papers by author and year (docs/references.md), never the file names of
the project's reading notes ("NOTES-004.md"), and `daekit --help` says about the methods what
`daekit methods` says."""
import os
import re
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Where users see text: messages and problem descriptions (src/, apps/), the public headers
# (the API reference), the Python module and the documentation site.
USER_VISIBLE = ["src", "apps", "include", "python", "docs", "README.md"]
NOTES_FILE = re.compile(r"NOTES-[0-9]")


def _files():
    for top in USER_VISIBLE:
        path = os.path.join(ROOT, top)
        if os.path.isfile(path):
            yield path
            continue
        for dirpath, _, names in os.walk(path):
            for name in names:
                if name.endswith((".cpp", ".hpp", ".h", ".py", ".md", ".cmake", ".txt", ".rst")):
                    yield os.path.join(dirpath, name)


def test_no_reading_notes_file_is_cited_where_users_read():
    this = os.path.abspath(__file__)
    hits = []
    for path in _files():
        if os.path.abspath(path) == this:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for k, line in enumerate(f, 1):
                if NOTES_FILE.search(line):
                    hits.append("%s:%d: %s" % (os.path.relpath(path, ROOT), k, line.strip()))
    assert not hits, "cite the paper (docs/references.md), not the reading notes:\n" + "\n".join(hits)


def _methods_table(cli):
    """name -> highest index, from `daekit methods` (the registry's table)."""
    out = subprocess.run([cli, "methods"], capture_output=True, text=True, check=True).stdout
    table, name = {}, None
    for line in out.splitlines()[2:]:
        if line and not line.startswith(" "):
            name = line.split()[0]
        m = re.search(r"index <= (\d)", line)
        if name and m and name not in table:
            table[name] = int(m.group(1))
    return table


def _help_methods(cli):
    """name -> highest index, from the --method paragraph of `daekit --help`."""
    out = subprocess.run([cli, "--help"], capture_output=True, text=True, check=True).stdout
    start = out.index("--method NAME")
    end = out.index("\n  --", start + 1)
    text = " ".join(out[start:end].split())
    text = text[text.index(":") + 1:]
    found = {}
    for m in re.finditer(r"([a-z0-9-]+) \(((?:[^()]|\([^()]*\))*)\)", text):
        index = re.search(r"index <= (\d)", m.group(2))
        if index:
            found[m.group(1)] = int(index.group(1))
    return found


def test_help_agrees_with_methods(cli):
    table = _methods_table(cli)
    assert len(table) >= 9, table
    assert _help_methods(cli) == table
