"""The cost per call of a plain Python ``fun`` in daekit against scipy's, per evaluation.

daekit: a radau5 solve of four harmonic oscillators (n = 8, t in [0, 100], a cheap Python f so
that its own time varies little; finite-difference Jacobian) timed with the
Python f and with the same f compiled by numba (same steps, same evaluations); the overhead per
call is (time with Python f - time with the compiled f) / evaluations - the time of one call of
the Python f from a Python loop (what is left: argument conversion, array allocation, result
reading, the GIL and the signal check).
scipy: the same difference for scipy's wrapper of fun (``OdeSolver.fun``, what its Radau, BDF
and LSODA call at each evaluation: the count, ``np.asarray(fun(t, y), dtype)``), timed in a loop
against the bare f.

With vectorized=True (scipy's fun(t, Y), Y of shape (n, k)): the Brusselator with diffusion
(bench/sparsity_detection.py's, n = 40; its fun takes Y of shape (n, k) as it is), dense finite
differences, with and without it: calls of fun and time, in the last build given.

Several builds of daekit are compared in one run, interleaved (each round runs every build once
in its own process; the table shows each build's best round):

    /usr/bin/python3 bench/python_call_overhead.py /work/main/build/python build/python
"""

import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

ROUNDS = 5


RATES = None


def rotation(t, y):
    """Four harmonic oscillators of frequencies 1 .. 4 (y' = w * (y[4:], -y[:4])): a cheap f,
    so that its own time varies little from run to run."""
    return np.concatenate((RATES * y[4:], -RATES * y[:4]))


Y0 = [1.0] * 4 + [0.0] * 4
T_END = 100.0


def loop_seconds(fn, y, calls=20000):
    t0 = time.perf_counter()
    for _ in range(calls):
        fn(1.0, y)
    return (time.perf_counter() - t0) / calls


def set_rates():
    global RATES
    RATES = np.arange(1.0, 5.0)


def measure_daekit():
    """One build (the daekit on sys.path): seconds per call of f alone and overhead per call."""
    set_rates()
    from numba import carray, cfunc

    import daekit

    @cfunc(daekit.numba_signature(daekit.RHS))
    def rotation_c(t, y_, f_, n, p_, np_, ud):
        y = carray(y_, (8,))
        f = carray(f_, (8,))
        for i in range(4):
            f[i] = (i + 1.0) * y[i + 4]
            f[i + 4] = -(i + 1.0) * y[i]
        return 0

    def solve(f):
        t0 = time.perf_counter()
        r = daekit.solve_ivp(f, (0.0, T_END), Y0, rtol=1e-8, atol=1e-8, check_jacobian=False)
        return time.perf_counter() - t0, r

    solve(rotation_c)
    best_py = best_c = np.inf
    for _ in range(3):
        s, r = solve(rotation)
        best_py = min(best_py, s)
        s, rc = solve(rotation_c)
        best_c = min(best_c, s)
    assert r.nfev == rc.nfev, (r.nfev, rc.nfev)
    f_alone = min(loop_seconds(rotation, np.array(Y0)) for _ in range(3))
    return dict(nfev=r.nfev, f_alone=f_alone, overhead=(best_py - best_c) / r.nfev - f_alone,
                python_solve=best_py, compiled_solve=best_c, path=os.path.dirname(daekit.__file__))


def measure_vectorized():
    """Brusselator n = 40, radau5 rtol = atol = 1e-6: (calls, nfev, seconds) without and with
    vectorized=True, and the largest difference of the answers."""
    import daekit
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from sparsity_detection import bruss
    fun, _, _, y0 = bruss(40)
    rows = []
    for vectorized in (False, True):
        calls = [0]

        def f(t, y):
            calls[0] += 1
            return fun(t, y)
        best = np.inf
        for _ in range(3):
            calls[0] = 0
            t0 = time.perf_counter()
            r = daekit.solve_ivp(f, (0.0, 10.0), y0, rtol=1e-6, atol=1e-6, vectorized=vectorized,
                                 detect_sparsity=False)
            best = min(best, time.perf_counter() - t0)
        rows.append((vectorized, calls[0], r.nfev, r.stats["njac"], best, r.y[:, -1]))
    return rows


def measure_scipy():
    import scipy.integrate
    set_rates()
    y = np.array(Y0)
    solver = scipy.integrate.Radau(rotation, 0.0, y, T_END)
    f_alone = min(loop_seconds(rotation, y) for _ in range(3))
    wrapped = min(loop_seconds(solver.fun, y) for _ in range(3))
    return dict(f_alone=f_alone, overhead=wrapped - f_alone)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--vectorized":
        rows = measure_vectorized()
        print(json.dumps([r[:5] + (float(np.max(np.abs(r[5] - rows[0][5]))),) for r in rows]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(measure_daekit()))
        return
    builds = sys.argv[1:] or ["build/python"]
    print("date: %s UTC; machine: %s, %d CPUs, load %.2f; Python %s"
          % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
             platform.processor() or platform.machine(), os.cpu_count(), os.getloadavg()[0],
             platform.python_version()))
    print("command: /usr/bin/python3 bench/python_call_overhead.py " + " ".join(builds))
    best = {b: None for b in builds}
    for _ in range(ROUNDS):
        for b in builds:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(b))
            out = subprocess.run([sys.executable, __file__, "--child"], env=env, check=True,
                                 capture_output=True, text=True).stdout
            m = json.loads(out.strip().splitlines()[-1])
            if best[b] is None or m["overhead"] < best[b]["overhead"]:
                best[b] = m
    sp = min((measure_scipy() for _ in range(ROUNDS)), key=lambda m: m["overhead"])
    print("\nfour oscillators (n = 8), radau5 rtol = atol = 1e-8, finite-difference Jacobian; "
          "best of %d interleaved rounds\n" % ROUNDS)
    print("| caller of the Python f | f evals | f alone [us] | overhead per call [us] |")
    print("| --- | --- | --- | --- |")
    for b in builds:
        m = best[b]
        print("| daekit (%s) | %d | %.2f | %.2f |"
              % (b, m["nfev"], 1e6 * m["f_alone"], 1e6 * m["overhead"]))
    print("| scipy's OdeSolver.fun wrapper | - | %.2f | %.2f |"
          % (1e6 * sp["f_alone"], 1e6 * sp["overhead"]))
    env = dict(os.environ, PYTHONPATH=os.path.abspath(builds[-1]))
    out = subprocess.run([sys.executable, __file__, "--vectorized"], env=env, check=True,
                         capture_output=True, text=True).stdout
    print("\nBrusselator (n = 40), radau5 rtol = atol = 1e-6, dense finite-difference Jacobian, "
          "daekit %s; best of 3\n" % builds[-1])
    print("| vectorized | calls of fun | nfev | Jacobians | time [ms] | max abs difference of y(10) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for vectorized, calls, nfev, njac, seconds, diff in json.loads(out.strip().splitlines()[-1]):
        print("| %s | %d | %d | %d | %.1f | %.1e |"
              % (vectorized, calls, nfev, njac, 1e3 * seconds, diff))


if __name__ == "__main__":
    main()
