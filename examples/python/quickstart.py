"""daekit from Python in a few lines: an ODE with scipy's API, Robertson's DAE with a singular
mass matrix (which scipy's solve_ivp cannot take), and a built-in problem with its report.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/quickstart.py
"""
import numpy as np

import daekit

# 1. scipy's call, daekit's solver: the result has scipy's fields (t, y, sol, nfev, ...).
res = daekit.solve_ivp(lambda t, y: [y[1], -y[0]], (0, 10), [0.0, 1.0], method="radau5",
                       rtol=1e-8, atol=1e-10, dense_output=True)
print("harmonic oscillator: y(10) = %.8f (sin 10 = %.8f), %d steps, nfev %d"
      % (res.y[0, -1], np.sin(10), res.stats["naccept"], res.nfev))
print("  dense output: y(3.3) = %.8f (sin 3.3 = %.8f)" % (res.sol(3.3)[0], np.sin(3.3)))


# 2. Robertson as a DAE: M = diag(1, 1, 0), the third equation 0 = y1 + y2 + y3 - 1.
def robertson(t, y):
    return [-0.04 * y[0] + 1e4 * y[1] * y[2],
            0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] ** 2,
            y[0] + y[1] + y[2] - 1]


res = daekit.solve_ivp(robertson, (0, 1e11), [1, 0, 0], mass=np.diag([1.0, 1.0, 0.0]),
                       rtol=1e-6, atol=1e-12, nonnegative=[0, 1, 2])
print("Robertson DAE: %s after %d steps, y(1e11) = %s"
      % (res.daekit_status, res.stats["naccept"], res.y[:, -1]))

# 3. A built-in problem with its recommended settings: the report of `daekit solve`.
res = daekit.solve_problem("andrews")
print(res.report())
assert res.success and res.scd > 4
