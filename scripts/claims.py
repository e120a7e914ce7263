#!/usr/bin/env python3
"""docs/claims.md, the ledger of the papers' checkable claims, generated from the inventory and
the tests (so it cannot drift from them).

The inventory, docs/claims/inventory.md, has one table per document (a heading
`## paper 000`, ..., `## notes 004`, a line `status: complete` or `status: incomplete`, then
rows `| ID | where | claim |`). A test says which claim it checks with a comment directly above
its definition (other `// claim:` lines and blank-free comments may sit between):

    // claim: 000-T2.1-radau-iia-orders
    // claim: 004-T5.3-sp-lobatto-iiic (deviation: the printed eps powers of y and z are swapped)
    TEST(Suite, Name) { ... }

in tests/test_*.cpp (TEST, TEST_F, TEST_P) and, with `# claim: ...`, above a `def test_...` in
python/tests/test_*.py. A claim is verified when at least one test names it; "(deviation: ...)"
marks a test that asserts the measured contradiction of a claim that does not hold as printed.

    /usr/bin/python3 scripts/claims.py            # rewrite docs/claims.md
    /usr/bin/python3 scripts/claims.py --check    # exit 1 when docs/claims.md differs

python/tests/test_claims.py checks the page, the IDs and that every annotated test exists.
"""
import argparse
import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
INVENTORY = os.path.join(ROOT, "docs", "claims", "inventory.md")
PAGE = os.path.join(ROOT, "docs", "claims.md")

DOC_HEADING = re.compile(r"^## (paper|notes) (\d{3})\s*$")
ROW = re.compile(r"^\|\s*(?P<id>\d{3}-[A-Za-z0-9.+-]+)\s*\|(?P<where>[^|]*)\|(?P<claim>.*)\|\s*$")
CLAIM = re.compile(r"^\s*(?://|#)\s*claim:\s*(?P<id>\S+)(?:\s+\((?P<note>deviation:.*)\))?\s*$")
# a comment line that mentions `claim: NNN-...` but is not a whole annotation: one that
# clang-format wrapped (a deviation note cut off before its closing parenthesis) or merged
# into the comment above; refused instead of being dropped silently
MENTION = re.compile(r"^\s*(?://|#).*\bclaim:\s*\d{3}-")
CPP_TEST = re.compile(r"^\s*TEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)")
PY_TEST = re.compile(r"^\s*def (test_\w+)\s*\(")


class Document:
    def __init__(self, kind, number):
        self.kind, self.number = kind, number
        self.complete = None
        self.claims = []  # (id, where, claim)

    @property
    def label(self):
        return "%s %s" % (self.kind, self.number)


def read_inventory(path=INVENTORY):
    """The documents of the inventory, in order."""
    docs, doc = [], None
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        m = DOC_HEADING.match(line)
        if m:
            doc = Document(m.group(1), m.group(2))
            docs.append(doc)
            continue
        if doc is None:
            continue
        if line.startswith("status:"):
            doc.complete = line.split(":", 1)[1].strip() == "complete"
            continue
        m = ROW.match(line)
        if m:
            cid = m.group("id")
            if not cid.startswith(doc.number + "-"):
                raise ValueError("%s:%d: %s is listed under %s" % (path, n, cid, doc.label))
            doc.claims.append((cid, m.group("where").strip(), m.group("claim").strip()))
    ids = [c[0] for d in docs for c in d.claims]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError("duplicate claim IDs in the inventory: %s" % ", ".join(dup))
    return docs


def annotations(root=ROOT):
    """(claim id, note or None, test name, kind 'cpp'|'py', file) of every annotated test."""
    out = []
    files = [(p, "cpp", CPP_TEST) for p in sorted(glob.glob(os.path.join(root, "tests", "test_*.cpp")))]
    files += [(p, "py", PY_TEST) for p in sorted(glob.glob(os.path.join(root, "python", "tests", "test_*.py")))]
    for path, kind, test_re in files:
        pending = []
        for line in open(path, encoding="utf-8"):
            m = CLAIM.match(line)
            if m:
                pending.append((m.group("id"), m.group("note")))
                continue
            if MENTION.match(line):
                raise ValueError("%s: a malformed `claim:` comment (one line, `// claim: ID` or "
                                 "`// claim: ID (deviation: ...)`, under 100 columns so that "
                                 "clang-format leaves it alone): %s"
                                 % (os.path.relpath(path, root), line.strip()))
            t = test_re.match(line)
            if t:
                name = "%s.%s" % t.groups() if kind == "cpp" else \
                    "%s::%s" % (os.path.basename(path), t.group(1))
                out.extend((cid, note, name, kind, path) for cid, note in pending)
                pending = []
                continue
            stripped = line.strip()
            if pending and not (stripped.startswith("//") or stripped.startswith("#")
                                or stripped.startswith("@")):
                raise ValueError("%s: a `claim:` comment must sit directly above a test, not "
                                 "above: %s" % (os.path.relpath(path, root), stripped))
    return out


def render(docs, notes):
    by_id = {}
    for cid, note, name, _kind, _path in notes:
        by_id.setdefault(cid, []).append((name, note))
    lines = ["# The papers' claims, test by test", "",
             "<!-- generated by scripts/claims.py from docs/claims/inventory.md and the tests' "
             "`claim:` comments: do not edit by hand -->", ""]
    for d in docs:
        verified = sum(1 for c in d.claims if c[0] in by_id)
        suffix = "" if d.complete else " (inventory incomplete: only the claims listed below)"
        lines.append("- %s: %d of %d claims verified%s" % (d.label, verified, len(d.claims), suffix))
    lines += ["",
              "Every checkable claim of the papers daekit implements ({doc}`references`) with the "
              "test that checks it: a claim counts as verified when a test asserts the paper's "
              "figure within a band that could fail. \"verified (deviation: ...)\" marks a claim "
              "that does not hold as printed: the test asserts the measured contradiction, and "
              "the theory pages give the derivation. Regenerate with "
              "`/usr/bin/python3 scripts/claims.py`; C++ test names are GoogleTest names "
              "(`build/tests/daekit_tests --gtest_filter=NAME`, parameterised ones with "
              "`--gtest_filter='*NAME*'`), Python ones are pytest names in python/tests.", ""]
    for d in docs:
        verified = sum(1 for c in d.claims if c[0] in by_id)
        lines += ["## %s" % d.label, ""]
        if not d.complete:
            lines += ["The inventory of this document is incomplete: the count covers only the "
                      "claims listed here.", ""]
        lines += ["%d of %d claims verified." % (verified, len(d.claims)), "",
                  "| ID | where | claim | test(s) |", "|---|---|---|---|"]
        for cid, where, claim in d.claims:
            tests = by_id.get(cid)
            if not tests:
                cell = "not verified"
            else:
                cell = "; ".join("`%s`%s" % (name, " verified (%s)" % note if note else "")
                                   for name, note in tests)
            lines.append("| %s | %s | %s | %s |" % (cid, where, claim, cell))
        lines.append("")
    return "\n".join(lines)


def unknown_ids(docs, notes):
    known = {c[0] for d in docs for c in d.claims}
    return sorted({(cid, name) for cid, _n, name, _k, _p in notes if cid not in known})


def generate():
    docs = read_inventory()
    notes = annotations()
    bad = unknown_ids(docs, notes)
    if bad:
        raise ValueError("tests name claims the inventory does not list: %s"
                         % ", ".join("%s (%s)" % b for b in bad))
    return render(docs, notes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/claims.md is stale")
    args = ap.parse_args()
    text = generate()
    if args.check:
        current = open(PAGE, encoding="utf-8").read() if os.path.exists(PAGE) else ""
        if current != text:
            print("docs/claims.md is stale: run /usr/bin/python3 scripts/claims.py", file=sys.stderr)
            return 1
        return 0
    with open(PAGE, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
