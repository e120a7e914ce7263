# The step of whole-solve differences against S (docs/results/sensitivities.md):
#   /usr/bin/python3 docs/results/sensitivities_fd_step.py [build/apps/daekit]
import json, subprocess, numpy as np
import os, sys
cli = sys.argv[1] if len(sys.argv) > 1 else "build/apps/daekit"
def sweep(prob, vals, tend, tol):
    out = subprocess.run([cli, "sweep", prob, "--values", ",".join("%.17g" % v for v in vals),
                          "--t-end", str(tend), "--rtol", str(tol), "--atol", str(tol)],
                         capture_output=True, text=True, check=True).stdout
    return [np.array(json.loads(l)["y"]) for l in out.splitlines()]
def sens(prob, tend, tol):
    d = json.loads(subprocess.run([cli, "solve", prob, "--t-end", str(tend), "--rtol", str(tol), "--atol", str(tol),
                                   "--sensitivities", "--json"], capture_output=True, text=True, check=True).stdout)
    return np.array(d["sensitivities"])[:, 0]
for prob, p0, tend, rows in [("andrews", 0.033, 0.03, slice(0, 7)), ("transistor", 6.0, 0.2, slice(0, 8))]:
    S = sens(prob, tend, 1e-8)[rows]
    print(prob, "S vs:")
    for tol in (1e-10, 1e-12):
        for rel in (1e-6, 1e-5, 1e-4, 1e-3, 1e-2):
            d = rel * p0
            ym2, ym1, yp1, yp2 = sweep(prob, [p0 - 2*d, p0 - d, p0 + d, p0 + 2*d], tend, tol)
            c1 = (yp1 - ym1)[rows] / (2*d); c2 = (yp2 - ym2)[rows] / (4*d)
            rich = (4*c1 - c2) / 3
            sc = np.abs(rich).max()
            print("  tol %g step %g: central %.1e  Richardson %.1e" % (tol, rel, np.abs(S-c1).max()/sc, np.abs(S-rich).max()/sc))
