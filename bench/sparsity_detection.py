"""Automatic Jacobian structure (issue 29): a 1-D reaction-diffusion problem written in Python
as a new user would (plain numpy fun, no jac_sparsity) against the same solve with the pattern
declared, and an analytic sparse Jacobian (dense array or scipy sparse) given with
jac_sparsity=banded(2, 2).

The problem: the Brusselator with diffusion of Hairer-Wanner II, IV.10 (BRUSS), N grid points,
u and v interleaved (y = u_1, v_1, u_2, v_2, ...), n = 2N: its Jacobian lies in the band (2, 2).

Run (from the worktree, after building build/python):
    PYTHONPATH=build/python /usr/bin/python3 bench/sparsity_detection.py [--n 1000] [--repeat 3]
Prints one line per configuration: wall time (best of --repeat), steps, f evaluations (scipy's
nfev: all of them), the backend and the structure daekit used.
"""
import argparse
import time

import numpy as np
import scipy.sparse

import daekit

ALPHA = 1.0 / 50.0


def bruss(n):
    N = n // 2
    c = ALPHA * (N + 1) ** 2
    x = np.arange(1, N + 1) / (N + 1)
    y0 = np.empty(n)
    y0[0::2] = 1.0 + np.sin(2 * np.pi * x)
    y0[1::2] = 3.0

    def fun(t, y):
        u = y[0::2]
        v = y[1::2]
        lap_u = -2.0 * u
        lap_u[1:] += u[:-1]
        lap_u[:-1] += u[1:]
        lap_u[0] += 1.0
        lap_u[-1] += 1.0
        lap_v = -2.0 * v
        lap_v[1:] += v[:-1]
        lap_v[:-1] += v[1:]
        lap_v[0] += 3.0
        lap_v[-1] += 3.0
        out = np.empty_like(y)
        uuv = u * u * v
        out[0::2] = 1.0 + uuv - 4.0 * u + c * lap_u
        out[1::2] = 3.0 * u - uuv + c * lap_v
        return out

    def jac_parts(y):
        u = y[0::2]
        v = y[1::2]
        rows, cols, vals = [], [], []
        iu = np.arange(0, n, 2)
        iv = iu + 1
        for r, cc, val in ((iu, iu, 2 * u * v - 4.0 - 2 * c), (iu, iv, u * u),
                           (iv, iu, 3.0 - 2 * u * v), (iv, iv, -u * u - 2 * c),
                           (iu[1:], iu[:-1], np.full(N - 1, c)), (iu[:-1], iu[1:], np.full(N - 1, c)),
                           (iv[1:], iv[:-1], np.full(N - 1, c)), (iv[:-1], iv[1:], np.full(N - 1, c))):
            rows.append(r)
            cols.append(cc)
            vals.append(val)
        return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)

    def jac_sparse(t, y):
        r, cc, val = jac_parts(y)
        return scipy.sparse.csc_matrix((val, (r, cc)), shape=(n, n))

    def jac_dense(t, y):
        r, cc, val = jac_parts(y)
        J = np.zeros((n, n))
        np.add.at(J, (r, cc), val)
        return J

    return fun, jac_sparse, jac_dense, y0


def run(label, repeat, **kw):
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        r = daekit.solve_ivp(**kw)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    assert r.success, r.message
    # (r.get: the same script times a build before issue 29, which had no jacobian_structure)
    print("%-44s %8.3f s  steps %5d  nfev %6d  %-10s %s" % (
        label, best, r.stats["naccept"], r.nfev, r.linear_solver,
        r.get("jacobian_structure", "-")))
    return best, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--method", default="radau5")
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--skip-dense", action="store_true",
                    help="skip the no-pattern run on a build without detection")
    a = ap.parse_args()
    fun, jac_sparse, jac_dense, y0 = bruss(a.n)
    common = dict(fun=fun, t_span=(0.0, 10.0), y0=y0, method=a.method, rtol=a.rtol, atol=a.rtol)
    print("BRUSS 1-D, n = %d, %s, rtol = atol = %g, t in [0, 10]" % (a.n, a.method, a.rtol))
    declared, ref = run("declared banded(2, 2), differences", a.repeat,
                        jac_sparsity=daekit.banded(2, 2), **common)
    if a.skip_dense and "jacobian_structure" not in daekit.solve_ivp(fun, (0.0, 1e-9), y0):
        print("no pattern: skipped (--skip-dense on a build without detection: the dense path "
              "takes minutes)")
        detected, r = float("nan"), ref
    else:
        detected, r = run("no pattern (detected)", a.repeat, **common)
    print("  max |y - y_declared| = %.2e" % np.max(np.abs(r.y[:, -1] - ref.y[:, -1])))
    analytic, _ = run("analytic scipy-sparse jac + banded(2, 2)", a.repeat, jac=jac_sparse,
                      jac_sparsity=daekit.banded(2, 2), **common)
    run("analytic dense-array jac + banded(2, 2)", a.repeat, jac=jac_dense,
        jac_sparsity=daekit.banded(2, 2), **common)
    run("analytic scipy-sparse jac, no pattern", a.repeat, jac=jac_sparse, **common)
    print("no pattern / declared: %.2fx (acceptance: within 2x)" % (detected / declared))
    print("analytic scipy-sparse jac / declared with differences: %.2fx" % (analytic / declared))
    print("rerun: PYTHONPATH=build/python /usr/bin/python3 bench/sparsity_detection.py "
          "--n %d --method %s --rtol %g" % (a.n, a.method, a.rtol))


if __name__ == "__main__":
    main()
