"""scipy's vectorized=True: fun(t, Y) for Y of shape (n, k); the finite-difference Jacobian's
columns (all, or the column groups of jac_sparsity) in one call of fun."""

import numpy as np
import pytest

import daekit


def chain_rhs(t, y):
    """A stiff reaction chain (n = 6), for a vectorized fun: y of shape (n,) or (n, k)."""
    k = np.array([1.0, 10.0, 100.0, 1e3, 1e4, 1e5])[:, None] if y.ndim == 2 else \
        np.array([1.0, 10.0, 100.0, 1e3, 1e4, 1e5])
    out = -k * y
    out[1:] += (k * y)[:-1]
    out[0] += 0.1 * y[-1] ** 2
    return out


def counting(fun):
    calls = [0]

    def f(t, y):
        calls[0] += 1
        return fun(t, y)
    return f, calls


@pytest.mark.parametrize("sparsity", [None, "banded", "pattern"])
def test_vectorized_same_answer_fewer_calls(sparsity):
    n = 6
    y0 = np.linspace(1.0, 0.5, n)
    pattern = np.eye(n) + np.eye(n, k=-1)
    pattern[0, -1] = 1
    extra = {}
    if sparsity == "banded":
        extra = dict(jac_sparsity=daekit.banded(n - 1, 0))
    elif sparsity == "pattern":
        extra = dict(jac_sparsity=pattern)
    f1, calls1 = counting(chain_rhs)
    fv, callsv = counting(chain_rhs)
    one = daekit.solve_ivp(f1, (0, 10), y0, rtol=1e-8, atol=1e-10, **extra)
    vec = daekit.solve_ivp(fv, (0, 10), y0, rtol=1e-8, atol=1e-10, vectorized=True, **extra)
    assert one.success and vec.success, vec.message
    np.testing.assert_allclose(vec.y[:, -1], one.y[:, -1], rtol=1e-7, atol=1e-12)
    assert callsv[0] < calls1[0]
    assert vec.nfev == callsv[0]
    # every Jacobian is one call of fun
    assert vec.stats["nfev_jac"] == vec.stats["njac"]


def test_vectorized_wrong_shape_is_a_callback_error():
    r = daekit.solve_ivp(lambda t, y: chain_rhs(t, y)[:, 0], (0, 1), np.ones(6),
                         vectorized=True)
    assert r.daekit_status == "callback_error"
    assert "vectorized" in r.message and "(6, 1)" in r.message


def test_vectorized_needs_a_python_fun():
    prob = daekit.problem("vanderpol").problem
    with pytest.raises(TypeError, match="vectorized"):
        daekit.solve_ivp(prob, (0, 1), [2.0, 0.0], vectorized=True)
