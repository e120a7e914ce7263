"""radau and radau5 at rtol = 1e-9 and 1e-10 on every built-in DAE with a reference (a mass
matrix that may be singular: the floors of the internal rtol' apply).

Below rtol = 1e-8 (kRadauDaeRtolFloor) radau keeps at most 5 stages with the fixed-stage floors
of rtol' (src/methods/radau.cpp). Prints per problem and rtol: status, scd, f evaluations (with
the difference Jacobians') and the number of warnings of each method, from
`daekit solve P --method M --rtol T --atol T' --json` (atol' = T times the problem's
atol / rtol). Results: docs/results/tolerance-meaning.md ("Eighth session").

    PYTHONPATH=build/python /usr/bin/python3 bench/radau_tight_daes.py [build/apps/daekit]
"""
import json
import math
import os
import subprocess
import sys

import numpy as np

import daekit

cli = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "apps", "daekit")


def may_be_singular(mass):
    """M is not the identity or a diagonal without zeros (radau's may_be_singular in src/methods/radau.cpp)."""
    if mass is None:
        return False
    M = np.asarray(mass.todense() if hasattr(mass, "todense") else mass)
    if M.ndim == 1:
        return bool((M == 0).any())
    return not (np.count_nonzero(M - np.diag(np.diag(M))) == 0 and (np.diag(M) != 0).all())


def cell(run):
    scd = run["scd"]
    return "%-8s %6s %7d %d" % (run["status"][:8], "-" if scd is None else "%.2f" % scd,
                               run["stats"]["nfev"] + run["stats"]["nfev_jac"],
                               len(run["warnings"]))


def main():
    below = []
    print("%-22s %6s | %-33s | %-33s" % ("problem", "rtol", "radau: status scd f warnings",
                                         "radau5: status scd f warnings"))
    for name in daekit.problems():
        bp = daekit.problem(name)
        if bp.reference is None or not may_be_singular(bp.mass):
            continue
        for rtol in (1e-9, 1e-10):
            atol = rtol * bp.atol / bp.rtol
            runs = {}
            for method in ("radau", "radau5"):
                out = subprocess.run([cli, "solve", name, "--method", method, "--rtol", repr(rtol),
                                      "--atol", repr(atol), "--json"], capture_output=True,
                                     text=True, check=False)
                runs[method] = json.loads(out.stdout)
                run = runs[method]
                if run["scd"] is None or run["scd"] < -math.log10(rtol) - 1 or run["warnings"]:
                    below.append("%s %s at %.0e" % (method, name, rtol))
            print("%-22s %6.0e | %s | %s" % (name, rtol, cell(runs["radau"]), cell(runs["radau5"])))
    print("\nbelow -log10(rtol) - 1 or with a warning: %s" % (", ".join(below) or "none"))


if __name__ == "__main__":
    main()
