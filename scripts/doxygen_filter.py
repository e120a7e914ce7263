#!/usr/bin/env python3
"""Doxygen input filter for daekit's headers (docs/Doxyfile: INPUT_FILTER): the headers document
themselves in plain `//` comments, which Doxygen ignores, so this filter hands them to Doxygen
as documentation without touching the files:
  - the comment block at the top of a header becomes the file's description (\\file);
  - a `//` comment line of its own becomes `///` (documents the declaration below it);
  - a trailing `// text` after a member, enumerator or parameter line ending in `;` or `,`
    becomes `///< text` (documents that member).
Everything else passes unchanged (one line is added, the \\file line)."""
import re
import sys

COMMENT = re.compile(r"^(\s*)//(?!/)(.*)$")
TRAILING = re.compile(r"^(.*[;,])(\s*)//(?![/<])(.*)$")


def filter_lines(lines):
    out = []
    head = True  # still in the header's leading comment block
    for k, line in enumerate(lines):
        m = COMMENT.match(line)
        if head and m and not line.startswith(" "):
            if k == 0:
                out.append("/// \\file")  # the block belongs to this file (one line added)
            out.append("///" + m.group(2))
            continue
        head = False
        if m:
            out.append(m.group(1) + "///" + m.group(2))
            continue
        t = TRAILING.match(line)
        if t and '"' not in t.group(1):
            out.append(t.group(1) + t.group(2) + "///<" + t.group(3))
            continue
        out.append(line)
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    sys.stdout.write("\n".join(filter_lines(lines)))


if __name__ == "__main__":
    main()
