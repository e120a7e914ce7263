"""Impasse points (Bendtsen and Thomsen (1999), ch. 7) from Python: ``solve_ivp(...,
impasse=True)`` and ``BuiltinProblem.solve(impasse=True)`` run the compiled
``solve_with_impasses``: the accessible point of the notes' example is located at t = 1 and
passed, an inaccessible one (solutions leave it) does not stop the solve; bad settings are
refused naming the argument."""

import math

import numpy as np
import pytest

import daekit


# claim: 004-7-impasse-passed
# claim: 004-7-accessible
def test_builtin_impasse_is_located_and_passed():
    res = daekit.solve_problem("impasse", impasse=True)
    imp = res.impasse
    assert imp is not None and imp["passed"], res.message
    assert abs(imp["t"] - 1.0) < 1e-9
    assert np.max(np.abs(imp["x"][:2])) < 1e-6
    assert imp["accessible"] and abs(imp["alpha"] + 2.0) < 1e-3
    assert "impasse point of the DAE at t = 1" in res.message
    # the curve: on x2 = -x1^2; x1 > 0 before the point, < 0 after it, t running backward
    xc, tc, s, gamma = imp["x_curve"], imp["t_curve"], imp["s"], imp["gamma"]
    assert xc.shape == (3, len(tc)) and len(s) == len(tc) == len(gamma)
    assert np.max(np.abs(xc[1] + xc[0] ** 2)) < 1e-9
    past = s > 0.05
    assert np.all(xc[0][past] < 0) and np.all(gamma[past] < 0)
    # before the point the ordinary solve followed x = (sqrt(1 - t), t - 1)
    assert abs(res.y[0, -1] - math.sqrt(1 - res.t[-1])) < 1e-6


# claim: 004-7-inaccessible
# claim: 004-7-inaccessible-leaves
def test_inaccessible_point_does_not_stop_the_solve():
    """x2' = 1, 0 = x1^2 - x2 from 1e-3 next to its inaccessible point (alpha = +2): the
    solution leaves it, the solve runs through on x = (sqrt(t + 1e-6), t + 1e-6)."""
    def f(t, y):
        return [1.0, y[0] ** 2 - y[1]]

    res = daekit.solve_ivp(f, (0, 1), [1e-3, 1e-6], mass=[[0, 1], [0, 0]], rtol=1e-8,
                           atol=1e-8, impasse=True)
    assert res.impasse is None
    assert res.success, res.message
    assert abs(res.y[0, -1] - math.sqrt(1 + 1e-6)) < 1e-7


def test_solve_ivp_with_a_python_problem():
    def f(t, y):
        return [1.0, y[0] ** 2 + y[1]]

    res = daekit.solve_ivp(f, (0, 1.5), [1.0, -1.0], mass=[[0, 1], [0, 0]], rtol=1e-8,
                           atol=1e-8, impasse={"arc_length": 0.1, "ds": 2e-3})
    imp = res.impasse
    assert imp["passed"] and imp["accessible"]
    assert abs(imp["t"] - 1.0) < 1e-9
    assert len(imp["t_curve"]) == 51
    # without impasse= the same solve stalls before t = 1 with no passage
    plain = daekit.solve_ivp(f, (0, 1.5), [1.0, -1.0], mass=[[0, 1], [0, 0]], rtol=1e-8,
                             atol=1e-8)
    assert not plain.success and "impasse" not in plain


def test_bad_impasse_settings_are_refused():
    mass = [[0, 1], [0, 0]]

    def f(t, y):
        return [1.0, y[0] ** 2 + y[1]]

    with pytest.raises(TypeError, match="impasse must be True, False or a dict"):
        daekit.solve_ivp(f, (0, 1), [1.0, -1.0], mass=mass, impasse="yes")
    with pytest.raises(TypeError, match="unknown setting.*dss"):
        daekit.solve_ivp(f, (0, 1), [1.0, -1.0], mass=mass, impasse={"dss": 1e-3})
    with pytest.raises(TypeError, match="ds must be a number"):
        daekit.solve_ivp(f, (0, 1), [1.0, -1.0], mass=mass, impasse={"ds": "small"})
    with pytest.raises(ValueError, match="ds, arc_length"):
        daekit.solve_ivp(f, (0, 1), [1.0, -1.0], mass=mass, impasse={"ds": -1.0})
    # an ODE has no impasse points
    with pytest.raises(ValueError, match="regular"):
        daekit.solve_ivp(lambda t, y: -y, (0, 1), [1.0], impasse=True)
