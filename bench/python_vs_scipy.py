"""daekit from Python against scipy.integrate.solve_ivp at equal accuracy, in one run.

Van der Pol (eps = 1e-6, t in [0, 2]) and Robertson (t in [0, 1e11]) with
  daekit radau5, Python f and Jacobian;   daekit radau5, numba-compiled f and Jacobian;
  scipy Radau, BDF and LSODA (Python f and Jacobian; Robertson as an ODE: scipy has no mass
  matrix, daekit solves it as the DAE M = diag(1, 1, 0)).
HIRES and POLLU (IVP Test Set) and the Brusselator with diffusion (Hairer-Wanner II, IV.10,
n = 40) with a plain Python f only, as a new user writes them (no Jacobian, no pattern: both
libraries take finite differences): daekit radau5 against scipy Radau, BDF and LSODA; the
reference is scipy's Radau at rtol = 1e-12.
With --builds A B ...: the daekit rows run once per build (each in its own process, PYTHONPATH
= the build's python directory), interleaved with the scipy rows, for before/after tables.
Each solver runs over a ladder of tolerances (half decades); the table shows, per solver, the
first (loosest) run that reaches the target number of significant correct digits (scd against the problem's
reference), so that the times compare equal accuracy. Times: best of 5, CPU time of
the process (both libraries solve in the calling thread; the wall clock of a shared machine
measures the other users).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_vs_scipy.py
    PYTHONPATH=build/python /usr/bin/python3 bench/python_vs_scipy.py --builds /work/main/build/python build/python
"""

import json
import os
import platform
import subprocess
import sys
import time

import numpy as np
import scipy
import scipy.integrate
from numba import carray, cfunc

import daekit

EPS = 1e-6


def vdp_f(t, y):
    return np.array([y[1], ((1 - y[0] ** 2) * y[1] - y[0]) / EPS])


def vdp_jac(t, y):
    return np.array([[0.0, 1.0], [(-2 * y[0] * y[1] - 1) / EPS, (1 - y[0] ** 2) / EPS]])


@cfunc(daekit.numba_signature(daekit.RHS))
def vdp_f_c(t, y_, out_, n, p_, np_, ud):
    y = carray(y_, (2,))
    out = carray(out_, (2,))
    out[0] = y[1]
    out[1] = ((1 - y[0] * y[0]) * y[1] - y[0]) / 1e-6
    return 0


@cfunc(daekit.numba_signature(daekit.RHS))
def vdp_jac_c(t, y_, J_, n, p_, np_, ud):
    y = carray(y_, (2,))
    J = carray(J_, (4,))
    J[0] = 0.0
    J[1] = (-2 * y[0] * y[1] - 1) / 1e-6
    J[2] = 1.0
    J[3] = (1 - y[0] * y[0]) / 1e-6
    return 0


def rober_dae(t, y):
    return np.array([-0.04 * y[0] + 1e4 * y[1] * y[2],
                     0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] ** 2,
                     y[0] + y[1] + y[2] - 1])


def rober_dae_jac(t, y):
    return np.array([[-0.04, 1e4 * y[2], 1e4 * y[1]],
                     [0.04, -1e4 * y[2] - 6e7 * y[1], -1e4 * y[1]],
                     [1.0, 1.0, 1.0]])


def rober_ode(t, y):
    return np.array([-0.04 * y[0] + 1e4 * y[1] * y[2],
                     0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] ** 2,
                     3e7 * y[1] ** 2])


def rober_ode_jac(t, y):
    return np.array([[-0.04, 1e4 * y[2], 1e4 * y[1]],
                     [0.04, -1e4 * y[2] - 6e7 * y[1], -1e4 * y[1]],
                     [0.0, 6e7 * y[1], 0.0]])


@cfunc(daekit.numba_signature(daekit.RHS))
def rober_f_c(t, y_, f_, n, p_, np_, ud):
    y = carray(y_, (3,))
    f = carray(f_, (3,))
    f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2]
    f[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1]
    f[2] = y[0] + y[1] + y[2] - 1
    return 0


@cfunc(daekit.numba_signature(daekit.RHS))
def rober_jac_c(t, y_, J_, n, p_, np_, ud):
    y = carray(y_, (3,))
    J = carray(J_, (9,))
    J[0] = -0.04
    J[1] = 0.04
    J[2] = 1.0
    J[3] = 1e4 * y[2]
    J[4] = -1e4 * y[2] - 6e7 * y[1]
    J[5] = 1.0
    J[6] = 1e4 * y[1]
    J[7] = -1e4 * y[1]
    J[8] = 1.0
    return 0


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sparsity_detection import bruss  # noqa: E402
from tolerance_vs_scipy import hires_f, pollu_f  # noqa: E402

HIRES_Y0 = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0057])
POLLU_Y0 = np.zeros(20)
POLLU_Y0[[1, 3, 6, 7, 8, 16]] = [0.2, 0.04, 0.1, 0.3, 0.01, 0.007]


def best_of(fn, repeats=5):
    """The best CPU time of this process (time.process_time) over `repeats` calls: both
    libraries solve in this thread, and on a shared machine the wall clock measures the other
    users' load (measured: the same daekit solve 32-73 ms wall at 32-33 ms CPU)."""
    best, res = np.inf, None
    for _ in range(repeats):
        t0 = time.process_time()
        res = fn()
        best = min(best, time.process_time() - t0)
    return best, res


_REFERENCES = {}


def reference(problem):
    """The problem's reference solution at t_end: daekit's own where it has one, else scipy's
    Radau at rtol = 1e-12 (computed once)."""
    if problem not in _REFERENCES:
        if problem in ("vanderpol", "robertson"):
            p = daekit.problem(problem)
            _REFERENCES[problem] = (p.reference["y"], p.scd_components)
        else:
            fun, t_span, y0 = LOCAL[problem]()
            r = scipy.integrate.solve_ivp(fun, t_span, y0, method="Radau", rtol=1e-12,
                                          atol=1e-14)
            _REFERENCES[problem] = (r.y[:, -1], None)
    return _REFERENCES[problem]


def run(problem, target, tolerances, solvers):
    ref, comps = reference(problem)
    rows = []
    for label, make in solvers:
        chosen = None
        for rtol, atol in tolerances:
            seconds, y, nfev, steps = make(rtol, atol)
            digits = daekit.scd(y, ref, comps) if y is not None else float("nan")
            chosen = (label, rtol, atol, digits, seconds, nfev, steps)
            if digits >= target:
                break
        rows.append(chosen)
    return rows


def daekit_solver(fun, jac, mass=None, t_span=None, y0=None):
    def make(rtol, atol):
        seconds, res = best_of(lambda: daekit.solve_ivp(fun, t_span, y0, jac=jac, mass=mass,
                                                        rtol=rtol, atol=atol))
        return seconds, res.y[:, -1] if res.success else None, res.nfev, res.stats["naccept"]
    return make


def scipy_solver(method, fun, jac, t_span, y0):
    def make(rtol, atol):
        seconds, res = best_of(lambda: scipy.integrate.solve_ivp(
            fun, t_span, y0, method=method, jac=jac, rtol=rtol, atol=atol))
        return seconds, res.y[:, -1] if res.success else None, res.nfev, res.t.size - 1
    return make


LOCAL = {
    "hires": lambda: (hires_f, (0.0, 321.8122), HIRES_Y0),
    "pollu": lambda: (pollu_f, (0.0, 60.0), POLLU_Y0),
    "brusselator": lambda: (bruss(40)[0], (0.0, 10.0), bruss(40)[3]),
}


def cases(with_numba=True):
    """(problem, target scd, tolerances, [(label, make), ...]) for every problem."""
    vdp = dict(t_span=(0.0, 2.0), y0=np.array([2.0, 0.0]))
    # half-decade ladders, the same for every solver: with decades the first tolerance that
    # reaches the target may overshoot it by up to a decade of accuracy, whoever it is
    vdp_tols = [(10.0 ** (-k / 2), 10.0 ** (-k / 2)) for k in range(8, 21)]
    rober = dict(t_span=(0.0, 1e11), y0=np.array([1.0, 0.0, 0.0]))
    rober_tols = [(10.0 ** (-k / 2), 10.0 ** (-k / 2 - 6)) for k in range(8, 21)]
    M = np.diag([1.0, 1.0, 0.0])
    scipy_methods = ("Radau", "BDF", "LSODA")
    out = [
        ("vanderpol", 6, vdp_tols,
         [("daekit radau5, Python f + jac", daekit_solver(vdp_f, vdp_jac, **vdp))]
         + ([("daekit radau5, numba f + jac", daekit_solver(vdp_f_c, vdp_jac_c, **vdp))]
            if with_numba else [])
         + [("scipy " + m, scipy_solver(m, vdp_f, vdp_jac, **vdp)) for m in scipy_methods]),
        ("robertson", 6, rober_tols,
         [("daekit radau5 DAE, Python f + jac",
           daekit_solver(rober_dae, rober_dae_jac, M, **rober))]
         + ([("daekit radau5 DAE, numba f + jac",
              daekit_solver(rober_f_c, rober_jac_c, M, **rober))] if with_numba else [])
         + [("scipy %s (ODE form)" % m, scipy_solver(m, rober_ode, rober_ode_jac, **rober))
            for m in scipy_methods]),
    ]
    for problem, target, atol_factor in (("hires", 5, 1e-4), ("pollu", 5, 1e-4),
                                         ("brusselator", 5, 1.0)):
        fun, t_span, y0 = LOCAL[problem]()
        tols = [(10.0 ** (-k / 2), atol_factor * 10.0 ** (-k / 2)) for k in range(6, 23)]
        out.append((problem, target, tols,
                    [("daekit radau5, Python f", daekit_solver(fun, None, t_span=t_span, y0=y0))]
                    + [("scipy " + m, scipy_solver(m, fun, None, t_span, y0))
                       for m in scipy_methods]))
    return out


def print_rows(rows, tag=""):
    for label, rtol, atol, digits, seconds, nfev, steps in rows:
        print("| %s%s | %.1e | %.1e | %.2f | %.2f | %d | %d |"
              % (label, tag, rtol, atol, digits, 1e3 * seconds, nfev, steps))


def child(problem):
    """The daekit rows of one problem (JSON), for --builds."""
    for name, target, tols, solvers in cases(with_numba=False):
        if name == problem:
            daekit_rows = [s for s in solvers if s[0].startswith("daekit")]
            print(json.dumps(run(name, target, tols, daekit_rows)))


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return
    builds = sys.argv[sys.argv.index("--builds") + 1:] if "--builds" in sys.argv else []
    print("date: %s UTC; machine: %s, %s, %d CPUs, load %.2f; numpy %s, scipy %s, daekit %s"
          % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
             platform.processor() or platform.machine(),
             platform.python_version(), os.cpu_count(), os.getloadavg()[0], np.__version__,
             scipy.__version__, daekit.__version__))
    print("command: /usr/bin/python3 bench/python_vs_scipy.py" + "".join(" " + a for a in sys.argv[1:]))
    # warm up numba and the module
    daekit.solve_ivp(vdp_f_c, (0, 0.01), [2.0, 0.0], jac=vdp_jac_c)
    for problem, target, tols, solvers in cases(with_numba=not builds):
        print("\n%s: first tolerance reaching scd >= %d (CPU time, best of 5)\n" % (problem, target))
        print("| solver | rtol | atol | scd | time [ms] | f evals | steps |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        if builds:
            solvers = [s for s in solvers if not s[0].startswith("daekit")]
        print_rows(run(problem, target, tols, solvers))
        for b in builds:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(b))
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", problem],
                                 env=env, check=True, capture_output=True, text=True).stdout
            print_rows(json.loads(out.strip().splitlines()[-1]), " (%s)" % b)


if __name__ == "__main__":
    main()
