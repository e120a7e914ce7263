"""An implicit DAE F(t, y, y') = 0 with consistent initialization, and an event whose action
changes the state (a bouncing ball).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/implicit_dae.py
"""
import numpy as np

import daekit


# y1' = -y1 + y2,  0 = y2 - sin(t) y1: y2 is algebraic; y2(0) = 5 is inconsistent and y'(0)
# unknown: initialize=True keeps y1(0) and computes y2(0) and y'(0).
def F(t, y, yp):
    return [yp[0] + y[0] - y[1], y[1] - np.sin(t) * y[0]]


res = daekit.solve_dae(F, (0, 2), [1.0, 5.0], algebraic=[1], initialize=True, rtol=1e-8,
                       atol=1e-10)
exact = np.exp(1 - np.cos(2.0) - 2.0)
print("implicit DAE: y1(2) = %.10f (exact %.10f), y2(0) = %g after initialization"
      % (res.y[0, -1], exact, res.y[1, 0]))
assert abs(res.y[0, -1] - exact) < 1e-6


# A bouncing ball: at y = 0 (falling) the action reverses and damps the velocity.
def fall(t, y):
    return [y[1], -9.81]


def ground(t, y):
    return y[0]


ground.direction = -1
ground.action = lambda t, y: [0.0, -0.8 * y[1]]
res = daekit.solve_ivp(fall, (0, 4), [1.0, 0.0], events=ground, rtol=1e-9, atol=1e-12)
print("bouncing ball: %d bounces at t = %s"
      % (len(res.t_events[0]), np.array2string(res.t_events[0], precision=4)))
assert res.success and len(res.t_events[0]) >= 4
