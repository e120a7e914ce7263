"""A compiled right-hand side with numba (Debian: python3-numba): Van der Pol (eps = 1e-6)
solved with f as a Python function and as a numba cfunc; the cfunc runs without the GIL.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/compiled_numba.py
"""
import time

from numba import carray, cfunc

import daekit


@cfunc(daekit.numba_signature(daekit.RHS))
def vdp(t, y_, out_, n, p_, np_, user_data):
    y = carray(y_, (n,))
    out = carray(out_, (n,))
    out[0] = y[1]
    out[1] = ((1 - y[0] * y[0]) * y[1] - y[0]) / 1e-6
    return 0  # 0: ok, > 0: retry with a smaller step, < 0: fatal


def vdp_python(t, y):
    return [y[1], ((1 - y[0] ** 2) * y[1] - y[0]) / 1e-6]


for name, f in (("Python f", vdp_python), ("numba cfunc", vdp)):
    t0 = time.perf_counter()
    res = daekit.solve_ivp(f, (0, 2), [2.0, 0.0], rtol=1e-6, atol=1e-6)
    ms = 1e3 * (time.perf_counter() - t0)
    print("%-12s y(2) = (%.8f, %.8f)  %d steps  %.1f ms"
          % (name, res.y[0, -1], res.y[1, -1], res.stats["naccept"], ms))
    assert res.success
