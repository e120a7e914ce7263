"""What rtol means: daekit's radau5 and radau against scipy's Radau at the same rtol (issue 24).

Runs build/bench/daekit_tolerance_meaning --csv (radau5 and radau with their default tolerance
handling, and with RADAU5's transformation rtol' = 0.1 rtol^(2/3): transform_tolerances = true)
on every built-in problem with a reference and on HIRES and POLLU of the IVP Test Set, at
rtol = 1e-4 ... 1e-10 (atol_i = rtol (atol/rtol of the problem) atol_scale_i), and solves the
ODE problems among them (constant nonsingular diagonal mass matrix: y' = f / m) with
scipy.integrate.solve_ivp(method="Radau") at the same rtol and atol, measured the same way (scd
over the problem's scd_components; mescd where a component lies below its atol).

Prints per problem and rtol the digits and the cost (accepted steps / f evaluations, those of
difference Jacobians included) and checks the acceptance of issue 24: radau5's digits at least
scipy's where scipy solves the problem (ODEs), at least -log10(rtol) - 1 elsewhere. Exit status
1 if a check fails.

    PYTHONPATH=build/python /usr/bin/python3 bench/tolerance_vs_scipy.py [build/bench/daekit_tolerance_meaning]
"""

import json
import math
import os
import platform
import subprocess
import sys
import warnings

import numpy as np
import scipy
import scipy.integrate

import daekit


def hires_f(t, y):
    r = 280.0 * y[5] * y[7]
    return np.array([
        -1.71 * y[0] + 0.43 * y[1] + 8.32 * y[2] + 0.0007,
        1.71 * y[0] - 8.75 * y[1],
        -10.03 * y[2] + 0.43 * y[3] + 0.035 * y[4],
        8.32 * y[1] + 1.71 * y[2] - 1.12 * y[3],
        -1.745 * y[4] + 0.43 * y[5] + 0.43 * y[6],
        -r + 0.69 * y[3] + 1.71 * y[4] - 0.43 * y[5] + 0.69 * y[6],
        r - 1.81 * y[6],
        -r + 1.81 * y[6]])


POLLU_K = [.35, .266e2, .123e5, .86e-3, .82e-3, .15e5, .13e-3, .24e5, .165e5, .9e4, .22e-1,
           .12e5, .188e1, .163e5, .48e7, .35e-3, .175e-1, .1e9, .444e12, .124e4, .21e1, .578e1,
           .474e-1, .178e4, .312e1]
# reaction j: rate k_j times the product of the species (0-based) listed
POLLU_RATE = [(0,), (1, 3), (4, 1), (6,), (6,), (6, 5), (8,), (8, 5), (10, 1), (10, 0), (12,),
              (9, 1), (13,), (0, 5), (2,), (3,), (3,), (15,), (15,), (16, 5), (18,), (18,),
              (0, 3), (18, 0), (19,)]
# species i: (reactions consuming it, reactions producing it; a repeated entry counts twice)
POLLU_BALANCE = [
    ((0, 9, 13, 22, 23), (1, 2, 8, 10, 11, 21, 24)), ((1, 2, 8, 11), (0, 20)),
    ((14,), (0, 16, 18, 21)), ((1, 15, 16, 22), (14,)), ((2,), (3, 3, 5, 6, 12, 19)),
    ((5, 7, 13, 19), (2, 17, 17)), ((3, 4, 5), (12,)), ((), (3, 4, 5, 6)), ((6, 7), ()),
    ((11,), (6, 8)), ((8, 9), (7, 10)), ((), (8,)), ((10,), (9,)), ((12,), (11,)), ((), (13,)),
    ((17, 18), (15,)), ((19,), ()), ((), (19,)), ((20, 21, 23), (22, 24)), ((24,), (23,))]


def pollu_f(t, y):
    r = [k * np.prod([y[i] for i in species]) for k, species in zip(POLLU_K, POLLU_RATE)]
    return np.array([sum(r[j] for j in prod) - sum(r[j] for j in cons)
                     for cons, prod in POLLU_BALANCE])


LOCAL = {"hires": hires_f, "pollu": pollu_f}


def floats(text):
    return [float(v) for v in text.split(";")] if text else []


def read_daekit(binary):
    out = subprocess.run([binary, "--csv"], check=True, capture_output=True, text=True).stdout
    problems, runs = {}, {}
    for line in out.splitlines():
        cells = line.split(",")
        if cells[0] == "#problem":
            name = cells[1]
            problems[name] = dict(
                name=name, ode=cells[2] == "1", measure=cells[3], ratio=float(cells[4]),
                t0=float(cells[5]), t_end=float(cells[6]),
                comps=[int(c) for c in floats(cells[7])], ref=np.array(floats(cells[8])),
                y0=np.array(floats(cells[9])), atol_scale=np.array(floats(cells[10])),
                mass=np.array(floats(cells[11])))
        elif not cells[0].startswith("#"):
            name, variant, rtol, status, _, d, naccept, nsteps, nfev, nfev_jac = cells[:10]
            runs[name, variant, float(rtol)] = dict(
                status=status, digits=float(d), steps=int(naccept), fev=int(nfev) + int(nfev_jac))
    return problems, runs


def digits(y, p, rtol):
    atol = rtol * p["ratio"] * p["atol_scale"]
    worst = 0.0
    for i in p["comps"]:
        ref, err = p["ref"][i], abs(y[i] - p["ref"][i])
        if p["measure"] == "mescd":
            e = err / (atol[i] / rtol + abs(ref))
        else:
            e = err / abs(ref) if ref != 0 else err
        if not math.isfinite(e):
            return -math.inf
        worst = max(worst, e)
    return -math.log10(worst if worst > 0 else 1e-16)


def scipy_radau(p, rtol):
    if p["name"] in LOCAL:
        fun = LOCAL[p["name"]]
    else:
        rhs, m = daekit.problem(p["name"]).problem, p["mass"]
        fun = lambda t, y: rhs.f(t, y) / m  # noqa: E731
    atol = rtol * p["ratio"] * p["atol_scale"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = scipy.integrate.solve_ivp(fun, (p["t0"], p["t_end"]), p["y0"], method="Radau",
                                        rtol=rtol, atol=atol)
    if not sol.success:
        return dict(status="failed", digits=math.nan, steps=len(sol.t) - 1, fev=sol.nfev)
    # scipy's nfev leaves out the evaluations of its difference Jacobians (one vectorized call
    # of n columns each): counted as n, as daekit's nfev_jac counts them
    return dict(status="success", digits=digits(sol.y[:, -1], p, rtol), steps=len(sol.t) - 1,
                fev=sol.nfev + sol.njev * len(p["y0"]))


def cell(run):
    if run is None:
        return "%7s %12s" % ("-", "")
    if run["status"] != "success":
        return "%7s %12s" % (run["status"][:7], "")
    return "%7.2f %12s" % (run["digits"], "%d/%d" % (run["steps"], run["fev"]))


def outside_scd(cli, problems, rtols):
    """The index-2/3 components scd leaves out (the multipliers, index3-chain's y3), radau5 and
    radau by `daekit solve P --json` (component_digits): the lowest digits among them and its
    component, at each rtol."""
    if not os.path.exists(cli):
        print("\n(%s not found: no table of the components outside scd)" % cli)
        return
    print("\nindex-2/3 components outside scd (daekit solve P --method M --rtol T --atol T' "
          "--json): scd / the lowest digits among them (component)")
    for name in problems:
        bp = daekit.problem(name) if name in daekit.problems() else None
        if bp is None or not bp.scd_components:
            continue
        index = list(bp.index) or [1] * bp.n
        outside = [i for i in range(bp.n) if i not in bp.scd_components and index[i] >= 2]
        if not outside:
            continue
        for method in ("radau5", "radau"):
            cells = []
            for rtol in rtols:
                atol = rtol * bp.atol / bp.rtol
                out = subprocess.run([cli, "solve", name, "--method", method, "--rtol", repr(rtol),
                                      "--atol", repr(atol), "--json"], capture_output=True,
                                     text=True, check=False)
                run = json.loads(out.stdout) if out.stdout.strip() else {}
                d = run.get("component_digits")
                if run.get("status") != "success" or not d:
                    cells.append("%-17s" % run.get("status", "no output"))
                    continue
                low = min(outside, key=lambda i: d[i] if d[i] is not None else -99)
                cells.append("%5.2f / %5.2f %-5s" % (run["scd"], d[low] if d[low] is not None
                                                     else float("nan"),
                                                     run["component_names"][low][:5]))
            print("%-16s %-6s %s" % (name[:16], method, " ".join(cells)))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        root, "build", "bench", "daekit_tolerance_meaning")
    problems, runs = read_daekit(binary)
    rtols = sorted({k[2] for k in runs}, reverse=True)
    print("daekit %s, scipy %s, numpy %s, Python %s, %s" % (
        daekit.__version__ if hasattr(daekit, "__version__") else "?", scipy.__version__,
        np.__version__, platform.python_version(), platform.platform()))
    print("digits (scd, or mescd where marked) and cost (accepted steps / f evaluations, "
          "difference Jacobians included)\n")
    head = "%-22s %6s | %-20s | %-20s | %-20s | %-20s | %-20s" % (
        "problem", "rtol", "radau5", "radau5 RADAU5-tol", "scipy Radau", "radau",
        "radau RADAU-tol")
    print(head)
    print("-" * len(head))
    failures = []
    totals = {}
    for name, p in problems.items():
        for rtol in rtols:
            new = runs.get((name, "radau5", rtol))
            old = runs.get((name, "radau5-transformed", rtol))
            sp = scipy_radau(p, rtol) if p["ode"] else None
            rnew = runs.get((name, "radau", rtol))
            rold = runs.get((name, "radau-transformed", rtol))
            label = name + (" (mescd)" if p["measure"] == "mescd" else "")
            print("%-22s %6.0e | %s | %s | %s | %s | %s" % (
                label[:22], rtol, cell(new), cell(old), cell(sp), cell(rnew), cell(rold)))
            for key, run in (("radau5", new), ("radau5-transformed", old), ("scipy", sp),
                             ("radau", rnew), ("radau-transformed", rold)):
                if run is not None and run["status"] == "success":
                    t = totals.setdefault(key, [0, 0])
                    t[0] += run["steps"]
                    t[1] += run["fev"]
            ok_scipy = sp is not None and sp["status"] == "success"
            bound = sp["digits"] if ok_scipy else -math.log10(rtol) - 1
            what = "scipy's %.2f" % bound if ok_scipy else "-log10(rtol) - 1 = %.0f" % bound
            if new is None or new["status"] != "success":
                failures.append("%s at rtol %.0e: radau5 %s" % (
                    name, rtol, new["status"] if new else "not run"))
            elif new["digits"] < bound - 1e-9:
                failures.append("%s at rtol %.0e: radau5 %.2f digits, below %s" % (
                    name, rtol, new["digits"], what))
    outside_scd(os.path.join(os.path.dirname(os.path.dirname(binary)), "apps", "daekit"),
                problems, rtols)
    print("\ntotals over the successful runs (accepted steps / f evaluations):")
    for key, (steps, fev) in totals.items():
        print("  %-20s %8d / %d" % (key, steps, fev))
    print("\nacceptance (radau5 >= scipy's Radau on ODEs, >= -log10(rtol) - 1 elsewhere): %s" % (
        "met" if not failures else "%d below" % len(failures)))
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
