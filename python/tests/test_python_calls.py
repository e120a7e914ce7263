"""How Python callbacks are called: the state arrays reused from call to call when the callback
keeps no reference to them, and never when it does."""

import weakref

import numpy as np

import daekit


def decay_rhs(t, y):
    return -np.arange(1.0, y.size + 1) * y


def test_state_array_reused_when_not_kept():
    previous, calls, reused = [None], [0], [0]

    def f(t, y):
        # the array of the previous call (a weak reference keeps it from being reused)
        if previous[0] is not None and previous[0]() is y:
            reused[0] += 1
        previous[0] = weakref.ref(y)
        calls[0] += 1
        return decay_rhs(t, y)

    r = daekit.solve_ivp(f, (0, 1), np.ones(3), rtol=1e-6)
    assert r.success and calls[0] > 20
    # the array of one call is the array of the next: no allocation per call
    assert reused[0] == calls[0] - 1


def test_state_kept_by_the_callback_keeps_its_values():
    kept = []

    def f(t, y):
        kept.append((y, y.copy()))
        return decay_rhs(t, y)

    r = daekit.solve_ivp(f, (0, 1), np.ones(3), rtol=1e-6)
    assert r.success and len(kept) > 10
    for y, copy in kept:
        np.testing.assert_array_equal(y, copy)
    assert len({id(y) for y, _ in kept}) == len(kept)


def test_callback_changing_its_arguments_in_place():
    def f(t, y):
        out = decay_rhs(t, y)
        y *= 1e6           # changed values: refilled at the next call
        y.shape = (1, -1)  # changed shape: not reused
        return out

    r = daekit.solve_ivp(f, (0, 1), np.ones(3), rtol=1e-8, atol=1e-10)
    ref = daekit.solve_ivp(decay_rhs, (0, 1), np.ones(3), rtol=1e-8, atol=1e-10)
    assert r.success
    np.testing.assert_array_equal(r.y[:, -1], ref.y[:, -1])


def _reuse_counter():
    """A callback wrapper's bookkeeping: how often a call got the array of the call before."""
    state = {"previous": None, "calls": 0, "reused": 0}

    def seen(a):
        if state["previous"] is not None and state["previous"]() is a:
            state["reused"] += 1
        state["previous"] = weakref.ref(a)
        state["calls"] += 1
    return state, seen


def test_event_callbacks_reuse_their_arrays():
    # events are called at every step (their sign) and while their roots are located: the
    # same no-allocation call as fun's
    state, seen = _reuse_counter()

    def crossing(t, y):
        seen(y)
        return y[0] - 0.5

    r = daekit.solve_ivp(decay_rhs, (0, 1), np.ones(3), rtol=1e-6, events=[crossing])
    assert r.success and len(r.t_events[0]) == 1 and state["calls"] > 20
    assert state["reused"] == state["calls"] - 1


def test_mechanical_callbacks_reuse_their_arrays():
    state, seen = _reuse_counter()

    def force(t, q, v):
        seen(q)
        return [0.0, -1.0]

    sys = daekit.MechanicalSystem(
        nq=2, nlambda=1, mass=np.eye(2), force=force,
        g=lambda t, q: [0.5 * (q[0] ** 2 + q[1] ** 2 - 1.0)], G=lambda t, q: [[q[0], q[1]]])
    res = sys.solve((0, 1), [1.0, 0.0], [0.0, 0.0], form="index2", rtol=1e-6, atol=1e-6)
    assert res.success and state["calls"] > 20
    assert state["reused"] == state["calls"] - 1
