"""MechanicalSystem: constrained multibody equations of motion

    q' = v,   M(q) v' = f(t, q, v) - G(q)^T lambda,   0 = g(q),   G = dg/dq,

and the DAE formulations daekit builds from them (index 3, 2, 1 or GGL), with consistent
initial values and the projection onto the constraint manifold after each step."""


from . import _daekit
from ._arrays import real_array, real_vector
from ._ivp import solve_ivp

FORMULATIONS = ("index3", "index2", "index1", "ggl")


class MechanicalSystem:
    """A mechanical system from Python callables (each may take ``p`` last when ``p`` is given):

    mass
        ``mass(t, q)`` returning the (nq, nq) matrix M(q), or a constant matrix.
    force
        ``force(t, q, v)`` returning the applied forces f (nq).
    g
        ``g(t, q)`` returning the position constraints (nlambda); required if nlambda > 0.
    G
        optional ``G(t, q)`` returning dg/dq (nlambda, nq); finite differences otherwise.
    curvature
        optional ``curvature(t, q, v)`` returning g_qq(q)(v, v); differences otherwise.

    ``formulate(form)`` gives the DAE of a formulation (a problem for ``solve_ivp``),
    ``initial_values(form, q0, v0)`` consistent values for it, ``solve(...)`` both at once.
    """

    def __init__(self, nq, nlambda, mass, force, g=None, G=None, curvature=None, p=None,
                 args=None, name="mechanical system"):
        self.nq = int(nq)
        self.nlambda = int(nlambda)
        self.p = None if p is None else real_vector(p, "p")
        if not callable(mass):  # a constant M: exactly (nq, nq), never truncated or cast
            mass = real_array(mass, "mass", shape=(self.nq, self.nq))
        for what, fn in (("force", force), ("g", g), ("G", G), ("curvature", curvature)):
            if fn is not None and not callable(fn):
                raise TypeError("MechanicalSystem: %s must be callable, got %s"
                                % (what, type(fn).__name__))
        self._sys = _daekit._make_mechanical(self.nq, self.nlambda, mass, force, g, G, curvature,
                                             self.p, name, tuple(args or ()), p is not None)

    @classmethod
    def _from_holder(cls, holder):
        self = cls.__new__(cls)
        self._sys = holder
        self.nq = holder.nq
        self.nlambda = holder.nlambda
        self.p = None
        return self

    def layout(self, form="index3"):
        """Where q, v, w (accelerations, general mass only), lambda and mu (GGL) sit in y."""
        return self._sys.layout(_form(form))

    def formulate(self, form="index3"):
        """The mass-matrix DAE of a formulation, with its drift monitor and projector."""
        return self._sys.formulate(_form(form))

    def initial_values(self, form, q0, v0, t0=0.0, project_velocities=False):
        """Consistent y0 of a formulation from q0, v0 (accelerations and multipliers from the
        saddle-point system; with ``project_velocities`` v0 is first projected onto G v = 0)."""
        return self._sys.initial_values(_form(form), float(t0), real_vector(q0, "q0", self.nq),
                                        real_vector(v0, "v0", self.nq), bool(project_velocities))

    def solve(self, t_span, q0, v0, form="index3", method="auto", projection=None,
              project_velocities=False, **kwargs):
        """Solves a formulation from consistent values for (q0, v0); ``method`` as solve_ivp's,
        by default ``"auto"`` (the rule of ``daekit solve``: radau for the index-2 and index-3
        forms); ``projection`` is ``"velocity"`` or ``"full"`` (after every step, methods with
        projection) or None.
        The result has ``q``, ``v`` and ``lambda`` (rows of ``y``) besides solve_ivp's fields."""
        form = _form(form)
        y0 = self.initial_values(form, q0, v0, t_span[0], project_velocities)
        if projection is not None:
            kwargs["projection"] = projection
        res = solve_ivp(self.formulate(form), t_span, y0, method=method, **kwargs)
        L = self.layout(form)
        nq, m = L["nq"], L["m"]
        res["q"] = res.y[L["q"]:L["q"] + nq]
        res["v"] = res.y[L["v"]:L["v"] + nq]
        res["lambda"] = res.y[L["lambda"]:L["lambda"] + m]
        return res

    def constraint_residuals(self, t, q, v, vdot):
        """``|g(q)|``, ``|G(q) v|`` and ``|G(q) v' + g_qq(q)(v, v)|`` (max-norms)."""
        return self._sys.constraint_residuals(float(t), real_vector(q, "q", self.nq),
                                              real_vector(v, "v", self.nq),
                                              real_vector(vdot, "vdot", self.nq))


def _form(form):
    f = str(form).lower()
    if f not in FORMULATIONS:
        raise ValueError("formulation must be one of %s, got %r" % (", ".join(FORMULATIONS), form))
    return f
