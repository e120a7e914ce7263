#!/usr/bin/env python3
"""Write cmake/hot_functions.txt: the functions small solves run, in the order the linker puts
them first in the binaries' text (CMakeLists.txt, DAEKIT_HOT_LAYOUT).

    /usr/bin/python3 scripts/hot_functions.py build/apps/daekit [--output cmake/hot_functions.txt]

Why: a solve of a small problem in a fresh process (the daekit command, a script's first solve)
pays a page fault for every 64 KB window of code it is the first to touch (the kernel maps
file pages 16 at a time), and a TLB miss for every page. With the library's functions where
the linker happens to put them, a radau5 solve of truck-index3 ran code on 161 pages in 32
windows of the 4.6 MB text, and 20-25 of its ~300 us went to page faults
(docs/results/small-problem-speed.md, seventh session). The library is compiled with
-ffunction-sections and linked by lld with this list as --symbol-ordering-file: listed
functions come first, in the list's order; unknown names are skipped, so a stale list only
loses some of the gain.

How: callgrind (valgrind) runs the cases of bench/compare_builds.py and radau on the same
problems, once counting inside daekit::solve only and once the whole run. The functions run
inside a solve come first, those run by more of the cases before the others, then by their
instructions; then the rest of the command's functions (start-up, problem set-up, output).
Names are the symbols' (mangled); BINARY must be built with DAEKIT_HOT_LAYOUT (its function
names, e.g. GCC's .constprop clones, are those of a -ffunction-sections build).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

TRANSFORM = ["--option", "transform_tolerances=true"]
CASES = []
for _method in ("radau5", "radau"):
    CASES += [
        ["pendulum", "--method", _method, "--rtol", "1e-7", "--atol", "1e-7"] + TRANSFORM,
        ["andrews", "--method", _method, "--rtol", "1e-7", "--atol", "1e-7", "--h0", "1e-7"] +
        TRANSFORM,
        ["transistor", "--method", _method, "--rtol", "1e-7", "--atol", "1e-7", "--h0", "1e-7"] +
        TRANSFORM,
        ["akzo", "--method", _method, "--rtol", "1e-7", "--atol", "1e-7"] + TRANSFORM,
        ["vanderpol", "--method", _method, "--rtol", "1e-7", "--atol", "1e-7"] + TRANSFORM,
        ["truck-index3", "--method", _method, "--rtol", "1e-7", "--atol", "1e-7"] + TRANSFORM,
    ]
CASES += [
    ["transistor", "--method", "bdf", "--rtol", "1e-7", "--atol", "1e-7", "--h0", "1e-7"],
    ["akzo", "--method", "bdf", "--rtol", "1e-7", "--atol", "1e-7"],
    ["vanderpol", "--method", "bdf", "--rtol", "1e-7", "--atol", "1e-7"],
    ["pendulum-index2", "--method", "bdf", "--rtol", "1e-7", "--atol", "1e-7"],
]


def self_costs(path, binary):
    """Instructions per function of `binary` itself (not its libraries) in a callgrind file."""
    cost = collections.Counter()
    objects, functions = {}, {}
    fn = None
    mine = False  # the current object is `binary`
    after_calls = False
    name = re.compile(r"c?(?:ob|fn)=\((\d+)\)(?: (.*))?")
    with open(path) as f:
        for line in f:
            if line.startswith(("ob=", "cob=", "fn=", "cfn=")):
                m = name.match(line.strip())
                table = objects if "ob=" in line[:4] else functions
                if m.group(2):
                    table[m.group(1)] = m.group(2)
                if line.startswith("ob="):
                    mine = os.path.realpath(objects[m.group(1)]) == os.path.realpath(binary)
                elif line.startswith("fn="):
                    fn = functions[m.group(1)]
            elif line.startswith("calls="):
                after_calls = True  # the next cost line is the call's inclusive cost
            elif line[:1] in "0123456789+-*":
                if after_calls:
                    after_calls = False
                    continue
                parts = line.split()
                if len(parts) >= 2 and mine:
                    cost[fn] += int(parts[1])
    return {
f: c for f, c in cost.items() if c > 0 and f.startswith("_Z")}


def profile(binary, case, inside, workdir):
    out = os.path.join(workdir, "callgrind.out")
    toggle = ["--collect-atstart=no", "--toggle-collect=_ZN6daekit5solveE*"] if inside else []
    subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", "--callgrind-out-file=" + out]
                   + toggle + [binary, "solve"] + case + ["--json"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return self_costs(out, binary)


def ranked(profiles):
    """Functions by the number of profiles that run them, then by their instructions."""
    runs, total = collections.Counter(), collections.Counter()
    for p in profiles:
        for f, c in p.items():
            runs[f] += 1
            total[f] += c
    return sorted(runs, key=lambda f: (-runs[f], -total[f], f))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--output",
                    default=os.path.normpath(os.path.join(here, "..", "cmake", "hot_functions.txt")))
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    inside, whole = [], []
    with tempfile.TemporaryDirectory() as workdir:
        for case in CASES:
            print("profiling", " ".join(case), file=sys.stderr)
            inside.append(profile(binary, case, True, workdir))
            whole.append(profile(binary, case, False, workdir))
    first = ranked(inside)
    seen = set(first)
    order = first + [f for f in ranked(whole) if f not in seen]
    with open(a.output, "w") as f:
        f.write("# The functions small solves run, first in the text of every binary linked with the\n"
                "# library (DAEKIT_HOT_LAYOUT; lld's --symbol-ordering-file). Written by\n"
                "# scripts/hot_functions.py (the why and how are there); do not edit by hand.\n")
        f.write("# %d functions run inside daekit::solve, then %d more of the command's.\n" %
                (len(first), len(order) - len(first)))
        for name in order:
            f.write(name + "\n")
    print("wrote %s: %d functions" % (a.output, len(order)), file=sys.stderr)


if __name__ == "__main__":
    main()
