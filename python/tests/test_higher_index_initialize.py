"""initialize=True of solve_ivp beyond index 1: a pendulum with its constraint at velocity
level (index 2) and at position level (index 3), from values off the constraints by about 5e-7. The
refusal names the remedy; initialize=True then gives values that solve (it refused index 2
and 3 before: "not index 1")."""

import numpy as np
import pytest

import daekit

M = np.diag([1.0, 1.0, 1.0, 1.0, 0.0])


def exact_state(theta=0.7, omega=0.3):
    x, y = np.sin(theta), -np.cos(theta)
    u, v = omega * np.cos(theta), omega * np.sin(theta)
    return np.array([x, y, u, v, (u * u + v * v - y) / (x * x + y * y)])


def pendulum(position_level):
    def f(t, s):
        x, y, u, v, lam = s
        g = x * x + y * y - 1.0 if position_level else x * u + y * v
        return [u, v, -x * lam, -y * lam - 1.0, g]
    return f


@pytest.mark.parametrize("index", [[1, 1, 1, 1, 2], [1, 1, 2, 2, 3]])
def test_initialize_true_works_at_index_2_and_3(index):
    f = pendulum(position_level=index[-1] == 3)
    exact = exact_state()
    y0 = exact.copy()
    y0[0] += 5e-7
    y0[2] += 5e-7
    y0[4] = 0.0
    refused = daekit.solve_ivp(f, (0, 1), y0, mass=M, index=index, rtol=1e-8, atol=1e-8)
    assert refused.daekit_status == "inconsistent_initial_values"
    assert "initialize=True" in refused.message
    res = daekit.solve_ivp(f, (0, 1), y0, mass=M, index=index, initialize=True, rtol=1e-8,
                           atol=1e-8)
    assert res.success, res.message
    s0 = res.y[:, 0]
    assert abs(f(0.0, s0)[4]) <= 1e-10
    assert s0[4] == pytest.approx(exact[4], abs=1e-6)
    assert np.abs(s0[:4] - y0[:4]).max() <= 1e-6  # a small change
