"""radau5 with a plain Python f and no jac: evaluations of f (Jacobians included) and scd per
tolerance with the default for Python difference Jacobians (jacobian_reuse_theta = 0.1 when
the Jacobian takes more column groups than radau5 has stages) against RADAU5's 0.001, on
HIRES, POLLU, the Brusselator with diffusion (n = 40) and Robertson (n = 3, where the default
keeps 0.001). Counts, not times: deterministic. Reference: scipy's Radau at rtol = 1e-12.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_jacobian_reuse.py
"""

import os
import sys

import numpy as np
import scipy.integrate

import daekit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_vs_scipy import HIRES_Y0, POLLU_Y0, rober_ode  # noqa: E402
from sparsity_detection import bruss  # noqa: E402
from tolerance_vs_scipy import hires_f, pollu_f  # noqa: E402

PROBLEMS = [
    ("hires", hires_f, (0.0, 321.8122), HIRES_Y0, 1e-4),
    ("pollu", pollu_f, (0.0, 60.0), POLLU_Y0, 1e-4),
    ("brusselator", bruss(40)[0], (0.0, 10.0), bruss(40)[3], 1.0),
    ("robertson", rober_ode, (0.0, 40.0), np.array([1.0, 0.0, 0.0]), 1e-6),
]


def main():
    print("command: PYTHONPATH=build/python /usr/bin/python3 bench/python_jacobian_reuse.py")
    print("radau5, plain Python f (no jac); nfev = every evaluation of f, the Jacobians' "
          "included;\nthe default (Python difference Jacobian) against "
          "jacobian_reuse_theta = 0.001 (RADAU5's)\n")
    print("| problem | rtol | default theta | nfev | njev | scd | theta 0.001: nfev | njev | scd |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, fun, span, y0, atol_factor in PROBLEMS:
        ref = scipy.integrate.solve_ivp(fun, span, y0, method="Radau", rtol=1e-12,
                                        atol=1e-14 * atol_factor).y[:, -1]
        for k in range(6, 13):
            rtol = 10.0 ** (-k / 2)
            kw = dict(method="radau5", rtol=rtol, atol=atol_factor * rtol)
            new = daekit.solve_ivp(fun, span, y0, **kw)
            old = daekit.solve_ivp(fun, span, y0, jacobian_reuse_theta=0.001, **kw)
            print("| %s | %.1e | %g | %d | %d | %.2f | %d | %d | %.2f |"
                  % (name, rtol, new.method_options["jacobian_reuse_theta"], new.nfev, new.njev,
                     daekit.scd(new.y[:, -1], ref), old.nfev, old.njev,
                     daekit.scd(old.y[:, -1], ref)))


if __name__ == "__main__":
    main()
