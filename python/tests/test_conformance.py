"""The conformance suite of the Python module: every registered method (``daekit.methods()``,
so that a new method joins with no edit here) through the contracts of ``solve_ivp``, the
stepping ``Integrator`` and ``solve_many`` (the C++ suite is tests/test_conformance.cpp).

Each method runs on the first of three small problems it accepts, all with the solution of
y' = -y + u in their first component: the ODE itself, an index-1 DAE (z = 2 y) and a Hessenberg
index-2 DAE (y1' = -y1 + u + z, y2' = -y2 + u - z, 0 = y1 - y2).  A method that accepts none
fails the suite."""

import math

import numpy as np
import pytest

import daekit


def _forms():
    """(name, n, fun(u) -> f(t, y), mass, index, state(y)) of the three problems."""
    def ode(u):
        return lambda t, y: [-y[0] + u(t)]

    def index1(u):
        return lambda t, y: [-y[0] + u(t), y[1] - 2 * y[0]]

    def index2(u):
        return lambda t, y: [-y[0] + u(t) + y[2], -y[1] + u(t) - y[2], y[0] - y[1]]

    return [
        ("ode", ode, None, None, lambda y: [y]),
        ("index-1", index1, np.diag([1.0, 0.0]), None, lambda y: [y, 2 * y]),
        ("index-2", index2, np.diag([1.0, 1.0, 0.0]), [1, 1, 2], lambda y: [y, y, 0.0]),
    ]


def _options(method, tol=1e-8):
    o = dict(rtol=tol, atol=tol * 1e-2)
    if not daekit.method_info(method)["capabilities"]["error_estimate"]:
        o.update(fixed_step=True, first_step=1.0 / 256)
    return o


def _setup(method):
    """The first form `method` solves (a short solve succeeds), or pytest.fail."""
    for name, fun, mass, index, state in _forms():
        try:
            r = daekit.solve_ivp(fun(lambda t: 1.0), (0, 0.1), state(0.0), method=method,
                                 mass=mass, index=index, **_options(method))
        except (ValueError, TypeError):
            continue
        if r.success:
            return name, fun, mass, index, state
    pytest.fail("method %s accepts none of the conformance problems: add one" % method)


def _relax(y0, level, dt):
    return level + (y0 - level) * math.exp(-dt)


@pytest.fixture(params=daekit.methods())
def setup(request):
    return (request.param,) + _setup(request.param)


def test_solve_ivp_is_accurate(setup):
    method, _, fun, mass, index, state = setup
    r = daekit.solve_ivp(fun(lambda t: 1.0), (0, 2), state(0.0), method=method, mass=mass,
                         index=index, dense_output=True, **_options(method))
    assert r.success, r.message
    assert abs(r.y[0, -1] - _relax(0.0, 1.0, 2.0)) < 1e-6
    assert abs(r.sol(1.3)[0] - _relax(0.0, 1.0, 1.3)) < 1e-6
    with pytest.raises(ValueError):
        r.sol(2.5)


def test_control_loop_with_exact_stops(setup):
    """The input toggles at t = 1, ..., 10 (a closure read by fun); each segment against the
    exact solution from the integrator's own state at its start."""
    method, _, fun, mass, index, state = setup
    for notify in (False, True):
        u = [0.0]
        it = daekit.Integrator(fun(lambda t: u[0]), (0, 10), state(0.0), method=method,
                               mass=mass, index=index, **_options(method))
        y_prev, err = 0.0, 0.0
        for k in range(1, 11):
            y = it.solve_until(k, stop_exactly=True)
            assert y is not None, it.result().message
            assert it.t == k
            err = max(err, abs(y[0] - _relax(y_prev, u[0], 1.0)))
            y_prev = y[0]
            u[0] = 1.0 - u[0]
            if notify and k < 10:
                assert it.model_changed()
        assert err < 1e-6, (method, notify, err)


def test_integrator_refuses_queries_outside_what_it_integrated(setup):
    method, _, fun, mass, index, state = setup
    it = daekit.Integrator(fun(lambda t: 1.0), (0, 2), state(0.0), method=method, mass=mass,
                           index=index, **_options(method))
    with pytest.raises(ValueError):
        it.solve_until(float("nan"))
    with pytest.raises(ValueError):
        it.solve_until(3.0)
    it.solve_until(1.0 + 1e-3)
    if it.t != 1.0 + 1e-3:  # stepped past it: a model change there is refused
        with pytest.raises(ValueError):
            it.model_changed()
    with pytest.raises(ValueError):
        it.solve_until(0.5)  # behind the point reached
    it.solve_until(2.0)
    assert it.finished
    with pytest.raises(ValueError):
        it.y_at(100.0)
    with pytest.raises(ValueError):
        it.y_at(0.001)  # before the last step: no dense output kept
    assert abs(it.y_at(2.0)[0] - _relax(0.0, 1.0, 2.0)) < 1e-6


def test_integrator_terminal_event_stops_at_the_root(setup):
    method, _, fun, mass, index, state = setup

    def half(t, y):
        return y[0] - 0.5
    half.terminal = True
    it = daekit.Integrator(fun(lambda t: 1.0), (0, 3), state(0.0), method=method, mass=mass,
                           index=index, events=[half], **_options(method))
    assert it.solve_until(3.0) is None  # ended before t = 3
    assert it.last == "end"
    assert abs(it.t - math.log(2.0)) < 1e-6
    assert abs(it.y[0] - 0.5) < 1e-6


def test_integrator_step_reports_events_and_output_times(setup):
    method, _, fun, mass, index, state = setup

    def third(t, y):
        return y[0] - 0.3
    it = daekit.Integrator(fun(lambda t: 1.0), (0, 2), state(0.0), method=method, mass=mass,
                           index=index, events=[third], t_eval=[0.25, 0.5, 1.0, 1.5],
                           **_options(method, 1e-6))
    seen = []
    while not it.finished:
        seen.append(it.step())
    assert seen[-1] == "end"
    assert seen.count("event") == 1
    assert "output_time" in seen
    r = it.result()
    assert len(r.t_events[0]) == 1 and abs(r.t_events[0][0] + math.log(0.7)) < 1e-5


def test_solve_many_takes_what_solve_ivp_takes(setup):
    """The input level as the parameter p of each run."""
    method, _, fun, mass, index, state = setup

    def f(t, y, p):
        return fun(lambda s: p[0])(t, y)
    levels = np.array([[0.0], [1.0], [0.5]])
    ens = daekit.solve_many(f, levels, t_span=(0, 2), y0=state(0.25), method=method, mass=mass,
                            index=index, threads=2, **_options(method))
    assert ens.success.all(), ens.message
    for k, (level,) in enumerate(levels):
        assert abs(ens.y[k, 0] - _relax(0.25, level, 2.0)) < 1e-6


def test_event_max_step_finds_roots_of_a_fast_root_function():
    """A root function faster than the solution's steps (sin 40 t on y' = -0.1 y): its 127
    roots in [0, 10] are found only with a step bound (Event max_step, C++ Event::max_step)."""
    def carrier(t, y):
        return math.sin(40.0 * t)

    free = daekit.solve_ivp(lambda t, y: [-0.1 * y[0]], (0, 10), [1.0], rtol=1e-6, atol=1e-9,
                            events=[daekit.Event(carrier)])
    bounded = daekit.solve_ivp(lambda t, y: [-0.1 * y[0]], (0, 10), [1.0], rtol=1e-6, atol=1e-9,
                               events=[daekit.Event(carrier, max_step=math.pi / 160)])
    assert bounded.success
    assert len(bounded.t_events[0]) == 127
    assert len(free.t_events[0]) < 127
