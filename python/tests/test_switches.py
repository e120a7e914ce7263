"""Models with switches (issue 26): tstops (known discontinuity times) and switching functions
from Python, the charge pump built-in problem."""

import numpy as np
import pytest

import daekit


def pulse(t):
    s = t - np.floor(t)
    if s < 0.1:
        return s / 0.1
    if s < 0.5:
        return 1.0
    if s < 0.6:
        return 1.0 - (s - 0.5) / 0.1
    return 0.0


CORNERS = [k + s for k in range(3) for s in (0.1, 0.5, 0.6, 1.0)]


def relax(t, y):
    return [-50.0 * (y[0] - pulse(t))]


def test_tstops_restart_at_each_corner_and_end_steps_there():
    r = daekit.solve_ivp(relax, (0.0, 3.05), [0.0], rtol=1e-6, atol=1e-8, tstops=CORNERS)
    assert r.success, r.message
    assert r.stats["nrestart"] == len(CORNERS)
    for c in CORNERS:
        assert np.any(r.t == c), c


def test_tstops_in_the_integrator():
    it = daekit.Integrator(relax, (0.0, 1.0), [0.0], rtol=1e-6, atol=1e-8, tstops=[0.1, 0.5])
    y = it.solve_until(0.5, stop_exactly=True)
    assert it.t == 0.5 and y is not None
    while it.step() not in ("end", "failure"):
        pass
    assert it.result().stats["nrestart"] == 2


@pytest.mark.parametrize("tstops, word", [
    ([0.5, float("nan")], "tstops"),
    ([0.5, 0.2], "strictly increasing"),
    ([5.0], "outside the interval"),
])
def test_bad_tstops_are_value_errors(tstops, word):
    with pytest.raises(ValueError, match=word):
        daekit.solve_ivp(relax, (0.0, 1.0), [0.0], tstops=tstops)


def relay(t, y, p):
    return [-100.0 if p[0] > 0 else 1.0]


def relay_switch(t, y, p):
    return y[0] - 1.5


@pytest.mark.parametrize("method", ["radau5", "bdf"])
def test_relay_slides_or_names_the_chattering_switch(method):
    r = daekit.solve_ivp(relay, (0.0, 3.0), [0.0], method=method, p=[0.0], rtol=1e-6,
                         atol=1e-6, switches=[daekit.Switch(relay_switch, 0, name="relay")])
    if r.success:
        assert abs(r.y[0, -1] - 1.5) < 1e-4
    else:
        assert r.daekit_status == "event_accumulation", r.message
        assert "switch 'relay' chatters" in r.message
        assert abs(r.y[0, -1] - 1.5) < 1e-6


def test_switch_given_as_a_plain_function_crosses_once():
    def f(t, y, p):
        return [0.5 * y[0] if p[0] > 0 else 1.0]

    r = daekit.solve_ivp(f, (0.0, 3.0), [0.0], p=[0.0], rtol=1e-8, atol=1e-8,
                         switches=[lambda t, y, p: y[0] - 1.0])
    assert r.success, r.message
    assert r.stats["nrestart"] == 1
    assert abs(r.y[0, -1] - np.exp(1.0)) < 1e-5


@pytest.mark.parametrize("switches, error, word", [
    ([daekit.Switch(relay_switch, -1)], ValueError, "parameter must be >= 0"),
    ([daekit.Switch(relay_switch, 1.5)], TypeError, "must be an integer"),
    ([daekit.Switch(relay_switch, 3)], ValueError, "parameters"),
    (["not a function"], TypeError, "must be a function"),
])
def test_bad_switches_are_refused(switches, error, word):
    with pytest.raises(error, match=word):
        daekit.solve_ivp(relay, (0.0, 3.0), [0.0], p=[0.0], switches=switches)


def test_charge_pump_solves_in_one_call():
    prob = daekit.problem("charge-pump")
    r = prob.solve(method="bdf", rtol=1e-6, atol=1e-6)
    assert r.success, r.message
    assert r.stats["nrestart"] >= 39


def test_charge_pump_restarts_from_the_crossing_step():
    # radau5 restarts a switch from the crossing step taken again to the located time
    # (stats["nretake"]): no source/drain swap, which only the step's interpolant crossed
    prob = daekit.problem("charge-pump")
    r = prob.solve(method="radau5", rtol=1e-6, atol=1e-6)
    assert r.success, r.message
    assert r.stats["nretake"] > 0
    assert r.stats["nretake_fail"] == 0
    assert not [e for e in r.events if e["name"] == "source/drain swap"]
