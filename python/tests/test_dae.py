"""DAEs: Robertson with a singular mass matrix, an implicit DAE through solve_dae with
initialize=True, events with a state change, callback errors, the Integrator and the
MechanicalSystem builder."""

import numpy as np
import pytest

import daekit


def robertson(t, y):
    return [-0.04 * y[0] + 1e4 * y[1] * y[2],
            0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] ** 2,
            y[0] + y[1] + y[2] - 1]


def test_robertson_singular_mass():
    res = daekit.solve_ivp(robertson, (0, 1e5), [1.0, 0.0, 0.0], mass=np.diag([1.0, 1.0, 0.0]),
                           rtol=1e-8, atol=1e-12, nonnegative=[0, 1, 2])
    assert res.success, res.message
    y = res.y[:, -1]
    assert y.sum() == pytest.approx(1.0, abs=1e-12)
    # ROBER at t = 1e5 (scipy's Radau on the ODE form at rtol = 1e-12, atol = 1e-16)
    assert y[0] == pytest.approx(1.78659211e-02, rel=1e-6)
    assert y[2] == pytest.approx(9.82134006e-01, rel=1e-7)
    # the diagonal of M alone works too
    res2 = daekit.solve_ivp(robertson, (0, 1e5), [1.0, 0.0, 0.0], mass=[1.0, 1.0, 0.0],
                            rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(res2.y[:, -1], y, rtol=1e-6, atol=1e-12)


def test_mass_matrix_initialize():
    # z = y^2 algebraic: inconsistent z0 fixed by initialize=True
    def f(t, y):
        return [-y[0], y[1] - y[0] ** 2]

    M = np.diag([1.0, 0.0])
    res = daekit.solve_ivp(f, (0, 1), [2.0, 0.0], mass=M, rtol=1e-8, atol=1e-10)
    assert res.daekit_status == "inconsistent_initial_values" and not res.success
    res = daekit.solve_ivp(f, (0, 1), [2.0, 0.0], mass=M, initialize=True, rtol=1e-8,
                           atol=1e-10)
    assert res.success, res.message
    assert res.y[0, -1] == pytest.approx(2 * np.exp(-1), rel=1e-6)
    assert res.y[1, -1] == pytest.approx(4 * np.exp(-2), rel=1e-6)


def test_solve_dae_initialize():
    # y1' = -y1 + y2, 0 = y2 - sin(t) y1 (index 1, y2 algebraic); inconsistent y2 and no yp0
    def F(t, y, yp):
        return [yp[0] + y[0] - y[1], y[1] - np.sin(t) * y[0]]

    res = daekit.solve_dae(F, (0, 2), [1.0, 5.0], algebraic=[1], initialize=True, rtol=1e-8,
                           atol=1e-10, dense_output=True)
    assert res.success, res.message
    # y1' = (sin t - 1) y1  =>  y1 = exp(1 - cos t - t)
    exact = np.exp(1 - np.cos(2.0) - 2.0)
    assert res.y[0, -1] == pytest.approx(exact, rel=1e-6)
    assert res.y[1, -1] == pytest.approx(np.sin(2.0) * exact, rel=1e-6)
    assert res.y[1, 0] == pytest.approx(0.0, abs=1e-12)  # initialised: y2(0) = sin(0) y1 = 0
    assert res.yp.shape == (2,)
    assert res.sol(1.0)[0] == pytest.approx(np.exp(1 - np.cos(1.0) - 1.0), rel=1e-5)


def test_solve_dae_events_see_yp():
    # y' = -y: the event r(t, y, yp) = yp + 1/2 (y' = -1/2, y = 1/2) stops at t = ln 2
    def F(t, y, yp):
        return [yp[0] + y[0]]

    def slow(t, y, yp):
        return yp[0] + 0.5

    slow.terminal = True
    res = daekit.solve_dae(F, (0, 5), [1.0], yp0=[-1.0], events=slow, rtol=1e-9, atol=1e-12)
    assert res.status == 1 and res.t_events[0][0] == pytest.approx(np.log(2), rel=1e-6)


def test_solve_dae_robertson_with_jacobians():
    def F(t, y, yp):
        return [yp[0] + 0.04 * y[0] - 1e4 * y[1] * y[2],
                yp[1] - 0.04 * y[0] + 1e4 * y[1] * y[2] + 3e7 * y[1] ** 2,
                y[0] + y[1] + y[2] - 1]

    def dF_dy(t, y, yp):
        return [[0.04, -1e4 * y[2], -1e4 * y[1]],
                [-0.04, 1e4 * y[2] + 6e7 * y[1], 1e4 * y[1]],
                [1.0, 1.0, 1.0]]

    def dF_dyp(t, y, yp):
        return np.diag([1.0, 1.0, 0.0])

    res = daekit.solve_dae(F, (0, 40), [1.0, 0.0, 0.0], algebraic=[2], jac=(dF_dy, dF_dyp),
                           rtol=1e-6, atol=1e-10)
    assert res.success, res.message
    assert res.y[0, -1] == pytest.approx(0.7158271, rel=1e-4)  # ROBER at t = 40


def test_event_with_state_change():
    # bouncing ball: the action reverses (and damps) the velocity; the solve goes on
    def fall(t, y):
        return [y[1], -9.81]

    def ground(t, y):
        return y[0]

    ground.direction = -1
    ground.action = lambda t, y: [0.0, -0.5 * y[1]]
    # (the bounces accumulate at t = 3 t1 = 1.355: stop before that Zeno point)
    res = daekit.solve_ivp(fall, (0, 1.2), [1.0, 0.0], events=ground, rtol=1e-10, atol=1e-12)
    assert res.success, res.message
    t1 = np.sqrt(2 / 9.81)
    t_hits = res.t_events[0]
    assert len(t_hits) == 3
    np.testing.assert_allclose(t_hits, [t1, 2 * t1, 2.5 * t1], rtol=1e-7)
    assert res.y_events[0][0, 1] == pytest.approx(-9.81 * t1, rel=1e-8)  # state before action
    assert np.all(res.y[0] > -1e-9)


def test_event_action_changes_parameters():
    # a thermostat: p[0] is the heater mode, switched by the actions through p
    def heat(t, y, p):
        return [3.0 * p[0] - 0.1 * y[0]]  # heats towards 30 while on

    def too_hot(t, y, p):
        return y[0] - 22.0

    def switch_off(t, y, p):
        p[0] = 0.0
        return None

    too_hot.direction = 1
    too_hot.action = switch_off
    res = daekit.solve_ivp(heat, (0, 100), [15.0], p=[1.0], events=too_hot, rtol=1e-8,
                           atol=1e-10)
    assert res.success and len(res.t_events[0]) == 1
    t_off = res.t_events[0][0]
    assert t_off == pytest.approx(10 * np.log(15 / 8), rel=1e-6)  # 30 - 15 exp(-t/10) = 22
    # after the switch y decays: y(100) = 22 exp(-0.1 (100 - t_off))
    assert res.y[0, -1] == pytest.approx(22 * np.exp(-0.1 * (100 - t_off)), rel=1e-6)


def test_python_exception_becomes_failed_solve():
    def bad(t, y):
        if t > 0.5:
            raise ZeroDivisionError("model broke at t > 0.5")
        return -y

    res = daekit.solve_ivp(bad, (0, 1), [1.0])
    assert res.success is False and res.status == -1
    assert res.daekit_status == "callback_error"
    assert "Traceback (most recent call last)" in res.message
    assert "ZeroDivisionError: model broke at t > 0.5" in res.message
    assert "in bad" in res.message  # the frame of the callback
    # wrong output size and type
    res = daekit.solve_ivp(lambda t, y: [1.0, 2.0], (0, 1), [1.0])
    assert not res.success and "returned 2 values, expected 1" in res.message
    res = daekit.solve_ivp(lambda t, y: "x", (0, 1), [1.0])
    assert not res.success and "f returned" in res.message

    # an exception in an event function
    def ev(t, y):
        raise KeyError("event")
    res = daekit.solve_ivp(lambda t, y: -y, (0, 1), [1.0], events=ev)
    assert not res.success and "KeyError" in res.message


def test_recoverable_error_retries_smaller_steps():
    raised = {"n": 0}

    def f(t, y):
        if t > 0.5 and raised["n"] < 3:  # three failures past t = 0.5, then fine
            raised["n"] += 1
            raise daekit.RecoverableError("not now")
        return -y

    res = daekit.solve_ivp(f, (0, 1), [1.0], rtol=1e-8, atol=1e-10)
    assert raised["n"] == 3
    assert res.success, res.message
    assert res.y[0, -1] == pytest.approx(np.exp(-1.0), rel=1e-6)
    assert res.stats["nfail"] >= 1

    def g(t, y):
        if t > 0.5:
            raise ValueError("fatal")
        return -y

    res = daekit.solve_ivp(g, (0, 1), [1.0])
    assert res.daekit_status == "callback_error" and "ValueError: fatal" in res.message


def test_integrator_steps():
    it = daekit.Integrator(lambda t, y: -y, (0, 2), [1.0], rtol=1e-8, atol=1e-10)
    steps = 0
    while not it.finished:
        why = it.step()
        steps += 1
        assert why in ("step", "end")
        assert it.y[0] == pytest.approx(np.exp(-it.t), rel=1e-6)
    assert it.status == "finished" and it.t == 2.0
    res = it.result()
    assert res.success and res.stats["naccept"] == steps
    # a control loop: a Python closure changes the input between solve_until calls
    u = {"value": 1.0}
    it = daekit.Integrator(lambda t, y: [u["value"] - y[0]], (0, 4), [0.0], rtol=1e-8,
                           atol=1e-10)
    for k in range(1, 5):
        y = it.solve_until(float(k))
        u["value"] = -u["value"]
    assert it.status in ("running", "finished") and y.shape == (1,)
    # the implicit form
    it = daekit.Integrator(lambda t, y, yp: [yp[0] + y[0]], (0, 1), [1.0], implicit=True,
                           yp0=[-1.0], rtol=1e-8, atol=1e-10)
    it.solve_until(1.0)
    assert it.y_at(1.0)[0] == pytest.approx(np.exp(-1.0), rel=1e-6)


def pendulum_system():
    # q = (x, y), unit mass, gravity down, constraint x^2 + y^2 = 1
    return daekit.MechanicalSystem(
        nq=2, nlambda=1, mass=np.eye(2),
        force=lambda t, q, v: [0.0, -1.0],
        g=lambda t, q: [0.5 * (q[0] ** 2 + q[1] ** 2 - 1.0)],
        G=lambda t, q: [[q[0], q[1]]])


def test_mechanical_system_formulations():
    sys = pendulum_system()
    q0, v0 = [1.0, 0.0], [0.0, 0.0]
    builtin = daekit.problem("pendulum")  # the same model (paper 000 (4.1)), u = q
    ref = builtin.solve(rtol=1e-9, atol=1e-9, t_end=2.0)
    for form in daekit.FORMULATIONS:
        res = sys.solve((0, 2), q0, v0, form=form, rtol=1e-9, atol=1e-9)
        assert res.success, (form, res.message)
        assert res.q.shape[0] == 2 and res["lambda"].shape[0] == 1
        np.testing.assert_allclose(res.q[:, -1], ref.y[:2, -1], atol=1e-6, err_msg=form)
    # projection after every step keeps the index-1 drift at round-off level
    loose = sys.solve((0, 20), q0, v0, form="index1", rtol=1e-5, atol=1e-5)
    projected = sys.solve((0, 20), q0, v0, form="index1", rtol=1e-5, atol=1e-5,
                          projection="full")
    assert projected.stats["nproject"] > 0
    assert projected.max_residual["position"] < 1e-10 < loose.max_residual["position"]
    L = sys.layout("ggl")
    assert L["mu"] >= 0 and L["n"] == 2 + 2 + 1 + 1
    y0 = sys.initial_values("index3", q0, v0)
    assert y0[-1] == pytest.approx(0.0, abs=1e-14)  # lambda = (|v|^2 - y g . q) = 0 at rest
    with pytest.raises(ValueError, match="formulation"):
        sys.formulate("index4")


def test_builtin_mechanical_reformulated():
    p = daekit.problem("andrews")
    sys = daekit.MechanicalSystem._from_holder(p._h.mechanical)
    y0 = sys.initial_values("index2", p.y0[:7], p.y0[7:14])
    res = daekit.solve_ivp(sys.formulate("index2"), p.t_span, y0, method="bdf", rtol=1e-7,
                           atol=1e-7)
    assert res.success, res.message
    assert daekit.scd(res.y[:7, -1], p.reference["y"][:7]) > 4
