#!/usr/bin/env python3
"""radau5 and radau at loose tolerances on the built-in problems with index-3 components.

Newton's stopping level there: RADAU5's min(0.03, sqrt(rtol')) against the default, which caps it
at 1e-3 on problems with index-3 components (src/methods/radau.cpp, kNewtonCapIndex3). RADAU5's
level is given as the option newton_tolerance = sqrt(rtol'), rtol' = 0.1 rtol (the default
internal tolerance), which repeats the former default run bit for bit at these tolerances.
Prints scd and f evaluations (difference Jacobians included) per rtol, '<' where scd is below
-log10(rtol) - 1, and per problem the runs below that line and the f ratio.

Usage: /usr/bin/python3 bench/index3_loose_tolerances.py [build/apps/daekit]
"""
import json
import math
import subprocess
import sys

PROBLEMS = ["pendulum-driven", "pendulum", "andrews", "slider-crank", "index3-chain"]
RTOLS = [1e-5, 1.5e-5, 2e-5, 3e-5, 4e-5, 5e-5, 6e-5, 7e-5, 8e-5, 9e-5, 1e-4, 1.1e-4, 1.25e-4,
         1.4e-4, 1.6e-4, 2e-4, 3e-4, 5e-4, 7e-4, 1e-3]


def run(daekit, problem, method, rtol, options):
    cmd = [daekit, "solve", problem, "--method", method, "--rtol", repr(rtol), "--atol",
           repr(rtol), "--json"]
    for o in options:
        cmd += ["--option", o]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    d = json.loads(out)
    if d["status"] != "success":
        return float("nan"), 0
    s = d["stats"]
    return d["scd"], s["nfev"] + s["nfev_jac"]


def cell(digits, f, line):
    mark = "<" if not digits >= line else " "
    return "%5.2f%s%6d" % (digits, mark, f)


def main():
    daekit = sys.argv[1] if len(sys.argv) > 1 else "build/apps/daekit"
    print("scd and f per rtol ('<': below -log10(rtol) - 1); radau5 with RADAU5's Newton level "
          "(newton_tolerance = sqrt(0.1 rtol)), radau5 and radau by default\n")
    print("%-16s %8s %6s | %-13s | %-13s | %-13s" %
          ("problem", "rtol", "line", "radau5 RADAU5", "radau5", "radau"))
    total = {}
    for p in PROBLEMS:
        below = [0, 0, 0]
        fsum = [0, 0, 0]
        for t in RTOLS:
            line = -math.log10(t) - 1
            runs = [run(daekit, p, "radau5", t, ["newton_tolerance=%r" % math.sqrt(0.1 * t)]),
                    run(daekit, p, "radau5", t, []),
                    run(daekit, p, "radau", t, [])]
            for i, (d, f) in enumerate(runs):
                below[i] += not d >= line
                fsum[i] += f
            print("%-16s %8.3g %6.2f | %s | %s | %s" %
                  (p, t, line, *(cell(d, f, line) for d, f in runs)), flush=True)
        total[p] = (below, fsum)
    print("\nper problem over the %d tolerances: runs below the line, f / RADAU5's level's f" %
          len(RTOLS))
    for p, (below, fsum) in total.items():
        print("%-16s radau5 RADAU5 level %2d below | radau5 %2d below, f %.3fx | radau %2d below" %
              (p, below[0], below[1], fsum[1] / fsum[0], below[2]))
    print("\nrerun: /usr/bin/python3 bench/index3_loose_tolerances.py %s" % daekit)


if __name__ == "__main__":
    main()
