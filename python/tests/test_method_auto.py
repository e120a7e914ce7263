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


def _cli_json(cli, *args):
    import json
    import subprocess
    proc = subprocess.run([cli, "solve", *args, "--json"], capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout), proc.stderr


@pytest.mark.parametrize("name", daekit.problems())
def test_the_command_line_and_python_choose_alike(cli, name):
    # one rule (the compiled core's daekit::auto_method) for both front ends: the command
    # line's --method auto names the method and the rule in --json's method_choice and on
    # the error stream, as Python's result does
    p = daekit.problem(name)
    method, rule = daekit._ivp._auto_method(p.n, list(p.index), p.rtol)
    out, err = _cli_json(cli, name, "--method", "auto", "--t-end", repr(p.t0 + 1e-9 *
                                                                       (p.t_end - p.t0)))
    assert out["method"] == method and out["method_choice"] == rule
    assert "method auto: " + rule in err


def test_the_command_line_without_auto_reports_no_choice(cli):
    out, _ = _cli_json(cli, "vanderpol", "--t-end", "0.01")
    assert out["method"] == "radau5" and out["method_choice"] is None
