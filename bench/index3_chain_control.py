"""What an error control of the index-3 component would face on index3-chain (issue 24).

Radau IIA with 3 stages (radau5's method) on Bendtsen and Thomsen (1999), example (4.1):
y1' = y2, y2' = y3, 0 = y1 - sin t, t in [0, 1], y(0) = (0, 1, 0). The problem is linear, so
the stage equations are solved exactly (no Newton iteration); the error estimate is RADAU5's
(Hairer-Wanner II, IV.8), err = (gamma/h M - J)^{-1} (f(t_n, y_n) + M (e^T Z) / h), refined once
on the first step and after a rejection. The step-size rule is a plain one,
h_new = h min(4, max(0.2, 0.9 err^(-1/4))), not radau5's Gustafsson controller: the figures show
what each kind of control does, not radau5's own numbers (bench/tolerance_meaning.cpp).

Printed (docs/results/tolerance-meaning.md, "Fourth session"):
  1. at constant h, the y3 component of the estimate split into what it inherits from the
     step's starting values (y2_n off by delta, y3_n off by eps) and the rest;
  2. scd at t = 1 for rtol = 1e-4 ... 1e-10 (w = 0.1 rtol (1 + |y|), the local error control of
     radau5) with: RADAU5's scaling of the index-2/3 errors by h and h^2; the index-2 error
     unscaled; the next step also chosen from the unscaled y3 estimate against
     m rtol (1 + |y3|) (m = 1, 10), with and without a last step balanced against the one
     before (two equal steps instead of one short one), and with that target never below the
     estimate's round-off level K eps (gamma/h)^2 max|y| (K = 10).

    /usr/bin/python3 bench/index3_chain_control.py
"""
import math

import numpy as np

S6 = math.sqrt(6.0)
A = np.array([[(88 - 7 * S6) / 360, (296 - 169 * S6) / 1800, (-2 + 3 * S6) / 225],
              [(296 + 169 * S6) / 1800, (88 + 7 * S6) / 360, (-2 - 3 * S6) / 225],
              [(16 - S6) / 36, (16 + S6) / 36, 1 / 9]])
C = np.array([(4 - S6) / 10, (4 + S6) / 10, 1.0])
A_INV = np.linalg.inv(A)
_EIG = np.linalg.eigvals(A_INV)
GAMMA = _EIG[np.abs(_EIG.imag) < 1e-12].real[0]  # the real eigenvalue of A^{-1}
E = np.array([-(13 + 7 * S6) / 3, (-13 + 7 * S6) / 3, -1 / 3])  # RADAU5's DD1..DD3
M = np.diag([1.0, 1.0, 0.0])
J = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
EPS = np.finfo(float).eps


def f(t, y):
    return np.array([y[1], y[2], y[0] - math.sin(t)])


def exact(t):
    return np.array([math.sin(t), math.cos(t), -math.sin(t)])


def stages(t, y, h):
    """Z (3 x 3, row i = Y_i - y_n) of (A^{-1} (x) M) Z = h F(Z), solved exactly (f is linear)."""
    k = np.kron(A_INV, M) - h * np.kron(np.eye(3), J)
    rhs = np.concatenate([h * (J @ y + np.array([0.0, 0.0, -math.sin(t + c * h)])) for c in C])
    return np.linalg.solve(k, rhs).reshape(3, 3)


def estimate(t, y, h, z, refine):
    m_ez = M @ (E @ z) / h
    err = np.linalg.solve(GAMMA / h * M - J, f(t, y) + m_ez)
    if refine:
        err = np.linalg.solve(GAMMA / h * M - J, f(t, y + err) + m_ez)
    return err


def stale_parts_at_constant_steps():
    print("1. constant h: the y3 estimate (first, unrefined) and its inherited parts")
    print("   h        e3          -(gamma+9) delta/h   -eps       rest        true e3(t_n+1)")
    for h in (1e-2, 1e-3):
        t, y = 0.0, exact(0.0)
        for _ in range(int(round(0.5 / h))):
            y = y + stages(t, y, h)[2]
            t += h
        z = stages(t, y, h)
        e3 = estimate(t, y, h, z, False)[2]
        delta, eps = y[1] - math.cos(t), y[2] + math.sin(t)
        inherited = -(GAMMA + 9.0) * delta / h
        true3 = (y + z[2])[2] + math.sin(t + h)
        print("   %-8.0e %-11.3e %-20.3e %-10.3e %-11.3e %.3e" %
              (h, e3, inherited, -eps, e3 - inherited + eps, true3))


def run(rtol, scaling2=-1, y3_selects=False, margin=1.0, balanced=False, roundoff=0.0, h0=1e-6,
        max_attempts=20000):
    """scd at t = 1, accepted steps, attempts (None for scd if the run did not finish).
    `roundoff` K > 0: y3's target is never below K eps (gamma/h)^2 max|y|, the rounding of the
    constraint's residual through the (gamma/h)^2 of the estimate's index-3 row."""
    t, y, h = 0.0, exact(0.0), h0
    refine, accepted, attempts = True, 0, 0
    while t < 1.0 - 1e-14 and attempts < max_attempts:
        attempts += 1
        if t + 1.0001 * h >= 1.0:
            h = 1.0 - t
        elif balanced and t + 2.0 * h > 1.0:
            h = (1.0 - t) / 2.0
        z = stages(t, y, h)
        err_vec = estimate(t, y, h, z, refine)
        w = 0.1 * rtol * (1.0 + np.abs(y))
        scale = w * np.array([1.0, h ** scaling2, h ** -2.0])
        err = max(math.sqrt(np.mean((err_vec / scale) ** 2)), 1e-10)
        choose = err
        if y3_selects:
            target = margin * rtol * (1.0 + abs(y[2]))
            target = max(target, roundoff * EPS * (GAMMA / h) ** 2 * np.max(np.abs(y)))
            err3 = abs(err_vec[2]) / target / math.sqrt(3.0)
            choose = max(err, err3)
        if err < 1.0:
            y, t, refine = y + z[2], t + h, False
            accepted += 1
            h *= min(4.0, max(0.2, 0.9 * choose ** -0.25))
            if h < 1e-14:  # the accepted steps shrank to nothing
                break
        else:
            refine = True
            h *= min(4.0, max(0.2, 0.9 * err ** -0.25))
            if h < 1e-14:
                break
    if t < 1.0 - 1e-14:
        return None, accepted, attempts
    ref = exact(1.0)
    return -math.log10(np.max(np.abs(y - ref) / np.abs(ref))), accepted, attempts


def controls():
    print("\n2. scd at t = 1 (accepted steps), rtol = 1e-4 ... 1e-10 (needed: -log10(rtol) - 1)")
    variants = [
        ("RADAU5 scaling h, h^2", dict()),
        ("index-2 error unscaled", dict(scaling2=0)),
        ("+ y3 chooses the next h, m = 1", dict(y3_selects=True)),
        ("  and a balanced last step", dict(y3_selects=True, balanced=True)),
        ("  m = 10, balanced last step", dict(y3_selects=True, balanced=True, margin=10.0)),
        ("  m = 1, round-off level K = 10", dict(y3_selects=True, roundoff=10.0)),
        ("  and a balanced last step", dict(y3_selects=True, roundoff=10.0, balanced=True)),
    ]
    for name, kw in variants:
        cells = []
        for k in range(4, 11):
            digits, accepted, attempts = run(10.0 ** -k, **kw)
            cells.append("%5s(%d)" % ("fail" if digits is None else "%.2f" % digits, accepted))
        print("   %-32s %s" % (name, " ".join(cells)))


if __name__ == "__main__":
    stale_parts_at_constant_steps()
    controls()
