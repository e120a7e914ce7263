"""solve_ivp / solve_dae with scipy's argument names and result fields, the stepping Integrator,
the built-in problems and the registered methods."""

import numbers
from types import SimpleNamespace

import numpy as np

from . import _daekit
from ._arrays import (is_sparse, real_array, real_scalar_or_vector, real_vector, sparse_coo,
                      sparse_csc)
from ._compiled import EVENT, RESIDUAL, RHS, LibraryFunction, as_callback, is_compiled

# scipy's method names for the methods daekit has under another name.
_SCIPY_METHODS = {"Radau": "radau5", "BDF": "bdf"}
# Options of the integrator passed through unchanged (see include/daekit/integrator/options.hpp).
_PASSTHROUGH = ("max_steps", "fixed_step", "nonnegative", "exclude_from_error_test",
                "check_jacobian", "check_consistency", "consistency_tol", "global_error_check",
                "safety", "max_increase", "max_decrease", "max_events", "linear_solver",
                "controller", "projection", "trace", "step_callback", "store_steps", "tstops",
                "switches", "chatter_limit", "sensitivities",
                "sensitivity_error_control", "initial_sensitivities", "detect_sparsity",
                "detect_sparsity_min_n")
# scipy's LSODA names: lband/uband (a banded Jacobian), min_step (Options::hmin).
_SCIPY_OPTIONS = ("min_step", "lband", "uband")


def _all_evaluations(stats):
    """scipy's nfev: every evaluation of fun, the method's, the finite-difference Jacobians',
    the Jacobian check's at t0 and the structure detection's (the stats keep them apart)."""
    return sum(stats.get(k, 0) for k in ("nfev", "nfev_jac", "nfev_check", "nfev_structure"))


class DaeResult(dict):
    """The result of a solve: scipy's ``OdeResult`` fields (``t``, ``y``, ``sol``, ``t_events``,
    ``y_events``, ``nfev``, ``njev``, ``nlu``, ``status``, ``message``, ``success``) plus
    daekit's: ``daekit_status`` (e.g. ``"max_steps_exceeded"``), ``stats`` (every counter),
    ``yp``, ``method``, ``cpu_seconds``, ``warnings``, ``linear_solver``,
    ``jacobian_structure`` (the Jacobian's structure, declared or detected at t0, e.g.
    ``"detected at t0: ... used as banded (2, 2)"``), ``events`` (every
    located event with its name), ``global_error`` (with ``global_error_check=True``: the
    answer's estimated global error in units of the tolerance, else NaN), ``method_options``
    (every option of the method, ``daekit.method_info(method)["options"]``, with the value the
    method used), ``impasse`` (with ``solve_ivp(..., impasse=...)``: the impasse point located
    and the curve followed, or None), with ``sensitivities=True`` ``sensitivities`` (dy/dp,
    shape (n, len(p), len(t))) and ``t_events_sensitivities`` (per event function, one row of
    d t_event / dp per located event), ``method_choice`` (with ``method="auto"``: the rule) and
    ``result`` (the compiled Result); ``report()`` prints what
    the daekit command prints and ``plot()`` draws the solution with matplotlib."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value

    def __dir__(self):
        return list(self.keys())

    def __repr__(self):
        keys = ("message", "success", "status", "t", "y", "nfev", "njev", "nlu")
        lines = []
        for k in keys:
            v = self.get(k)
            if isinstance(v, np.ndarray) and v.size > 6:
                v = "array of shape %s" % (v.shape,)
            lines.append("%12s: %r" % (k, v))
        return "\n".join(lines)

    def report(self, full=False):
        """The solve's report (status, steps, evaluations, events, warnings, CPU time)."""
        builtin = self.get("_builtin")
        if builtin is not None:
            return builtin.report(self.result, full)
        return self.result.full_report() if full else self.result.report()

    def plot(self, components=None, ax=None, **kwargs):
        """Plots y over t (matplotlib); returns the axes.  See daekit.plot_result."""
        from ._plot import plot_result
        return plot_result(self, components=components, ax=ax, **kwargs)


class DenseSolution:
    """The continuous solution over the whole interval (``dense_output=True``): ``sol(t)`` for a
    number gives y(t), for an array of times an (n, len(t)) array, like scipy's OdeSolution."""

    def __init__(self, result, t_min, t_max):
        self._result = result
        self.t_min = t_min
        self.t_max = t_max

    def __call__(self, t):
        return self._result.sol(t)


_STATUS = {"success": 0, "terminal_event": 1}


def _to_result(r, n_user_events, component_names=None, builtin=None, t_eval_given=False,
               method_choice=None):
    """DaeResult from a compiled Result (method_choice: the rule of method="auto", which the
    compiled Result's reports then name too)."""
    if method_choice is not None:
        r.method_choice = method_choice
    if t_eval_given:
        t, y = r.t_out, r.y_out
    else:
        t, y = r.t_steps, r.y_steps
    stats = r.stats
    res = DaeResult(
        t=t, y=y,
        sol=DenseSolution(r, r.t_steps[0] if len(r.t_steps) else None, r.t)
        if r.has_dense_output else None,
        t_events=None, y_events=None,
        nfev=_all_evaluations(stats), njev=stats["njac"], nlu=stats["nlu"],
        status=_STATUS.get(r.status, -1), message=r.message or "The solver reached t_end.",
        success=r.status in _STATUS,
        daekit_status=r.status, stats=stats, yp=r.yp, method=r.method,
        cpu_seconds=r.cpu_seconds, warnings=list(r.warnings), linear_solver=r.linear_solver,
        jacobian_structure=r.jacobian_structure,
        events=r.events, max_residual=r.max_residual, result=r,
        global_error=r.global_error, method_options=r.method_options,
        component_names=component_names, method_choice=method_choice)
    if r.n_parameters > 0:
        res["sensitivities"] = r.s_out if t_eval_given else r.s_steps
    if n_user_events is not None:
        t_events = [[] for _ in range(n_user_events)]
        y_events = [[] for _ in range(n_user_events)]
        for e in r.events:
            if e["index"] < n_user_events:
                t_events[e["index"]].append(e["t"])
                y_events[e["index"]].append(e["y"])
        n = len(r.y)
        res["t_events"] = [np.asarray(te, dtype=float) for te in t_events]
        res["y_events"] = [np.asarray(ye, dtype=float).reshape(-1, n) for ye in y_events]
        if r.n_parameters > 0:  # d t_event / dp, one row per located event
            none = np.full(r.n_parameters, np.nan)  # an event the solve failed at
            res["t_events_sensitivities"] = [
                np.asarray([e.get("dt_dp", none) for e in r.events if e["index"] == i],
                           dtype=float).reshape(-1, r.n_parameters)
                for i in range(n_user_events)]
    if builtin is not None:
        res["_builtin"] = builtin
    return res


def _method_name(method):
    return _SCIPY_METHODS.get(method, method)


class Banded:
    """A banded Jacobian structure: entries (i, j) with j - upper <= i <= j + lower."""

    def __init__(self, lower, upper):
        self.lower = int(lower)
        self.upper = int(upper)


def banded(lower, upper):
    """jac_sparsity for a banded Jacobian (lower and upper bandwidths)."""
    return Banded(lower, upper)


def _sparsity(s, n):
    """jac_sparsity for the compiled core: None, ("banded", l, u) or a checked ("csc", ...)."""
    if s is None:
        return None
    if isinstance(s, Banded):
        return ("banded", s.lower, s.upper)
    if is_sparse(s):
        return sparse_csc(s, (n, n), "jac_sparsity", values=False)
    a = np.asarray(s)
    if a.dtype.kind not in "biufc":
        raise TypeError("jac_sparsity must be an (n, n) array of numbers, got dtype %s" % a.dtype)
    if a.shape != (n, n):
        raise ValueError("jac_sparsity must be an (n, n) array, got shape %s" % (a.shape,))
    import scipy.sparse
    return sparse_csc(scipy.sparse.coo_matrix(a != 0), (n, n), "jac_sparsity", values=False)


def _mass(mass, n):
    """The constant mass matrix for the compiled core: None, a dense (n, n) array (the n
    diagonal entries of a vector) or a checked ("csc", ...) tuple."""
    if mass is None:
        return None
    if is_sparse(mass):
        return sparse_csc(mass, (n, n), "mass")
    m = real_array(mass, "mass", ndim=(1, 2))
    if m.ndim == 1:
        if m.size != n:
            raise ValueError("mass as a vector holds the n = %d diagonal entries, got %d values"
                             % (n, m.size))
        return np.diag(m)
    if m.shape != (n, n):
        raise ValueError("mass must be (n, n) = (%d, %d) (or the n diagonal entries), got "
                         "shape %s" % (n, n, m.shape))
    return m


def _constant_jacobian(jac, n):
    """A callable returning the constant Jacobian (array or scipy sparse matrix, as scipy
    allows), checked once."""
    if is_sparse(jac):
        import scipy.sparse
        rows, cols, data = sparse_coo(jac, (n, n), "jac")
        J = scipy.sparse.csc_matrix((data, (rows, cols)), shape=(n, n))
    else:
        J = real_array(jac, "jac", shape=(n, n))

    def constant_jac(t, y, *a):
        return J
    return constant_jac


def _index(index, n):
    """The index tags: one for every component, or n of them (whole numbers)."""
    if index is None:
        return []
    a = np.asarray(index)
    if a.dtype.kind not in "iuf" or (a.dtype.kind == "f" and not np.all(a == np.round(a))):
        raise TypeError("index must hold whole numbers (the index tags 1, 2, 3), got %r"
                        % (index,))
    if a.ndim == 0:
        return [int(a)] * n
    if a.ndim != 1 or a.size != n:
        raise ValueError("index must be one tag or n = %d tags, got shape %s" % (n, a.shape))
    return [int(i) for i in a]


class Event:
    """An event (root function) with its settings, for compiled root functions or instead of
    attributes on a Python function: ``Event(fun, terminal=False, direction=0, action=None,
    name=None, max_step=0)``.  ``action(t, y)`` (or ``(t, y, p)`` when the solve has
    parameters) returns the new state or None; the solve then re-initialises consistently and
    continues.  ``max_step`` bounds the step while the event is watched (roots of r closer
    together than the solution's steps need it; 0: no bound)."""

    def __init__(self, fun, terminal=False, direction=0, action=None, name=None, max_step=0.0):
        self.fun = fun
        self.terminal = terminal
        self.direction = direction
        self.action = action
        self.name = name
        self.max_step = max_step


class Switch:
    """A switching function of the model (Options::switches, include/daekit/integrator/
    options.hpp): ``Switch(fun, parameter, name=None, max_step=0)``.  ``fun(t, y, p)`` is s;
    the solve keeps the branch in ``p[parameter]``: +1 while s > 0, -1 while s < 0 (set from
    the sign of s at t0, +1 where it is 0), fixed inside every step, flipped where s changes
    sign along the solution (located like an event root; the method restarts there).  The
    model's functions read ``p[parameter]`` to choose their branch.  A switch whose branches
    both drive s back to 0 (a sliding mode) ends the solve with status
    ``"event_accumulation"`` and a message naming it.  In ``switches=[...]`` a plain function
    stands for ``Switch(fun, parameter=k)``, k its position in the list."""

    def __init__(self, fun, parameter, name=None, max_step=0.0):
        self.fun = fun
        self.parameter = parameter
        self.name = name
        self.max_step = max_step


def _switches(switches, caller):
    """The switch dicts of the compiled core (checked: callables, integer parameters >= 0)."""
    if not isinstance(switches, (list, tuple)):
        switches = [switches]
    out = []
    for k, sw in enumerate(switches):
        if not isinstance(sw, Switch):
            sw = Switch(sw, k)
        if not callable(sw.fun) and not is_compiled(sw.fun):
            raise TypeError("%s: switches[%d] must be a function s(t, y, p) or a daekit.Switch, "
                            "got %r" % (caller, k, sw.fun))
        parameter = sw.parameter
        if isinstance(parameter, (bool, np.bool_)) or not isinstance(parameter, numbers.Integral):
            raise TypeError("%s: switches[%d].parameter must be an integer (the entry of p that "
                            "holds the branch), got %r" % (caller, k, parameter))
        if parameter < 0:
            raise ValueError("%s: switches[%d].parameter must be >= 0, got %d"
                             % (caller, k, parameter))
        name = sw.name or getattr(sw.fun, "__name__", None) or "switch %d" % k
        out.append(dict(fun=as_callback(sw.fun, EVENT), name=str(name), parameter=int(parameter),
                        max_step=_number(sw.max_step or 0.0, "switch max_step")))
    return out


def _events(events, yp_events, takes_p=False):
    """The event dicts of the compiled core and their number."""
    if events is None:
        return None, None
    if not isinstance(events, (list, tuple)):
        events = [events]
    out = []
    for k, ev in enumerate(events):
        fn = ev.fun if isinstance(ev, Event) else ev
        terminal = getattr(ev, "terminal", False)
        if not isinstance(terminal, (bool, np.bool_)):
            if int(terminal) not in (0, 1):
                raise ValueError("event terminal counts other than 0/1 are not supported; "
                                 "use True or False")
            terminal = bool(terminal)
        name = getattr(ev, "name", None) or getattr(fn, "__name__", None) or "event %d" % k
        out.append(dict(fun=as_callback(fn, EVENT), name=str(name),
                        direction=int(np.sign(getattr(ev, "direction", 0))),
                        terminal=bool(terminal), action=getattr(ev, "action", None),
                        action_takes_p=takes_p, with_yp=yp_events,
                        max_step=_number(getattr(ev, "max_step", 0.0) or 0.0,
                                         "event max_step")))
    return out, len(out)


def _number(x, name):
    if isinstance(x, (complex, np.complexfloating)):
        raise TypeError("%s must be a real number, got %r" % (name, x))
    try:
        return float(x)
    except (TypeError, ValueError):
        raise TypeError("%s must be a real number, got %r" % (name, x)) from None


_METHODS = None


def _method_infos():
    """The registered methods' descriptions by name (the registry does not change)."""
    global _METHODS
    if _METHODS is None:
        _METHODS = {m["name"]: m for m in _daekit._methods()}
    return _METHODS


def _registered_method(method):
    """The description of ``method`` (scipy's names allowed); ValueError listing the names."""
    infos = _method_infos()
    name = _method_name(method)
    if not isinstance(name, str) or name not in infos:
        raise ValueError("unknown method %r; valid methods: %s" % (method, ", ".join(infos)))
    return infos[name]


def _option_text(o, value, method, caller):
    """The text form of a method option's value, checked for the option's Python type (the
    compiled core checks the range and names the valid values)."""
    what = "%s: option '%s' of method '%s'" % (caller, o["name"], method)
    kind = o["type"]
    is_bool = isinstance(value, (bool, np.bool_))
    if kind == "bool":
        if is_bool:
            return "true" if value else "false"
        raise TypeError("%s must be True or False, got %r" % (what, value))
    if kind == "int":
        if isinstance(value, numbers.Integral) and not is_bool:
            return str(int(value))
        raise TypeError("%s must be an integer (%s), got %r" % (what, o["range"], value))
    if kind == "double":
        if o["automatic"] and isinstance(value, str) and value == o["automatic"]:
            return value
        if isinstance(value, numbers.Real) and not is_bool:
            return repr(float(value))
        raise TypeError("%s must be a real number (%s), got %r" % (what, o["range"], value))
    if isinstance(value, str):
        return value
    raise TypeError("%s must be a string (%s), got %r" % (what, o["range"], value))


def _split_options(method, extra, caller, tableau=None):
    """Keyword arguments split into the integrator's (a dict) and the method's options
    ((name, text) pairs for the compiled core, by the method's registered description);
    ``tableau`` is the method's option of that name.  TypeError names an unknown option, one
    of another method, or a value of the wrong Python type."""
    info = _registered_method(method)
    own = {o["name"]: o for o in info["options"]}
    given = dict(extra)
    if tableau is not None:
        if "tableau" not in own:
            with_tableau = [m for m, i in _method_infos().items()
                            if any(o["name"] == "tableau" for o in i["options"])]
            raise ValueError("%s: tableau is for methods %s, not '%s' (it has its own "
                             "coefficients)" % (caller, ", ".join(with_tableau), info["name"]))
        given["tableau"] = tableau
    integrator, method_options = {}, []
    for k, v in given.items():
        if k in own:
            method_options.append((k, _option_text(own[k], v, info["name"], caller)))
        elif k in _PASSTHROUGH or k in _SCIPY_OPTIONS:
            integrator[k] = v
        else:
            others = [m for m, i in _method_infos().items()
                      if any(o["name"] == k for o in i["options"])]
            elsewhere = (" ('%s' is an option of method %s)" % (k, ", ".join(others))
                         if others else "")
            raise TypeError("%s: unknown option '%s'%s (options of method '%s': %s; daekit "
                            "options: %s)"
                            % (caller, k, elsewhere, info["name"],
                               ", ".join(own) or "none", ", ".join(_PASSTHROUGH + ("min_step",))))
    return integrator, method_options


def _options(rtol, atol, t_eval, dense_output, first_step, max_step, events, extra, t_span=None,
             n=None, caller="solve"):
    """The options dict of the compiled core (checked names and arrays; atol of n values when n
    is given; t_span is not used).  ``extra``: the integrator's options of _split_options
    (lband and uband are taken by the problem, _prepare_mass)."""
    o = dict(rtol=_number(rtol, "rtol"), dense_output=bool(dense_output))
    o["atol"] = real_scalar_or_vector(atol, "atol", n)
    if t_eval is not None:
        o["t_eval"] = real_vector(t_eval, "t_eval")
        o["store_steps"] = False
    if first_step is not None:
        o["first_step"] = _number(first_step, "first_step")
    if max_step is not None and np.isfinite(_number(max_step, "max_step")):
        o["max_step"] = _number(max_step, "max_step")
    if events is not None:
        o["events"] = events
    for k, v in extra.items():
        if k == "min_step":
            if v is not None:
                o["min_step"] = _number(v, "min_step")
        elif k == "tstops":
            if v is not None:
                o[k] = real_vector(v, "tstops")
        elif k == "switches":
            if v is not None:
                o[k] = _switches(v, caller)
        elif k in _PASSTHROUGH:
            o[k] = v
        elif k not in ("lband", "uband"):
            raise TypeError("%s: unknown option '%s' (daekit options: %s)"
                            % (caller, k, ", ".join(_PASSTHROUGH)))
    return o


def _t_span(t_span):
    if np.ndim(t_span) != 1 or len(t_span) != 2:
        raise ValueError("t_span must be (t0, t_end)")
    return _number(t_span[0], "t_span[0]"), _number(t_span[1], "t_span[1]")


_PROBLEM_ARGUMENTS = ("jac", "jac_p", "jac_sparsity", "mass", "index", "component_names",
                      "lband", "uband")


def _bandwidth(b, name):
    if isinstance(b, (bool, np.bool_)) or not isinstance(b, numbers.Integral):
        raise TypeError("%s must be an integer >= 0 (a bandwidth of the Jacobian), got %r"
                        % (name, b))
    if b < 0:
        raise ValueError("%s must be >= 0, got %d" % (name, b))
    return int(b)


def _packed_band(lower, upper, n):
    """Index arrays (rows, cols, packed rows) of the entries of an (n, n) band: scipy's LSODA
    packed format jac_packed[upper + i - j, j] = jac[i, j]."""
    cols = np.repeat(np.arange(n), lower + upper + 1)
    offsets = np.tile(np.arange(-upper, lower + 1), n)
    rows = cols + offsets
    keep = (rows >= 0) & (rows < n)
    rows, cols = rows[keep], cols[keep]
    return rows, cols, upper + rows - cols


def _banded(jac, jac_sparsity, lband, uband, n, caller):
    """scipy's lband/uband (LSODA): a banded jac_sparsity, and jac in the packed banded format
    (jac_packed[uband + i - j, j] = jac[i, j], shape (lband + uband + 1, n)) unpacked here.
    One bandwidth alone means 0 for the other, as scipy."""
    if lband is None and uband is None:
        return jac, jac_sparsity
    lower = _bandwidth(0 if lband is None else lband, "lband")
    upper = _bandwidth(0 if uband is None else uband, "uband")
    if jac_sparsity is not None:
        raise ValueError("%s: give lband/uband or jac_sparsity, not both" % caller)
    sparsity = Banded(lower, upper)
    if jac is None:
        return None, sparsity
    if is_compiled(jac) or isinstance(jac, LibraryFunction):
        raise ValueError("%s: lband/uband with a compiled jac: the packed banded format of "
                         "scipy's LSODA is read from Python callables and arrays only; give the "
                         "full (n, n) Jacobian with jac_sparsity=daekit.banded(%d, %d)"
                         % (caller, lower, upper))
    rows, cols, packed = _packed_band(lower, upper, n)
    shape = (lower + upper + 1, n)

    def unpack(P):
        P = np.asarray(P, dtype=float)
        if P.shape != shape:
            raise ValueError("jac with lband/uband must return the packed banded Jacobian of "
                             "shape (lband + uband + 1, n) = %s (scipy's LSODA format), got "
                             "shape %s" % (shape, P.shape))
        J = np.zeros((n, n))
        J[rows, cols] = P[packed, cols]
        return J

    if not callable(jac):
        J = unpack(real_array(jac, "jac"))
        return (lambda t, y, *a: J), sparsity

    def unpacked_jac(t, y, *a):
        return unpack(jac(t, y, *a))
    return unpacked_jac, sparsity


def _prepare_mass(fun, t_span, y0, jac, jac_sparsity, mass, index, p, args, names, name,
                  pass_p=None, caller="solve_ivp", lband=None, uband=None, jac_p=None):
    """A MassProblem from the arguments (fun a callable, a compiled callback or a problem);
    callbacks get p as their last argument when p is given (or pass_p says so); lband/uband
    as scipy's LSODA (_banded); jac_p the analytic df/dp (a Python callable)."""
    p = None if p is None else real_vector(p, "p")
    pass_p = p is not None if pass_p is None else pass_p
    if jac_p is not None:
        if not callable(jac_p) or is_compiled(jac_p) or isinstance(jac_p, LibraryFunction):
            raise TypeError("%s: jac_p must be a Python callable jac_p(t, y, *args, p) returning "
                            "df/dp of shape (n, len(p))" % caller)
        if p is None:
            raise ValueError("%s: jac_p (df/dp) needs the parameters p" % caller)
    if isinstance(fun, _daekit.MassProblem):
        given = dict(jac=jac, jac_sparsity=jac_sparsity, mass=mass, index=index,
                     component_names=names, lband=lband, uband=uband, jac_p=jac_p)
        for what in _PROBLEM_ARGUMENTS:
            if given[what] is not None:
                raise TypeError("%s: %s cannot be given with a problem object as fun (the "
                                "problem defines it); it is for a Python or compiled fun"
                                % (caller, what))
        if p is not None:
            fun = fun.with_p(p)
        return fun
    n = real_vector(y0, "y0").size
    jac, jac_sparsity = _banded(jac, jac_sparsity, lband, uband, n, caller)
    if jac is not None and not callable(jac) and not is_compiled(jac) \
            and not isinstance(jac, LibraryFunction):
        jac = _constant_jacobian(jac, n)
    problem = _daekit._make_mass_problem(
        n, as_callback(fun, RHS), as_callback(jac, RHS), _sparsity(jac_sparsity, n),
        _mass(mass, n), _index(index, n), p, list(names or []), name, tuple(args or ()),
        pass_p)
    if jac_p is not None:
        _daekit._set_parameter_jacobian(problem, jac_p, tuple(args or ()), pass_p)
    return problem


def _initialize_mass(problem, t0, y0, initialize):
    r = _daekit._initialize_mass(problem, t0, real_vector(y0, "y0"), 1e-10, 50)
    if not r["ok"]:
        raise ValueError("initialize: no consistent initial values: " + r["message"])
    return r["y"]


def _interruptible(solve, convert):
    """solve(), with Ctrl-C turned into KeyboardInterrupt carrying the partial result.

    The compiled module raises the exception of the signal handler (KeyboardInterrupt for
    Ctrl-C) with the compiled Result so far as its attribute ``result``, which becomes
    ``convert(result)``; a KeyboardInterrupt raised inside a Python callback ends the solve with
    a callback error, raised here as KeyboardInterrupt in the same way."""
    try:
        r = solve()
    except BaseException as e:
        partial = getattr(e, "result", None)
        if isinstance(partial, _daekit.Result):
            e.result = convert(partial)
        raise
    if r.status == "callback_error" and "KeyboardInterrupt" in r.message:
        e = KeyboardInterrupt(r.message)
        e.result = convert(r)
        raise e
    return convert(r)


def _auto_method(n, index_tags, rtol, implicit_form=False):
    """The method of method="auto" for M y' = f (or F(t, y, y') = 0 with implicit_form) with n
    unknowns, the index tags and rtol, and the rule that chose it (a text for the result's
    ``method_choice``): the compiled core's rule (daekit::auto_method, shared with the command
    line's default)."""
    return _daekit._auto_method(int(n), max(list(index_tags), default=1),
                                float(np.min(rtol)), bool(implicit_form))


def _auto_for(fun, y0, index, rtol):
    """_auto_method for solve_ivp's arguments (fun a callable, compiled or a problem)."""
    if isinstance(fun, _daekit.MassProblem):
        return _auto_method(fun.n, list(fun.index), rtol)
    n = real_vector(y0, "y0").size
    return _auto_method(n, _index(index, n), real_array(rtol, "rtol"))


_SQRT_EPS = 2.0 ** -26  # sqrt of the machine epsilon, exact


def _column_groups(jac_sparsity, n):
    """Groups of columns that share no row of jac_sparsity (one finite difference serves a
    whole group: Curtis, Powell and Reid (1974)): j mod (l + u + 1) for a banded pattern, the
    greedy sequential colouring for a general one, every column alone without a pattern.
    Returns (colour of each column, number of colours, the pattern as (rows, cols) or None)."""
    if jac_sparsity is None:
        return np.arange(n), n, None
    if isinstance(jac_sparsity, Banded):
        width = jac_sparsity.lower + jac_sparsity.upper + 1
        j = np.arange(n)
        rows, cols = [], []
        for d in range(-jac_sparsity.upper, jac_sparsity.lower + 1):
            c = j[(j + d >= 0) & (j + d < n)]
            rows.append(c + d)
            cols.append(c)
        return j % width, min(width, n), (np.concatenate(rows), np.concatenate(cols))
    _, indptr, indices, _ = _sparsity(jac_sparsity, n)
    indptr, indices = np.asarray(indptr), np.asarray(indices)
    rows_of = [indices[indptr[j]:indptr[j + 1]] for j in range(n)]
    cols_of_row = [[] for _ in range(n)]
    for j in range(n):
        for i in rows_of[j]:
            cols_of_row[i].append(j)
    colour = np.full(n, -1)
    for j in range(n):
        taken = {colour[k] for i in rows_of[j] for k in cols_of_row[i] if colour[k] >= 0}
        c = 0
        while c in taken:
            c += 1
        colour[j] = c
    cols = np.repeat(np.arange(n), np.diff(indptr))
    return colour, int(colour.max()) + 1 if n else 0, (indices, cols)


def _vectorized(fun, y0, jac, jac_sparsity, options):
    """fun(t, Y) of shape (n, k) for Y of shape (n, k) (scipy's vectorized=True): the solve
    calls it with one column (Y of shape (n, 1), as scipy does) and, without jac, gets its
    Jacobian by forward differences from ONE call of fun with every column group at once
    (all n columns for a dense Jacobian, the column groups of jac_sparsity with one). The
    increment of column j is RADAU5's sqrt(eps max(|y_j|, 1e-5)) (the compiled finite
    differences' without the typical magnitude), so the answer agrees with the solve without
    vectorized=True to the tolerance, not to the last bit.  Returns (fun, jac, the count of
    vectorized calls, options)."""
    if not callable(fun) or is_compiled(fun) or isinstance(fun, LibraryFunction):
        raise TypeError("vectorized=True needs a Python callable fun")
    n = real_vector(y0, "y0").size

    def vectorized_result(F, k):
        F = real_array(F, "fun (vectorized)")
        if F.shape != (n, k):
            raise ValueError("fun with vectorized=True must return an array of shape (%d, %d) "
                             "for y of shape (%d, %d), returned shape %s"
                             % (n, k, n, k, F.shape))
        return F

    def single(t, y, *a):
        return vectorized_result(fun(t, y[:, None], *a), 1)[:, 0]

    calls = [0]
    if jac is not None:
        return single, jac, calls, options
    colour, colours, pattern = _column_groups(jac_sparsity, n)

    def difference_jac(t, y, *a):
        y = np.asarray(y, dtype=float)
        delta = np.maximum(_SQRT_EPS * np.sqrt(np.maximum(np.abs(y), 1e-5)),
                           1e3 * _SQRT_EPS ** 2 * np.abs(y))
        delta = np.where((y + delta) - y != 0.0, (y + delta) - y, delta)
        Y = np.repeat(y[:, None], colours + 1, axis=1)
        Y[np.arange(n), colour + 1] += delta
        F = vectorized_result(fun(t, Y, *a), colours + 1)
        calls[0] += 1
        D = F[:, 1:] - F[:, :1]
        if pattern is None:
            return D / delta
        import scipy.sparse
        rows, cols = pattern
        return scipy.sparse.csc_matrix((D[rows, colour[cols]] / delta[cols], (rows, cols)),
                                       shape=(n, n))

    options = dict(options)
    options.setdefault("check_jacobian", False)  # nothing to check: they are differences of f
    return single, difference_jac, calls, options


def _counted_vectorized(res, calls):
    """The vectorized finite-difference calls of fun in the counters (nfev counts every call
    of fun, as scipy's; they are evaluations of the Jacobian's differences)."""
    if calls is None or not calls[0]:
        return res
    res.stats["nfev_jac"] = res.stats.get("nfev_jac", 0) + calls[0]
    res["nfev"] = _all_evaluations(res.stats)
    return res


# A Jacobian by finite differences of a Python fun costs one Python call per column group, more
# than a Newton iteration of radau5 (one call per stage, 3) once there are more groups than
# stages. Then radau5 keeps the Jacobian while Newton contracts at a rate below 0.1 instead of
# 0.001, the value RADAU5's documentation recommends "when Jacobian evaluations are costly"
# (Hairer and Wanner, RADAU5, WORK(3)). Measured with a plain Python f, evaluations of f
# (Jacobians included) at equal scd over rtol 1e-3 ... 1e-6 by half decades
# (docs/results/python-overhead.md): POLLU (n = 20) about 530 instead of 760 at scd 5.9 (6
# instead of 25 Jacobians), the Brusselator (n = 40) between 7 % fewer (scd 6) and 6 % more
# (scd 9), HIRES (n = 8) between 17 % more (scd 5) and 12 % fewer (scd 7): the older Jacobian
# leaves a larger Newton error, so a tolerance gives fewer digits for less work. Robertson (n = 3, 3 groups) took more
# evaluations at the same tolerance (1487 against 1201 at rtol 1e-6): there a Jacobian costs
# one Newton iteration, and the default stays. Not for the variable-order radau, whose order
# selection reads the contraction rate: on HIRES at 1e-4 it took 94 steps instead of 49 and
# more evaluations (1644 against 1556).
_COSTLY_JACOBIAN_THETA = 0.1
_RADAU5_STAGES = 3


def _costly_jacobian_default(method, method_options, fun, jac, jac_sparsity, n):
    """method_options with radau5's jacobian_reuse_theta = _COSTLY_JACOBIAN_THETA added when
    fun is a Python callable whose Jacobian the solve takes by differences (jac None) in more
    column groups than radau5 has stages and the user did not set it."""
    if jac is not None or not callable(fun) or is_compiled(fun) \
            or isinstance(fun, (LibraryFunction, _daekit.MassProblem)):
        return method_options
    if _registered_method(method)["name"] != "radau5" or any(
            k == "jacobian_reuse_theta" for k, _ in method_options):
        return method_options
    groups = n if jac_sparsity is None else _column_groups(jac_sparsity, n)[1]
    if groups <= _RADAU5_STAGES:
        return method_options
    return list(method_options) + [("jacobian_reuse_theta", repr(_COSTLY_JACOBIAN_THETA))]


def _mass_arguments(fun, t_span, y0, method="radau5", t_eval=None, dense_output=False,
                    events=None, vectorized=False, args=None, *, rtol=1e-3, atol=1e-6,
                    jac=None, jac_sparsity=None, mass=None, index=None, p=None,
                    initialize=False, first_step=None, max_step=np.inf, tableau=None,
                    component_names=None, name="user problem", _caller="solve_ivp",
                    _pass_p=None, jac_p=None, **options):
    """The arguments of solve_ivp, checked and converted for the compiled core (solve_ivp and
    solve_many share them; solve_many passes p=None with _pass_p=True: each run's p reaches the
    callbacks).  A namespace: problem, t0, t1, y0, method, method_options ((name, text) pairs),
    options, n_events, args, pass_p, initialize, t_eval_given."""
    vectorized_calls = None
    if vectorized:
        if _caller != "solve_ivp":
            raise ValueError("%s: vectorized=True is for solve_ivp (solve_many calls fun with "
                             "one state)" % _caller)
        fun, jac, vectorized_calls, options = _vectorized(fun, y0, jac, jac_sparsity, options)
    if _caller != "solve_ivp" and options.get("sensitivities"):
        # the runs' results carry no sensitivities yet: refused, not computed and dropped
        raise ValueError("%s: sensitivities=True is for solve_ivp and solve_dae (an ensemble's "
                         "results do not carry dy/dp yet): solve the runs with solve_ivp" % _caller)
    t0, t1 = _t_span(t_span)
    integrator_options, method_options = _split_options(method, options, _caller, tableau)
    problem = _prepare_mass(fun, t_span, y0, jac, jac_sparsity, mass, index, p, args,
                            component_names, name, _pass_p, _caller,
                            integrator_options.get("lband"), integrator_options.get("uband"),
                            jac_p)
    n = problem.n
    method_options = _costly_jacobian_default(method, method_options, fun, jac, jac_sparsity, n)
    pass_p = p is not None if _pass_p is None else _pass_p
    ev, n_ev = _events(events, False, pass_p)
    return SimpleNamespace(
        problem=problem, t0=t0, t1=t1, y0=real_vector(y0, "y0", n), method=_method_name(method),
        vectorized_calls=vectorized_calls,
        method_options=method_options, n_events=n_ev, args=tuple(args or ()), pass_p=pass_p,
        initialize=bool(initialize), t_eval_given=t_eval is not None,
        options=_options(rtol, atol, t_eval, dense_output, first_step, max_step, ev,
                         integrator_options, n=n, caller=_caller))


def solve_ivp(fun, t_span, y0, method="radau5", t_eval=None, dense_output=False, events=None,
              vectorized=False, args=None, *, rtol=1e-3, atol=1e-6, jac=None,
              jac_sparsity=None, mass=None, index=None, p=None, initialize=False,
              first_step=None, max_step=np.inf, tableau=None, component_names=None,
              name="user problem", jac_p=None, impasse=False, **options):
    """Solves ``M y' = f(t, y)`` (``M`` the identity without ``mass``) on ``t_span`` from ``y0``.

    Arguments as scipy.integrate.solve_ivp (``fun(t, y, *args)``, ``t_eval``, ``dense_output``,
    ``events`` with ``terminal`` and ``direction`` attributes, ``rtol``, ``atol``, ``jac``,
    ``jac_sparsity``, ``first_step``, ``max_step``), and:

    method
        a registered daekit method (``daekit.methods()``: ``"radau5"``, ``"bdf"``,
        ``"projected-rk"``), or scipy's ``"Radau"``/``"BDF"`` for them, or ``"auto"``: radau
        for index-2/3 components or rtol < 1e-6, radau5 otherwise (the rule of ``daekit
        solve``, measured on the built-in problems: docs/results/method-auto.md); the
        result's ``method`` is the method chosen, ``method_choice`` the rule.  The default
        stays ``"radau5"``, as scipy's solve_ivp has one fixed default method: the same call
        runs the same method whatever ``rtol`` and the size are (daekit's own entry points,
        ``daekit.problem(name).solve()``, ``solve_dae``, ``Integrator``, ``solve_many``,
        default to ``"auto"``).
    mass
        the constant mass matrix M (dense, scipy sparse, or the n diagonal entries); rows of
        zeros are algebraic equations ``0 = f_i(t, y)``.
    index
        the index tag (1, 2, 3) of each component (or one for all), as RADAU5.
    p
        parameters: passed to every Python callback as an extra last argument (after
        ``args``) and to compiled callbacks; an event's ``action(t, y, p)`` may change them.
    initialize
        compute consistent initial values first (C++ ``daekit::initialize``). Index 1: the
        algebraic components of ``y0`` are solved for, ``M y0`` is kept. Index 2 and 3
        (components tagged 2 or 3 in ``index``, the constraints in zero rows of ``mass``):
        the constraints (and at index 3 their velocity level) are made to hold by the
        smallest change of the differential components, and the algebraic components
        (multipliers) are computed from the equations and the derivative of the constraints.
    events
        as scipy's, plus an optional attribute ``action(t, y)`` (or ``(t, y, p)`` with
        ``p``) returning the new state (or None): the solve re-initialises and continues.
    sensitivities
        ``True``: also compute the forward sensitivities dy/dp with respect to ``p``
        (methods ``"radau5"``, ``"radau"`` and ``"bdf"``; docs/sensitivities.md): the result's
        ``sensitivities`` has shape (n, len(p), len(t)), ``sensitivities[i, k, j]`` =
        dy_i/dp_k at ``t[j]``.  ``initial_sensitivities`` (n, len(p)): dy0/dp where y0
        depends on p (default zero; the algebraic part is made consistent);
        ``sensitivity_error_control=True`` includes them in the error test (IDAS's errconS).
        Across an event ``action`` that changes y they jump (the action differenced along
        dy/dp); an action that changes ``p`` ends the solve with a message.
    jac_p
        the analytic df/dp: a callable ``jac_p(t, y, *args, p)`` returning an array of shape
        (n, len(p)) (as ``jac`` returns df/dy; IDAS's resS, CVODES's fS); the sensitivities
        use it instead of differences in p.  Needs ``p``; a wrong shape or NaN ends the
        solve with a callback error.
    tableau
        the method's option ``tableau``: a Runge-Kutta tableau of ``daekit tableau`` for
        ``"dirk"``, ``"erk"`` and ``"projected-rk"``, ``"hem4"``/``"bh3"`` for ``"hem"``.
    tstops
        known discontinuity times in ``t_span`` (DifferentialEquations.jl's name), increasing
        (decreasing when integrating backwards): no step crosses one, the method restarts
        there; ``stats["nrestart"]`` counts the restarts.  NaN, unsorted or outside
        ``t_span``: ValueError.
    switches
        switching functions of the model (``daekit.Switch(fun, parameter)``, or plain
        functions ``s(t, y, p)`` for ``parameter`` = their position): the solve keeps each
        switch's branch in ``p[parameter]`` (+1 where s > 0, -1 where s < 0), fixed inside a
        step and flipped where s changes sign (the method restarts there); ``fun`` reads
        ``p[parameter]`` to choose its branch.  Needs ``p``.
    impasse
        ``True`` (or a dict with any of ``ds``, ``arc_length``, ``gamma_tol``, the settings of
        Algorithm SingDAE): for a constant singular ``mass``, watch for impasse points
        (Bendtsen and Thomsen (1999), ch. 7, C++ ``solve_with_impasses``): where the solution
        approaches one, or the solve stalls next to one, the point is located and passed on the
        augmented system (7.22).  The result's ``impasse`` is None when no point stopped the
        solve, else a dict: ``passed``, ``t``, ``x`` (the point, with t appended), ``alpha``
        and ``accessible`` (Def. 7.2: alpha < 0), ``message``, and the curve followed:
        ``s``, ``t_curve``, ``x_curve`` (n + 1 rows), ``gamma``.
    ``**options``
        the method's options by name, e.g. ``stages=4`` for ``"spark"``, ``max_order=2`` for
        ``"bdf"``, ``transform_tolerances=False`` for ``"radau5"``: every option of
        ``daekit.method_info(method)["options"]`` (``daekit methods NAME``), checked for its
        type (TypeError) and range (ValueError, naming the valid values); the result's
        ``method_options`` lists the values the method used.  daekit's integrator options:
        ``max_steps``, ``nonnegative``, ``linear_solver``, ``projection``, ``controller``,
        ``trace``, ``check_jacobian``, ... (``Options`` in C++).  scipy's LSODA options:
        ``min_step`` (a smaller step ends the solve with ``daekit_status``
        ``"step_size_too_small"``), ``lband``/``uband`` (a banded Jacobian: the
        ``jac_sparsity`` ``daekit.banded(lband, uband)``; a ``jac`` then returns LSODA's
        packed format, ``jac_packed[uband + i - j, j] = jac[i, j]``).  Unknown names are
        refused (TypeError).

    ``fun`` may be a Python callable, a compiled callback (scipy ``LowLevelCallable``, numba
    ``cfunc``, ``daekit.from_library``) or a problem (``daekit.problem(name).problem``,
    ``MechanicalSystem.formulate()``); ``jac``, ``jac_sparsity``, ``mass``, ``index`` and
    ``component_names`` are for the first two (a problem defines its own).  Arrays must hold
    real numbers (complex, object or string arrays are refused: TypeError).  Returns a
    ``DaeResult``.  Ctrl-C raises KeyboardInterrupt with the partial ``DaeResult`` as its
    attribute ``result``.
    """
    choice = None
    if isinstance(method, str) and method == "auto":
        method, choice = _auto_for(fun, y0, index, rtol)
    a = _mass_arguments(fun, t_span, y0, method, t_eval, dense_output, events, vectorized, args,
                        rtol=rtol, atol=atol, jac=jac, jac_sparsity=jac_sparsity, mass=mass,
                        index=index, p=p, initialize=initialize, first_step=first_step,
                        max_step=max_step, tableau=tableau, component_names=component_names,
                        name=name, jac_p=jac_p, **options)
    y0 = _initialize_mass(a.problem, a.t0, a.y0, True) if a.initialize else a.y0
    sing = _impasse_settings(impasse)
    if sing is not None:
        return _solve_with_impasses(a, y0, sing, choice)
    return _interruptible(
        lambda: _daekit._solve_mass(a.problem, a.t0, a.t1, y0, a.method, a.method_options,
                                    a.options, a.args, a.pass_p),
        lambda r: _counted_vectorized(
            _to_result(r, a.n_events, a.problem.component_names, t_eval_given=a.t_eval_given,
                       method_choice=choice),
            a.vectorized_calls))


_IMPASSE_SETTINGS = {"ds": 1e-3, "arc_length": 0.5, "gamma_tol": 1e-2}


def _impasse_settings(impasse):
    """(ds, arc_length, gamma_tol) of solve_ivp's ``impasse``, or None for False."""
    if impasse is False or impasse is None:
        return None
    if impasse is True:
        given = {}
    elif isinstance(impasse, dict):
        given = dict(impasse)
    else:
        raise TypeError("impasse must be True, False or a dict of %s, got %r"
                        % (", ".join(_IMPASSE_SETTINGS), impasse))
    unknown = sorted(set(given) - set(_IMPASSE_SETTINGS))
    if unknown:
        raise TypeError("impasse: unknown setting(s) %s; valid: %s"
                        % (", ".join(map(str, unknown)), ", ".join(_IMPASSE_SETTINGS)))
    settings = []
    for key, default in _IMPASSE_SETTINGS.items():
        value = given.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError("impasse: %s must be a number, got %r" % (key, value))
        settings.append(float(value))
    return tuple(settings)


def _solve_with_impasses(a, y0, sing, choice):
    """solve_ivp(..., impasse=...): the compiled solve_with_impasses."""
    found = {}

    def run():
        r, passage = _daekit._solve_mass_with_impasses(
            a.problem, a.t0, a.t1, y0, a.method, a.method_options, a.options, a.args, a.pass_p,
            *sing)
        found["impasse"] = passage
        return r

    res = _interruptible(
        run,
        lambda r: _counted_vectorized(
            _to_result(r, a.n_events, a.problem.component_names, t_eval_given=a.t_eval_given,
                       method_choice=choice),
            a.vectorized_calls))
    res["impasse"] = found.get("impasse")
    return res


def _no_band(integrator_options, caller):
    """lband/uband are for M y' = f (solve_ivp's jac); F(t, y, y') = 0 takes jac_sparsity."""
    for k in ("lband", "uband"):
        if integrator_options.get(k) is not None:
            raise TypeError("%s: %s is for solve_ivp (M y' = f); give jac_sparsity="
                            "daekit.banded(lower, upper) for F(t, y, y') = 0" % (caller, k))


def _differential(differential, algebraic, n):
    if differential is not None and algebraic is not None:
        raise ValueError("give differential or algebraic, not both")
    if algebraic is not None:
        alg = set(int(i) for i in algebraic)
        return [i not in alg for i in range(n)]
    if differential is None:
        return []
    return [bool(d) for d in differential]


def _prepare_implicit(fun, y0, jac, jac_sparsity, differential, algebraic, index, p, args,
                      names, name):
    if isinstance(fun, _daekit.ImplicitProblem):
        given = dict(jac=jac, jac_sparsity=jac_sparsity, differential=differential,
                     algebraic=algebraic, index=index, component_names=names)
        for what, v in given.items():
            if v is not None:
                raise TypeError("solve_dae: %s cannot be given with a problem object as fun "
                                "(the problem defines it)" % what)
        return fun
    n = real_vector(y0, "y0").size
    jac_y = jac_yp = None
    if jac is not None:
        if not isinstance(jac, (tuple, list)) or len(jac) != 2:
            raise ValueError("jac of solve_dae must be a pair (dF/dy, dF/dyp)")
        jac_y, jac_yp = (as_callback(j, RESIDUAL) for j in jac)
    return _daekit._make_implicit_problem(
        n, as_callback(fun, RESIDUAL), jac_y, jac_yp, _sparsity(jac_sparsity, n),
        _differential(differential, algebraic, n), _index(index, n),
        None if p is None else real_vector(p, "p"), list(names or []), name,
        tuple(args or ()), p is not None)


def _initialize_implicit(problem, t0, y0, yp0, initialize):
    mode = "differential" if initialize is True else initialize
    r = _daekit._initialize_implicit(problem, t0, y0, yp0, mode, 1e-10, 50)
    if not r["ok"]:
        raise ValueError("initialize: no consistent initial values: " + r["message"])
    return r["y"], r["yp"]


def solve_dae(fun, t_span, y0, yp0=None, method="auto", t_eval=None, dense_output=False,
              events=None, args=None, *, rtol=1e-3, atol=1e-6, jac=None, jac_sparsity=None,
              differential=None, algebraic=None, index=None, p=None, initialize=None,
              first_step=None, max_step=np.inf, component_names=None, name="user problem",
              **options):
    """Solves the implicit DAE ``F(t, y, y') = 0`` (``fun(t, y, yp, *args)`` returns F) on
    ``t_span`` from ``y0`` (and ``yp0``).

    differential / algebraic
        which components are differential (booleans) or algebraic (indices); the algebraic
        components' y' does not enter F.
    initialize
        ``True`` or ``"differential"``: keep the differential components of y0, compute the
        algebraic ones and y' (IDA's YA_YDP_INIT); ``"derivative"``: keep y', compute y;
        ``False``: y0, yp0 are consistent.  Default: True when ``yp0`` is not given.
    jac
        ``(dF/dy, dF/dyp)``, each ``jac(t, y, yp, *args)`` returning an (n, n) array.
    events
        event functions ``r(t, y, yp, *args)`` with ``terminal``, ``direction`` and ``action``.
    ``**options``
        the method's options (``max_order=2``, ``fixed_order=3`` for ``"bdf"``; see
        ``daekit.method_info(method)["options"]``) and daekit's integrator options, as
        solve_ivp (``lband``/``uband`` are solve_ivp's only: give ``jac_sparsity``).

    Other arguments and the result as ``solve_ivp``; the default method ``"auto"`` is the
    rule of ``daekit solve`` for this form: ``"bdf"``, the only method for ``F(t, y, y') = 0``
    (the result's ``method_choice`` says so).
    """
    t0, t1 = _t_span(t_span)
    problem = _prepare_implicit(fun, y0, jac, jac_sparsity, differential, algebraic, index, p,
                                args, component_names, name)
    n = problem.n
    method, choice = _auto_implicit(method, n, index, rtol)
    y0 = real_vector(y0, "y0", n)
    yp = np.zeros_like(y0) if yp0 is None else real_vector(yp0, "yp0", n)
    if initialize is None:
        initialize = yp0 is None
    if initialize:
        y0, yp = _initialize_implicit(problem, t0, y0, yp, initialize)
    ev, n_ev = _events(events, True, p is not None)
    integrator_options, method_options = _split_options(method, options, "solve_dae")
    _no_band(integrator_options, "solve_dae")
    opts = _options(rtol, atol, t_eval, dense_output, first_step, max_step, ev,
                    integrator_options, n=n, caller="solve_dae")
    return _interruptible(
        lambda: _daekit._solve_implicit(problem, t0, t1, y0, yp, _method_name(method),
                                        method_options, opts, tuple(args or ()), p is not None),
        lambda r: _to_result(r, n_ev, component_names, t_eval_given=t_eval is not None,
                             method_choice=choice))


def _auto_implicit(method, n, index, rtol):
    """(method, rule) for F(t, y, y') = 0: method="auto" resolved by the compiled rule, any
    other method kept (rule None)."""
    if not (isinstance(method, str) and method == "auto"):
        return method, None
    tags = [] if index is None else _index(index, n)
    return _auto_method(n, tags, real_array(rtol, "rtol"), implicit_form=True)


class Integrator:
    """One step at a time, for control loops and co-simulation::

        it = daekit.Integrator(fun, (0, 10), y0, mass=M)
        while not it.finished:
            it.step()                  # one accepted step: it.t, it.y
        it.solve_until(2.5)            # or: advance past t = 2.5 and return y(2.5)

    ``implicit=True`` takes ``fun(t, y, yp, *args)`` of ``F(t, y, y') = 0`` (then ``yp0``,
    ``differential``/``algebraic`` and ``initialize`` as in solve_dae).  Other arguments,
    the method's options (``stages=4``) among them, as solve_ivp; the default method
    (``None`` or ``"auto"``) is chosen as ``daekit solve`` chooses it (``result()``'s
    ``method_choice`` names the rule).  ``step()`` returns why it stopped: ``"step"``, ``"output_time"``, ``"event"``,
    ``"end"`` or ``"failure"`` (``result()`` then says why)."""

    def __init__(self, fun, t_span, y0, method=None, *, implicit=False, yp0=None, events=None,
                 args=None, rtol=1e-3, atol=1e-6, jac=None, jac_sparsity=None, mass=None,
                 index=None, p=None, initialize=False, differential=None, algebraic=None,
                 first_step=None, max_step=np.inf, dense_output=False, t_eval=None,
                 tableau=None, **options):
        t0, t1 = _t_span(t_span)
        y0 = real_vector(y0, "y0")
        ev, self._n_events = _events(events, implicit, p is not None)
        if implicit:
            method, self._method_choice = _auto_implicit(method or "auto", y0.size, index, rtol)
        else:
            method, self._method_choice = method or "auto", None
            if isinstance(method, str) and method == "auto":
                method, self._method_choice = _auto_for(fun, y0, index, rtol)
        method = _method_name(method)
        integrator_options, method_options = _split_options(method, options, "Integrator",
                                                            tableau)
        opts = _options(rtol, atol, t_eval, dense_output, first_step, max_step, ev,
                        integrator_options, t_span)
        args = tuple(args or ())
        if implicit:
            _no_band(integrator_options, "Integrator(implicit=True)")
            problem = _prepare_implicit(fun, y0, jac, jac_sparsity, differential, algebraic,
                                        index, p, args, None, "user problem")
            yp = np.zeros_like(y0) if yp0 is None else real_vector(yp0, "yp0", y0.size)
            if initialize or yp0 is None:
                y0, yp = _initialize_implicit(problem, t0, y0, yp, initialize or True)
            self._it = _daekit.Integrator(problem, t0, t1, y0, yp, method, method_options, opts,
                                          args, p is not None)
        else:
            problem = _prepare_mass(fun, t_span, y0, jac, jac_sparsity, mass, index, p, args,
                                    None, "user problem", caller="Integrator",
                                    lband=integrator_options.get("lband"),
                                    uband=integrator_options.get("uband"))
            if initialize:
                y0 = _initialize_mass(problem, t0, y0, initialize)
            self._it = _daekit.Integrator(problem, t0, t1, y0, method, method_options, opts,
                                          args, p is not None)
        self._t_eval_given = t_eval is not None
        self._dir = 1.0 if t1 >= t0 else -1.0
        self.last = None

    def step(self):
        """Advances by one accepted step; returns why it stopped."""
        self.last = self._it.step()
        return self.last

    def solve_until(self, t, stop_exactly=False):
        """Steps until t is reached; returns y(t) (None if the solve failed or ended before t).

        By default the integrator may step past t and y(t) comes from its continuous output
        (SUNDIALS' normal mode); with ``stop_exactly=True`` the last step ends at t itself
        (SUNDIALS' tstop), which a control loop that changes the model at t needs (then call
        ``model_changed()``, ``set_parameters(p)`` or ``reinit(y)``)."""
        t = float(t)
        self.last = self._it.solve_until(t, bool(stop_exactly))
        if self.last == "failure" or self._dir * (t - self._it.t) > 0:
            return None  # failed, or ended (a terminal event) before t: result() says why
        return self._it.y_at(t)

    def model_changed(self):
        """The model changed at the current point (an input or a parameter the callbacks read):
        restarts the method there, discarding every value computed with the old model (f,
        Jacobian, LU, stages, history), as ``reinit!`` / ``IDAReInit`` do.  Needs the
        integrator to stand at the point (after ``step()`` or ``solve_until(t,
        stop_exactly=True)``).  Returns False if the restart failed (``result()`` says why)."""
        self.last = None
        return self._it.model_changed()

    def set_parameters(self, p):
        """New parameters p (passed to the callbacks) from the current point on; restarts the
        method as ``model_changed()`` does."""
        return self._it.set_parameters(np.asarray(p, dtype=float))

    def reinit(self, y):
        """A new state y at the current point (an impulse, a reset), as ``IDAReInit``; the
        algebraic components are made consistent again where the method can."""
        return self._it.reinit(np.atleast_1d(np.asarray(y, dtype=float)))

    @property
    def p(self):
        """The parameters the callbacks see now."""
        return self._it.parameters

    @property
    def t(self):
        return self._it.t

    @property
    def y(self):
        return self._it.y

    def y_at(self, t):
        """The continuous output over the last step at t."""
        return self._it.y_at(float(t))

    @property
    def finished(self):
        return self._it.finished

    @property
    def status(self):
        """'running', 'finished' or 'failed' (scipy's OdeSolver.status)."""
        if self.last == "failure":
            return "failed"
        return "finished" if self._it.finished else "running"

    def result(self):
        """The DaeResult so far (the whole trajectory at the end)."""
        return _to_result(self._it.result(), self._n_events, t_eval_given=self._t_eval_given,
                          method_choice=self._method_choice)


# ---------------------------------------------------------------------------------------------
# Built-in problems and methods.


def problems():
    """The names of the built-in problems (``daekit list``)."""
    return list(_daekit._builtin_names())


def methods():
    """The names of the registered methods (``daekit methods``)."""
    return [m["name"] for m in _daekit._methods()]


def method_info(name=None):
    """What a method can do (title, reference, capabilities) and its ``options``: a list of
    dicts with ``name``, ``type`` ("bool", "int", "double", "choice", "tableau"),
    ``default``, ``range`` (the valid values in words), ``min``/``max``, ``choices`` and
    ``doc``; for ``"tableau"`` options ``choices`` holds the named tableaus the method
    accepts.  Every method without a name."""
    infos = _daekit._methods()
    if name is None:
        return infos
    for m in infos:
        if m["name"] == _method_name(name):
            for o in m["options"]:
                if o["type"] == "tableau":
                    o["choices"] = list(_daekit._method_option_values(m["name"], o["name"]))
            return m
    raise ValueError("unknown method '%s'; valid methods: %s" % (name, ", ".join(methods())))


class BuiltinProblem:
    """A built-in test problem: its DAE (``problem``, usable as ``fun`` of solve_ivp), interval,
    consistent initial values, recommended tolerances and reference solution.  ``solve()``
    solves it as ``daekit solve NAME`` does."""

    def __init__(self, holder):
        self._h = holder
        for key in ("name", "title", "description", "source", "n", "t0", "t_end", "y0", "h0",
                    "rtol", "atol", "atol_scale", "nonnegative", "p", "parameter_names",
                    "reference", "scd_components", "plot_components", "is_mechanical",
                    "event_names", "stiff"):
            setattr(self, key, getattr(holder, key))
        self.t_span = (self.t0, self.t_end)
        self.problem = holder.problem
        self.component_names = self.problem.component_names
        self.mass = self.problem.mass
        self.index = self.problem.index

    def with_parameters(self, p):
        """The problem with parameters p (mechanical problems: consistent y0 recomputed)."""
        return BuiltinProblem(self._h.with_parameters(real_vector(p, "p")))

    def recommended_options(self):
        """rtol, atol (times the per-component factors), first_step, nonnegative: the defaults
        of ``daekit solve``."""
        atol = self.atol if self.atol_scale is None else self.atol * self.atol_scale
        return dict(rtol=self.rtol, atol=atol, first_step=self.h0 if self.h0 > 0 else None,
                    nonnegative=list(self.nonnegative))

    def solve(self, method="auto", t_end=None, **kwargs):
        """Solves the problem with its recommended options (overridden by kwargs) and, for a
        method that can project, its recommended projection; the model's own events
        (switches) are included.  The default method ``"auto"`` is ``daekit solve NAME``'s:
        chosen from the problem's index, size and rtol (``method_choice`` names the rule).
        ``report()`` of the result adds the scd line; ``res["scd"]`` is it over the problem's
        ``scd_components``, ``res["component_digits"]`` the digits of every component (None
        where scd is None), as ``daekit solve NAME --json`` gives them."""
        opts = self.recommended_options()
        opts.update(kwargs)
        choice = None
        if isinstance(method, str) and method == "auto":
            method, choice = _auto_method(self.problem.n, list(self.problem.index), opts["rtol"])
        if isinstance(method, str) and "projection" not in kwargs:
            projection = self._h.recommended_projection(_method_name(method))
            if projection != "none":  # the problem's own (daekit solve NAME's default)
                opts["projection"] = projection
        t1 = self.t_end if t_end is None else t_end
        res = solve_ivp(self.problem, (self.t0, t1), self.y0, method=method, **opts)
        res["_builtin"] = self._h
        res["scd"] = self._h.scd(res.result)
        res["component_digits"] = self._h.component_digits(res.result)
        if choice is not None:
            res["method_choice"] = choice
            res.result.method_choice = choice  # the reports name the rule
        return res

    def __repr__(self):
        return "<daekit problem %s: %s>" % (self.name, self.title)


def problem(name):
    """The built-in problem called ``name`` (``daekit.problems()`` lists them)."""
    return BuiltinProblem(_daekit._builtin(name))


def solve_problem(name, method="auto", **kwargs):
    """``daekit.problem(name).solve(method, **kwargs)``."""
    return problem(name).solve(method, **kwargs)


def scd(y, reference, components=None):
    """Significant correct digits of y against a reference (over ``components``)."""
    return _daekit._scd(real_vector(y, "y"), real_vector(reference, "reference"),
                        list(components or []))
