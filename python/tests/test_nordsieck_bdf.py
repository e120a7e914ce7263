"""The notes' BDF experiments from Python (Bendtsen and Thomsen (1999), ch. 4 and 10): the BDF of
fixed order reaches the notes' Example 4.1 through ``solve_dae``'s keyword ``fixed_order``, and
the DNA method (``nordsieck-bdf``: Nordsieck form, Milne's estimate, order <= 4 by default)
through ``method=`` with its option ``order``; the command line reaches both through
``--option``."""

import json
import math
import subprocess

import numpy as np
import pytest

import daekit


# claim: 004-eq4.1-implicit-euler
def test_example_4_1_with_fixed_order_one():
    """Implicit Euler (bdf, fixed_order=1) at constant steps on y1' = y2, y2' = y3,
    0 = y1 - sin x from the inconsistent (0.3, 5, -7): y1 exact, the errors of y2 and y3 at
    x = 1 those of the notes' table, halving with h."""
    def chain(t, y, yp):
        return [yp[0] - y[1], yp[1] - y[2], y[0] - math.sin(t)]

    expected = {0.1: (0.0411, 0.0588), 0.05: (0.0208, 0.0282), 0.025: (0.0105, 0.0138)}
    for h, (e2, e3) in expected.items():
        res = daekit.solve_dae(chain, (0, 1), [0.3, 5, -7], [0, 0, 0], method="bdf",
                               fixed_order=1, fixed_step=True, first_step=h,
                               check_consistency=False, index=[1, 2, 3], rtol=1e-10,
                               atol=1e-10)
        assert res.success, res.message
        y = res.y[:, -1]
        assert abs(y[0] - math.sin(1)) < 1e-9
        assert abs(abs(y[1] - math.cos(1)) - e2) < 6e-4
        assert abs(abs(y[2] + math.sin(1)) - e3) < 6e-4
        assert res.method_options["fixed_order"] == 1


# claim: 004-eq4.1-implicit-euler
def test_example_4_1_on_the_builtin_index3_chain():
    """The built-in (mass-matrix form, consistent start): implicit Euler at constant steps keeps
    y1 = sin x; y2, y3 converge with order 1, with the errors of the notes' table (their
    inconsistent start is forgotten within two steps).  Variable steps are refused at index 3."""
    errs = []
    table = {0.05: (0.0208, 0.0282), 0.025: (0.0105, 0.0138)}
    for h in (0.05, 0.025):
        res = daekit.solve_problem("index3-chain", method="bdf", fixed_order=1, fixed_step=True,
                                   first_step=h, rtol=1e-10, atol=1e-10)
        assert res.success, res.message
        y = res.y[:, -1]
        assert abs(y[0] - math.sin(1)) < 1e-9
        errs.append((abs(y[1] - math.cos(1)), abs(y[2] + math.sin(1))))
        assert abs(errs[-1][0] - table[h][0]) < 6e-4 and abs(errs[-1][1] - table[h][1]) < 6e-4
    assert abs(errs[0][0] / errs[1][0] - 2) < 0.15 and abs(errs[0][1] / errs[1][1] - 2) < 0.15
    with pytest.raises(ValueError, match="BDF does not take index-3"):
        daekit.solve_problem("index3-chain", method="bdf")


# claim: 004-10-order-limit
def test_nordsieck_bdf_order_from_python():
    """Order q of nordsieck-bdf at constant steps on y' = -y + cos t: errors at t = 1 for
    h = 1/32, 1/64 fall by 2^q (q = 1..4, DNA's range); the default order is 4."""
    exact = 0.5 * (math.cos(1) + math.sin(1)) + 0.5 * math.exp(-1)
    for q in (1, 2, 3, 4):
        errs = []
        for h in (1 / 32, 1 / 64):
            res = daekit.solve_ivp(lambda t, y: -y + math.cos(t), (0, 1), [1.0],
                                   method="nordsieck-bdf", order=q, fixed_step=True,
                                   first_step=h, rtol=1e-13, atol=1e-13)
            assert res.success, res.message
            assert res.method_options["order"] == q
            errs.append(abs(res.y[0, -1] - exact))
        assert abs(math.log2(errs[0] / errs[1]) - q) < 0.3, (q, errs)
    options = {o["name"]: o for o in daekit.method_info("nordsieck-bdf")["options"]}
    assert options["order"]["default"] == 4
    with pytest.raises(ValueError, match="order"):
        daekit.solve_ivp(lambda t, y: -y, (0, 1), [1.0], method="nordsieck-bdf", order=6)


def test_nordsieck_bdf_on_a_stiff_dae_from_python_and_the_cli(cli):
    res = daekit.solve_problem("akzo", method="nordsieck-bdf", order=3)  # index 1
    assert res.success, res.message
    assert res.scd > 3.5  # measured 4.00 (the algebraic y6 out of the error test)
    out = subprocess.run([cli, "solve", "akzo", "--method", "nordsieck-bdf", "--option",
                          "order=3", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    j = json.loads(out.stdout)
    assert j["method_options"]["order"] == 3 and j["scd"] > 3.5
    assert j["excluded_from_error_test"] == [5]  # the algebraic component, as DNA
