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
