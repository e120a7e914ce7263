"""The Jacobian structure of a problem that declares none is detected at t0 (issue 29): plain
numpy functions of large n get banded or sparse solvers, the evaluations are counted in nfev,
the Jacobian check at t0 is counted and coloured, and a Python jac given with a structure is
read into it."""
import numpy as np
import pytest
import scipy.sparse

import daekit


def _chain(n):
    """y_i' = -2 y_i + 0.5 (y_{i-1} + y_{i+1}) - y_i^3: a tridiagonal Jacobian."""
    def fun(t, y):
        out = -2.0 * y - y ** 3
        out[1:] += 0.5 * y[:-1]
        out[:-1] += 0.5 * y[1:]
        return out

    def jac(t, y):
        main = -2.0 - 3.0 * y ** 2
        off = np.full(n - 1, 0.5)
        return scipy.sparse.diags([off, main, off], [-1, 0, 1], format="csc")

    return fun, jac, np.linspace(0.5, 1.5, n)


def test_plain_fun_of_large_n_gets_the_detected_band():
    n = 300
    fun, _, y0 = _chain(n)
    r = daekit.solve_ivp(fun, (0.0, 1.0), y0, rtol=1e-8, atol=1e-8)
    ref = daekit.solve_ivp(fun, (0.0, 1.0), y0, rtol=1e-8, atol=1e-8,
                           jac_sparsity=daekit.banded(1, 1))
    assert r.success, r.message
    assert r.linear_solver == "banded LU"
    assert r.jacobian_structure.startswith("detected"), r.jacobian_structure
    assert "banded (1, 1)" in r.jacobian_structure
    # f(y0), one call per column, f(y1), two per colour of the tridiagonal pattern
    assert r.stats["nfev_structure"] == 1 + n + 1 + 2 * 3
    assert r.nfev == sum(r.stats[k] for k in ("nfev", "nfev_jac", "nfev_check", "nfev_structure"))
    assert ref.jacobian_structure == "declared banded (1, 1)"
    assert ref.stats["nfev_structure"] == 0
    np.testing.assert_allclose(r.y[:, -1], ref.y[:, -1], rtol=1e-6, atol=1e-9)


def test_small_or_switched_off_problems_are_not_detected():
    fun, _, y0 = _chain(30)
    r = daekit.solve_ivp(fun, (0.0, 1.0), y0)
    assert r.stats["nfev_structure"] == 0
    assert "not detected" in r.jacobian_structure
    fun, _, y0 = _chain(300)
    r = daekit.solve_ivp(fun, (0.0, 1.0), y0, detect_sparsity=False)
    assert r.stats["nfev_structure"] == 0
    assert r.linear_solver == "dense LU"
    r = daekit.solve_ivp(fun, (0.0, 1.0), y0, detect_sparsity_min_n=1000)
    assert r.stats["nfev_structure"] == 0


def test_jacobian_check_is_counted_and_coloured_for_large_n():
    n = 400
    fun, jac, y0 = _chain(n)
    r = daekit.solve_ivp(fun, (0.0, 1.0), y0, jac=jac, jac_sparsity=daekit.banded(1, 1))
    assert r.success, r.message
    assert r.stats["nfev_check"] == 2 * 3 + 1  # three colours, one central pair each, f(y0)
    assert r.nfev >= r.stats["nfev"] + r.stats["nfev_check"]
    off = daekit.solve_ivp(fun, (0.0, 1.0), y0, jac=jac, jac_sparsity=daekit.banded(1, 1),
                           check_jacobian=False)
    assert off.stats["nfev_check"] == 0


@pytest.mark.parametrize("kind", ["scipy", "dense"])
def test_python_jac_with_a_band_is_read_into_the_band(kind):
    n = 200
    fun, jac, y0 = _chain(n)
    given = jac if kind == "scipy" else (lambda t, y: jac(t, y).toarray())
    r = daekit.solve_ivp(fun, (0.0, 2.0), y0, jac=given, jac_sparsity=daekit.banded(1, 1),
                         rtol=1e-8, atol=1e-8)
    ref = daekit.solve_ivp(fun, (0.0, 2.0), y0, jac_sparsity=daekit.banded(1, 1),
                           rtol=1e-8, atol=1e-8)
    assert r.success, r.message
    assert r.linear_solver == "banded LU"
    np.testing.assert_allclose(r.y[:, -1], ref.y[:, -1], rtol=1e-6, atol=1e-9)


def test_python_jac_with_an_entry_outside_the_band_is_an_error():
    n = 100
    fun, jac, y0 = _chain(n)

    def wrong(t, y):
        J = jac(t, y).toarray()
        J[0, 5] = 1.0
        return J

    r = daekit.solve_ivp(fun, (0.0, 1.0), y0, jac=wrong, jac_sparsity=daekit.banded(1, 1),
                         check_jacobian=False)
    assert not r.success
    assert r.daekit_status == "callback_error"
    assert "(0, 5)" in r.message and "outside jac_sparsity" in r.message


def test_implicit_python_jacobians_with_a_band_are_read_into_it():
    """F = y' - f(y) with (dF/dy, dF/dy') from Python, banded: the same answer as differences;
    a non-zero outside the band is an error naming it."""
    n = 120
    fun, jac, y0 = _chain(n)

    def F(t, y, yp):
        return yp - fun(t, y)

    def F_y(t, y, yp):
        return -jac(t, y)

    def F_yp(t, y, yp):
        return scipy.sparse.identity(n, format="csc")

    yp0 = fun(0.0, y0)
    ref = daekit.solve_dae(F, (0.0, 1.0), y0, yp0, rtol=1e-8, atol=1e-8,
                           jac_sparsity=daekit.banded(1, 1))
    r = daekit.solve_dae(F, (0.0, 1.0), y0, yp0, rtol=1e-8, atol=1e-8, jac=(F_y, F_yp),
                         jac_sparsity=daekit.banded(1, 1))
    assert r.success, r.message
    assert r.linear_solver == "banded LU"
    np.testing.assert_allclose(r.y[:, -1], ref.y[:, -1], rtol=1e-6, atol=1e-9)

    def F_yp_wrong(t, y, yp):
        D = np.eye(n)
        D[3, 0] = 0.5
        return D

    bad = daekit.solve_dae(F, (0.0, 1.0), y0, yp0, jac=(F_y, F_yp_wrong),
                           jac_sparsity=daekit.banded(1, 1), check_jacobian=False)
    assert not bad.success
    assert "(3, 0)" in bad.message and "outside jac_sparsity" in bad.message
