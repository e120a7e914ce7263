"""method="auto": the method picked from the problem's form, index tags, size and rtol, the
default of the command line and of daekit's own Python entry points (not of solve_ivp, which
keeps scipy's kind of default: one fixed method)."""

import json

import numpy as np
import pytest

import daekit


def linear_decay(t, y):
    return -y


@pytest.mark.parametrize("n, rtol, extra, method", [
    (3, 1e-3, {}, "radau5"),
    (3, 1e-8, {}, "radau"),
    # large n is radau5's too: bdf was 4.5x radau5's time on air-pipe-1000 (n = 6000)
    (300, 1e-3, {}, "radau5"),
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
    assert daekit.solve_problem("food-web", "auto").method == "radau5"
    assert daekit.solve_problem("vanderpol", "auto").method == "radau5"
    assert daekit.solve_problem("truck", "auto").method == "radau"  # rtol 1e-8


def test_without_auto_no_choice_is_reported():
    # solve_ivp's default is scipy's kind: one fixed method, whatever n and rtol
    r = daekit.solve_ivp(linear_decay, (0, 1), np.ones(2))
    assert r.method == "radau5" and r.method_choice is None
    r = daekit.solve_ivp(linear_decay, (0, 1), np.ones(2), rtol=1e-8, atol=1e-10)
    assert r.method == "radau5" and r.method_choice is None
    assert daekit.problem("pendulum").solve("radau5").method_choice is None


def test_the_defaults_of_daekits_own_entry_points_are_auto():
    # one default across the front ends: daekit solve NAME, problem(NAME).solve(),
    # solve_problem, solve_many, Integrator (auto), solve_dae (auto: bdf for F(t, y, y') = 0)
    p = daekit.problem("pendulum")
    for res in (p.solve(), daekit.solve_problem("pendulum")):
        assert res.method == "radau" and res.method_choice.startswith("radau: index-3")
    ens = daekit.solve_many("andrews", [[0.03], [0.033]], threads=1)
    assert ens.method == "radau" and ens.method_choice.startswith("radau: index-3")
    assert all(r["method"] == "radau" for r in ens.runs)
    it = daekit.Integrator(linear_decay, (0, 1), np.ones(2), rtol=1e-8, atol=1e-10)
    it.solve_until(1.0)
    r = it.result()
    assert r.method == "radau" and r.method_choice.startswith("radau: rtol 1e-08")
    it = daekit.Integrator(linear_decay, (0, 1), np.ones(2), method="radau5")
    it.solve_until(1.0)
    assert it.result().method_choice is None


def residual_decay(t, y, yp):
    return yp + y


def test_solve_dae_default_is_auto_bdf_for_the_implicit_form():
    r = daekit.solve_dae(residual_decay, (0, 1), [1.0], [-1.0], rtol=1e-8, atol=1e-10)
    assert r.success and r.method == "bdf"
    assert r.method_choice.startswith("bdf: F(t, y, y') = 0")
    np.testing.assert_allclose(r.y[0, -1], np.exp(-1.0), rtol=1e-6)
    it = daekit.Integrator(residual_decay, (0, 1), [1.0], implicit=True, yp0=[-1.0])
    it.solve_until(1.0)
    assert it.result().method == "bdf" and it.result().method_choice.startswith("bdf: F(t")
    r = daekit.solve_dae(residual_decay, (0, 1), [1.0], [-1.0], method="bdf")
    assert r.method_choice is None


def test_the_reports_name_the_rule():
    res = daekit.problem("pendulum").solve()
    for report in (res.report(), res.report(full=True), res.result.full_report()):
        assert "method auto" in report and res.method_choice in report
    r = daekit.solve_ivp(linear_decay, (0, 1), np.ones(2), method="auto")
    assert "method auto       " + r.method_choice in r.report()
    assert "method auto" not in daekit.problem("pendulum").solve("radau").report()


def _cli_json(cli, *args):
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
    out, _ = _cli_json(cli, "vanderpol", "--t-end", "0.01", "--method", "radau5")
    assert out["method"] == "radau5" and out["method_choice"] is None
    assert out["method_requested"] == "radau5"


def test_the_command_lines_default_is_auto(cli):
    import subprocess
    out, err = _cli_json(cli, "truck", "--t-end", "0.01")
    assert out["method"] == "radau" and out["method_requested"] == "auto"
    assert out["method_choice"].startswith("radau: rtol 1e-08 < 1e-06")
    assert "method auto: " + out["method_choice"] in err
    report = subprocess.run([cli, "solve", "truck", "--t-end", "0.01"], capture_output=True,
                            text=True).stdout
    assert report.startswith("daekit radau on truck\n  method auto       radau: rtol 1e-08")
    sweep = subprocess.run([cli, "sweep", "andrews", "--values", "0.03"], capture_output=True,
                           text=True)
    run = json.loads(sweep.stdout)
    assert run["method"] == "radau" and run["method_requested"] == "auto"
    assert run["method_choice"].startswith("radau: index-3")
    sweep = subprocess.run([cli, "sweep", "andrews", "--values", "0.03", "--method", "radau5"],
                           capture_output=True, text=True)
    run = json.loads(sweep.stdout)
    assert run["method"] == "radau5" and run["method_choice"] is None
    methods = subprocess.run([cli, "methods"], capture_output=True, text=True).stdout
    assert "\nauto           the default of 'solve'" in methods
    for rule in ("- F(t, y, y') = 0: bdf", "- index-2 or index-3 components: radau",
                 "- rtol < 1e-06: radau", "- otherwise radau5, at every size"):
        assert rule in methods
