"""Adjoint gradients dG/dp of G = g(T, y(T), p) + integral q(t, y, p) dt (C++
integrator/adjoint.hpp; docs/sensitivities.md)."""

import numpy as np

from . import _daekit
from ._ivp import _mass_arguments, _initialize_mass


class AdjointResult:
    """What ``adjoint_gradient`` returns: ``value`` (G), ``gradient`` (dG/dp), ``lambda0`` (the
    adjoint at t0: dG/dy0 = M^T lambda0), ``success``, ``status``, ``message``, and the cost:
    ``forward_steps`` (recomputations included), ``recomputed_steps``, ``backward_steps``,
    ``forward_runs``, ``backward_runs``, ``peak_stored_states`` (at most
    ``max_stored_steps``), ``peak_checkpoints``, ``nfev``, ``njev``, ``cpu_seconds``."""

    def __init__(self, d):
        self.__dict__.update(d)
        self.success = d["status"] == "success"

    def __repr__(self):
        return "AdjointResult(status=%r, value=%r, gradient=%r)" % (
            self.status, self.value, self.gradient)


def _functional_callable(f, name):
    if f is not None and not callable(f):
        raise TypeError("adjoint_gradient: %s must be a callable %s(t, y, *args, p) or None"
                        % (name, name))
    return f


def adjoint_gradient(fun, t_span, y0, p, *, g=None, g_y=None, g_p=None, q=None, q_y=None,
                     q_p=None, method="radau5", args=None, rtol=1e-3, atol=1e-6, jac=None,
                     jac_sparsity=None, mass=None, index=None, jac_p=None, initialize=False,
                     first_step=None, max_step=np.inf, max_stored_steps=2000,
                     quadrature_atol=0.0, **options):
    """The gradient dG/dp of ``G(p) = g(T, y(T), p) + integral_{t0}^{T} q(t, y, p) dt`` for
    ``M y' = f(t, y, p)`` (index 1, M constant and possibly singular) by the adjoint method:
    one forward solve and one backward solve of the adjoint DAE, whatever ``len(p)``.

    ``fun``, ``t_span``, ``y0``, ``p``, ``method`` (``"radau5"``, ``"radau"``, ``"bdf"``, ...),
    ``jac``, ``jac_sparsity``, ``mass``, ``jac_p`` and the options are those of ``solve_ivp``
    (``fun(t, y, *args, p)``). The functional's callbacks take ``(t, y, *args, p)``: ``g`` and
    ``q`` return a number, ``g_y``/``q_y`` dG/dy (shape (n,)), ``g_p``/``q_p`` (shape
    (len(p),)); derivatives not given are forward differences (n resp. len(p) calls of g or
    q); ``g`` or ``q`` None: that term is zero. ``max_stored_steps`` bounds the memory: the
    dense steps plus checkpoints of the forward solve held at once (beyond it, intervals
    between checkpoints are solved again). ``quadrature_atol``: the absolute tolerance of the
    gradient's quadratures (0: ``atol``).

    Refused (ValueError/TypeError): no ``p``, index tags >= 2, events, ``tstops``,
    ``switches``, projections, ``sensitivities=True``. A failed solve returns
    ``success=False`` with the message. Returns an ``AdjointResult``.
    """
    if p is None:
        raise ValueError("adjoint_gradient: p (the parameters of dG/dp) is required")
    for name in ("events", "t_eval", "dense_output", "vectorized"):
        if name in options:
            raise TypeError("adjoint_gradient: %s is not an argument of adjoint_gradient" % name)
    if options.get("sensitivities"):
        raise ValueError("adjoint_gradient: sensitivities=True asks for forward sensitivities "
                         "(solve_ivp); the adjoint gradient does not compute them")
    functional = {k: _functional_callable(v, k) for k, v in
                  dict(g=g, g_y=g_y, g_p=g_p, q=q, q_y=q_y, q_p=q_p).items()}
    if g is None and q is None:
        raise ValueError("adjoint_gradient: give g (terminal term) or q (integrand), or both")
    if isinstance(max_stored_steps, bool) or not isinstance(max_stored_steps, (int, np.integer)):
        raise TypeError("adjoint_gradient: max_stored_steps must be an integer")
    if max_stored_steps < 4:
        raise ValueError("adjoint_gradient: max_stored_steps must be >= 4, got %d"
                         % max_stored_steps)
    quadrature_atol = float(quadrature_atol)
    if not (quadrature_atol >= 0.0 and np.isfinite(quadrature_atol)):
        raise ValueError("adjoint_gradient: quadrature_atol must be >= 0 and finite")
    a = _mass_arguments(fun, t_span, y0, method, None, False, None, False, args, rtol=rtol,
                        atol=atol, jac=jac, jac_sparsity=jac_sparsity, mass=mass, index=index,
                        p=p, initialize=initialize, first_step=first_step, max_step=max_step,
                        jac_p=jac_p, _caller="adjoint_gradient", **options)
    y0 = _initialize_mass(a.problem, a.t0, a.y0, True) if a.initialize else a.y0
    # the core's InvalidArgument (events, tstops, index >= 2, ...) arrives as ValueError
    d = _daekit._adjoint_mass(a.problem, a.t0, a.t1, y0, a.method, a.method_options, a.options,
                              a.args, a.pass_p, functional, int(max_stored_steps),
                              quadrature_atol)
    return AdjointResult(d)
