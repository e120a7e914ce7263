"""method="auto": the method picked from the problem's index tags, size and rtol."""

import numpy as np
import pytest

import daekit


def linear_decay(t, y):
    return -y


@pytest.mark.parametrize("n, rtol, extra, method", [
    (3, 1e-3, {}, "radau5"),
    (3, 1e-8, {}, "radau"),
    (300, 1e-3, {}, "bdf"),
    (300, 1e-8, {}, "radau"),
])
def test_auto_picks_by_size_and_tolerance(n, rtol, extra, method):
    r = daekit.solve_ivp(linear_decay, (0, 1), np.ones(n), method="auto", rtol=rtol,
                         atol=1e-10, **extra)
    assert r.success
    assert r.method == method and r.method_choice.startswith(method + ":")
    np.testing.assert_allclose(r.y[:, -1], np.exp(-1.0), rtol=1e-2)


def test_auto_takes_radau_for_higher_index():
    p = daekit.problem("pendulum")
    r = p.solve("auto")
    assert r.success and r.method == "radau" and "index-3" in r.method_choice


def test_auto_on_builtin_problems_follows_their_rtol():
    assert daekit.solve_problem("food-web", "auto").method == "bdf"
    assert daekit.solve_problem("vanderpol", "auto").method == "radau5"


def test_without_auto_no_choice_is_reported():
    r = daekit.solve_ivp(linear_decay, (0, 1), np.ones(2))
    assert r.method == "radau5" and r.method_choice is None
