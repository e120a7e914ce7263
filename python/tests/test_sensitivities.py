"""Forward sensitivities from Python: solve_ivp(..., p=p0, sensitivities=True) returns
res.sensitivities of shape (n, len(p), len(t)) (docs/sensitivities.md)."""

import numpy as np
import pytest

import daekit


def _relax(t, y, p):
    # y' = -a y + b, y(0) = 1: dy/da and dy/db in closed form
    return [-p[0] * y[0] + p[1]]


def _exact(t, a, b):
    e = np.exp(-a * t)
    c = b / a
    return np.array([-b / a**2 + b / a**2 * e - (1 - c) * t * e, (1 - e) / a])


def test_shape_and_values_at_t_eval():
    t = np.array([0.0, 0.5, 1.0, 3.0])
    res = daekit.solve_ivp(_relax, (0, 3), [1.0], p=[2.0, 3.0], t_eval=t, rtol=1e-10,
                           atol=1e-12, sensitivities=True)
    assert res.success, res.message
    assert res.sensitivities.shape == (1, 2, len(t))
    for j, tj in enumerate(t):
        np.testing.assert_allclose(res.sensitivities[0, :, j], _exact(tj, 2.0, 3.0), atol=1e-8)


def test_at_the_steps_without_t_eval():
    res = daekit.solve_ivp(_relax, (0, 2), [1.0], p=[2.0, 3.0], rtol=1e-9, atol=1e-12,
                           sensitivities=True, method="radau")
    assert res.sensitivities.shape == (1, 2, len(res.t))
    np.testing.assert_allclose(res.sensitivities[0, :, -1], _exact(2.0, 2.0, 3.0), atol=1e-7)


def test_index1_dae_with_mass_matrix():
    # y' = -a y, 0 = z - b y: dz/db = y, dz/da = b dy/da
    def f(t, y, p):
        return [-p[0] * y[0], y[1] - p[1] * y[0]]

    res = daekit.solve_ivp(f, (0, 1), [1.0, 2.0], p=[1.0, 2.0], mass=[1.0, 0.0],
                           t_eval=[0.0, 1.0], rtol=1e-10, atol=1e-12, sensitivities=True)
    assert res.success, res.message
    S = res.sensitivities
    e = np.exp(-1.0)
    np.testing.assert_allclose(S[:, :, 0], [[0, 0], [0, 1.0]], atol=1e-9)  # consistent S0
    np.testing.assert_allclose(S[:, :, 1], [[-e, 0], [-2 * e, e]], atol=1e-8)


def test_refused_by_methods_without_them():
    with pytest.raises(ValueError, match="does not compute sensitivities"):
        daekit.solve_ivp(_relax, (0, 1), [1.0], p=[2.0, 3.0], method="dirk", sensitivities=True)


def test_refused_without_parameters():
    with pytest.raises(ValueError, match="no parameters"):
        daekit.solve_ivp(lambda t, y: [-y[0]], (0, 1), [1.0], sensitivities=True)


def test_no_field_without_the_request():
    res = daekit.solve_ivp(_relax, (0, 1), [1.0], p=[2.0, 3.0])
    assert "sensitivities" not in res


def test_cli_json_field(cli):
    import json
    import subprocess
    # (at rtol 1e-8, radau's variable order: at 1e-9 radau keeps at most 5 stages on a DAE, and
    # at t = 0.0084 the sensitivities' own stage iteration does not converge where the state's
    # did: that step is retried with h / 2, so the state's steps differ from the plain run's)
    tol = ["--t-end", "0.01", "--rtol", "1e-8", "--atol", "1e-8"]
    proc = subprocess.run([cli, "solve", "transistor", "--sensitivities", "--json"] + tol,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    S = np.array(d["sensitivities"])
    assert S.shape == (8, 1)  # n rows of np = 1 (the supply voltage Ub = 6)
    # against central differences of two whole solves (daekit sweep at Ub -+ 0.006)
    sweep = subprocess.run([cli, "sweep", "transistor", "--values", "5.994,6.006", "--t-end",
                            "0.01", "--rtol", "1e-11", "--atol", "1e-11"],
                           capture_output=True, text=True)
    lo, hi = (np.array(json.loads(line)["y"]) for line in sweep.stdout.splitlines())
    fd = (hi - lo) / 0.012
    assert np.abs(S[:, 0] - fd).max() < 1e-5 * np.abs(fd).max()
    plain = json.loads(subprocess.run([cli, "solve", "transistor", "--json"] + tol,
                                      capture_output=True, text=True).stdout)
    assert "sensitivities" not in plain
    assert plain["y"] == d["y"]  # the state's steps are the same with them
    bad = subprocess.run([cli, "solve", "vanderpol", "--sensitivities"], capture_output=True,
                         text=True)
    assert bad.returncode != 0 and "no parameters" in bad.stderr
    bad = subprocess.run([cli, "solve", "andrews", "--method", "dirk", "--sensitivities"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "does not compute sensitivities" in bad.stderr


def test_cli_report_lists_them(cli):
    import subprocess
    out = subprocess.run([cli, "solve", "transistor", "--t-end", "0.01", "--sensitivities"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "dy/dp at t        (Ub)" in out.stdout
    assert "U8:" in out.stdout
    plain = subprocess.run([cli, "solve", "transistor", "--t-end", "0.01"], capture_output=True,
                           text=True)
    assert "dy/dp" not in plain.stdout


def test_solve_dae_with_the_bdf():
    # y' + a y = 0, 0 = z - b y (F(t, y, y', p) = 0): dy/da = -t e^-at, dz/da = b dy/da, dz/db = y
    def F(t, y, yp, p):
        return [yp[0] + p[0] * y[0], y[1] - p[1] * y[0]]

    r = daekit.solve_dae(F, (0, 1), [1.0, 2.0], [-1.0, 0.0], p=[1.0, 2.0], algebraic=[1],
                         rtol=1e-9, atol=1e-11, t_eval=[1.0], sensitivities=True)
    assert r.success, r.message
    e = np.exp(-1.0)
    np.testing.assert_allclose(r.sensitivities[:, :, -1], [[-e, 0], [-2 * e, e]], rtol=1e-6)


def test_analytic_jac_p_replaces_the_differences():
    calls = []

    def jac_p(t, y, p):
        calls.append(t)
        return [[-y[0], 1.0]]  # d(-a y + b)/d(a, b)

    kw = dict(p=[2.0, 3.0], t_eval=[0.0, 3.0], rtol=1e-10, atol=1e-12, sensitivities=True)
    for method in ("radau5", "radau", "bdf"):
        fd = daekit.solve_ivp(_relax, (0, 3), [1.0], method=method, **kw)
        an = daekit.solve_ivp(_relax, (0, 3), [1.0], method=method, jac_p=jac_p, **kw)
        assert an.success, an.message
        assert len(calls) > an.stats["naccept"]
        assert an.stats["nfev_jac"] < fd.stats["nfev_jac"]
        np.testing.assert_allclose(an.sensitivities[0, :, -1], _exact(3.0, 2.0, 3.0), atol=1e-8)
        calls.clear()


def test_jac_p_checked():
    kw = dict(p=[2.0, 3.0], sensitivities=True)
    with pytest.raises(TypeError, match="jac_p"):
        daekit.solve_ivp(_relax, (0, 1), [1.0], jac_p=[[1.0, 2.0]], **kw)
    with pytest.raises(ValueError, match="jac_p.*needs the parameters p"):
        daekit.solve_ivp(lambda t, y: [-y[0]], (0, 1), [1.0], jac_p=lambda t, y: [[1.0]])
    res = daekit.solve_ivp(_relax, (0, 1), [1.0], jac_p=lambda t, y, p: [[1.0, 2.0, 3.0]], **kw)
    assert not res.success and "jac_p" in res.message and "shape" in res.message
    res = daekit.solve_ivp(_relax, (0, 1), [1.0], jac_p=lambda t, y, p: [[np.nan, 1.0]], **kw)
    assert not res.success and "parameter_jacobian" in res.message


def test_solve_many_refuses_sensitivities_it_would_drop():
    # an ensemble's run dictionaries carry no dy/dp: asking for it is refused by name instead
    # of computing sensitivities and returning none
    with pytest.raises(ValueError, match="sensitivities"):
        daekit.solve_many(lambda t, y, p: -p[0] * y, np.array([[1.0], [2.0]]), (0, 2), [1.0],
                          sensitivities=True)


@pytest.mark.parametrize("method", ["radau5", "bdf"])
def test_event_times_have_sensitivities(method):
    # a ball falling from 10 with gravity g = p[0] crosses the level p[1] = 4 (an event reading
    # p) and hits the ground (terminal): t* = sqrt(2 (10 - H) / g), dt*/dg = -t*/(2 g),
    # dt*/dH = -1/(g t*); res.t_events_sensitivities[i] has one row of dt/dp per event
    def ball(t, y, p):
        return [y[1], -p[0]]

    def level(t, y, p):
        return y[0] - p[1]

    def ground(t, y, p):
        return y[0]
    ground.terminal = True
    g, H = 9.81, 4.0
    res = daekit.solve_ivp(ball, (0, 5), [10.0, 0.0], p=[g, H], method=method,
                           events=[level, ground], rtol=1e-10, atol=1e-10, sensitivities=True)
    assert res.status == 1, res.message
    t_level, t_ground = np.sqrt(2 * (10 - H) / g), np.sqrt(2 * 10 / g)
    dl, dg = res.t_events_sensitivities
    assert dl.shape == (1, 2) and dg.shape == (1, 2)
    np.testing.assert_allclose(dl[0], [-t_level / (2 * g), -1 / (g * t_level)], rtol=1e-6)
    np.testing.assert_allclose(dg[0], [-t_ground / (2 * g), 0.0], rtol=1e-6, atol=1e-9)
    assert "dt_dp" in res.events[0]


def _bounce_exact(t, g, e, h0=10.0):
    # a ball dropped from h0 bouncing with v+ = -e v-, before its second bounce: [h, v] and
    # d[h, v]/d[g, e] in closed form (first impact t1 = V/g, V = sqrt(2 g h0), then speed e V)
    V = np.sqrt(2 * g * h0)
    t1 = V / g
    if t < t1:
        return np.array([h0 - g * t * t / 2, -g * t]), np.array([[-t * t / 2, 0], [-t, 0]])
    tau = t - t1
    dt1, dV = -V / (2 * g * g), V / (2 * g)
    h, v = e * V * tau - g * tau * tau / 2, e * V - g * tau
    S = np.array([[e * dV * tau - e * V * dt1 - tau * tau / 2 + g * tau * dt1, V * tau],
                  [e * dV - tau + g * dt1, V]])
    return np.array([h, v]), S


@pytest.mark.parametrize("method", ["radau5", "bdf"])
def test_sensitivities_jump_at_an_event_action(method):
    # dy/dp across a bounce (an action that changes the state): res.sensitivities before and
    # after it against the closed form, p = [g, e]
    def ball(t, y, p):
        return [y[1], -p[0]]

    def floor(t, y, p):
        return y[0]
    floor.direction = -1
    floor.action = lambda t, y, p: [y[0], -p[1] * y[1]]
    g, e = 9.81, 0.8
    t_eval = [1.0, 2.0, 3.0]
    res = daekit.solve_ivp(ball, (0, 3), [10.0, 0.0], p=[g, e], method=method, events=[floor],
                           t_eval=t_eval, rtol=1e-12, atol=1e-12, sensitivities=True)
    assert res.success, res.message
    assert res.sensitivities.shape == (2, 2, 3)
    assert len(res.t_events[0]) == 1
    for j, t in enumerate(t_eval):
        y, S = _bounce_exact(t, g, e)
        np.testing.assert_allclose(res.y[:, j], y, atol=1e-8)
        np.testing.assert_allclose(res.sensitivities[:, :, j], S, atol=1e-8)


def test_an_event_action_that_changes_p_ends_a_sensitivity_solve():
    def ball(t, y, p):
        return [y[1], -p[0]]

    def ground(t, y, p):
        return y[0]

    def to_the_moon(t, y, p):
        p[0] = 1.62
        return [y[0], -0.9 * y[1]]
    ground.action = to_the_moon
    res = daekit.solve_ivp(ball, (0, 5), [10.0, 0.0], p=[9.81], events=[ground],
                           sensitivities=True)
    assert not res.success and "changed the parameters" in res.message
