"""Ensembles: one problem solved for many parameter sets, on threads in this process (the GIL
released inside the solver), on a Dask distributed cluster or over MPI ranks.

Problems travel by reference, never as pickled closures: a built-in problem by its name, a
problem with compiled callbacks by the path of its shared library and the symbol names
(``CompiledProblem``).  Python callables and in-process problems work on threads only."""

import os

import numpy as np

from . import _daekit
from ._arrays import real_array, real_vector
from ._compiled import LibraryFunction, is_compiled
from ._ivp import (DenseSolution, _auto_for, _index, _initialize_mass, _mass, _mass_arguments,
                   _sparsity, problem as _builtin)

_NOT_REMOTE = ("events", "trace", "step_callback")


class CompiledProblem:
    """``M y' = f(t, y, p)`` with compiled callbacks in a shared library, by reference::

        lib = "/path/libmodels.so"
        spec = daekit.CompiledProblem(daekit.from_library(lib, "vdp_rhs"), y0=[2, 0],
                                      t_span=(0, 2), jac=daekit.from_library(lib, "vdp_jac"))

    It pickles as paths, symbol names and arrays, so Dask workers and MPI ranks rebuild it."""

    def __init__(self, f, y0, t_span, jac=None, mass=None, index=None, p=None,
                 jac_sparsity=None, name="compiled problem"):
        for what, fn in (("f", f), ("jac", jac)):
            if fn is not None and not isinstance(fn, LibraryFunction):
                raise TypeError("CompiledProblem: %s must be daekit.from_library(...)" % what)
        self.f, self.jac = f, jac
        self.y0 = real_vector(y0, "y0")
        self.t_span = (float(t_span[0]), float(t_span[1]))
        self.mass = None if mass is None else real_array(mass, "mass", ndim=(1, 2))
        self.index = index
        self.p = None if p is None else real_vector(p, "p")
        self.jac_sparsity = jac_sparsity
        self.name = name

    def build(self):
        """The in-process problem (loads the library here)."""
        n = self.y0.size
        return _daekit._make_mass_problem(
            n, self.f.resolve(), None if self.jac is None else self.jac.resolve(),
            _sparsity(self.jac_sparsity, n), _mass(self.mass, n), _index(self.index, n),
            self.p, [], self.name, (), False)


class EnsembleResult:
    """The runs of solve_many, in the order of the parameter sets: ``y`` (N, n) the states
    reached, ``t`` (N,) the times reached, ``status`` (daekit's status names), ``success``,
    ``message``, ``stats`` (a dict of (N,) arrays, one per counter), ``cpu_seconds``,
    ``method`` (the method that ran), ``method_choice`` (with ``method="auto"``: the rule that
    chose it, else None) and ``runs`` (one dict per run, with ``t_out``/``y_out`` when
    ``t_eval`` was given)."""

    def __init__(self, runs):
        self.runs = runs
        self.method = runs[0]["method"] if runs else None
        self.method_choice = runs[0]["method_choice"] if runs else None
        self.y = np.array([r["y"] for r in runs])
        self.t = np.array([r["t"] for r in runs])
        self.status = [r["status"] for r in runs]
        self.success = np.array([r["ok"] for r in runs], dtype=bool)
        self.message = [r["message"] for r in runs]
        keys = runs[0]["stats"].keys() if runs else []
        self.stats = {k: np.array([r["stats"][k] for r in runs]) for k in keys}
        self.cpu_seconds = np.array([r["cpu_seconds"] for r in runs])

    def __len__(self):
        return len(self.runs)

    def __getitem__(self, i):
        return self.runs[i]

    def __repr__(self):
        return "<EnsembleResult: %d runs, %d successful>" % (len(self), int(self.success.sum()))


def _summary(r, i, p, keep_dense):
    d = dict(run=int(i), p=np.asarray(p, dtype=float), status=r.status, ok=r.ok,
             message=r.message, t=r.t, y=r.y, stats=r.stats, cpu_seconds=r.cpu_seconds,
             t_out=r.t_out, y_out=r.y_out, events=r.events, method_options=r.method_options,
             method=r.method, method_choice=r.method_choice or None)
    if keep_dense and r.has_dense_output:  # threads only: the interpolants stay in this process
        d["sol"] = DenseSolution(r, r.t_steps[0] if len(r.t_steps) else None, r.t)
    return d


def _settings(spec, t_span, y0, method, kwargs):
    """(builtin holder or None, the solve_ivp arguments (shared processing), y0 rows or None).

    A built-in problem's recommended tolerances, interval and initial values are defaults; its
    y0 rows stay None so that each run gets the consistent values of its parameters.
    method="auto" is chosen once, from the problem's size, index tags and rtol (the
    arguments' ``method_choice`` then names the rule, else it is None)."""
    if "p" in kwargs:
        raise TypeError("solve_many: p is given per run by params (one row per run)")
    kw = dict(kwargs)
    holder = None
    y0_given = y0 is not None
    if isinstance(spec, str):
        bp = _builtin(spec)
        holder = bp._h
        kw = dict(bp.recommended_options(), **kw)
        fun = bp.problem
        t_span = bp.t_span if t_span is None else t_span
        y0 = bp.y0 if y0 is None else y0
    elif isinstance(spec, CompiledProblem):
        fun = spec.build()
        t_span = spec.t_span if t_span is None else t_span
        y0 = spec.y0 if y0 is None else y0
        y0_given = True
    elif isinstance(spec, _daekit.MassProblem) or callable(spec) or is_compiled(spec) \
            or isinstance(spec, LibraryFunction):
        fun = spec
    else:
        raise TypeError("solve_many: unsupported problem %r" % (spec,))
    if t_span is None:
        raise ValueError("solve_many: t_span is needed")
    if y0 is None:
        raise ValueError("solve_many: y0 is needed")
    rows = np.atleast_2d(real_array(y0, "y0", ndim=(1, 2)))
    choice = None
    if isinstance(method, str) and method == "auto":
        method, choice = _auto_for(fun, rows[0], kw.get("index"), kw.get("rtol", 1e-3))
    a = _mass_arguments(fun, t_span, rows[0], method, _caller="solve_many", _pass_p=True, **kw)
    a.method_choice = choice
    if rows.shape[1] != a.problem.n:
        raise ValueError("solve_many: y0 rows must have n = %d values, got %d"
                         % (a.problem.n, rows.shape[1]))
    a.options.setdefault("store_steps", False)
    return holder, a, rows if y0_given else None


def _initial_rows(holder, a, y0rows, P):
    """One consistent y0 per run (initialize=True): each run's algebraic components for its p."""
    out = []
    for k, p in enumerate(P):
        y0 = y0rows[0 if y0rows.shape[0] == 1 else k] if y0rows is not None else \
            holder.with_parameters(p).y0
        out.append(_initialize_mass(a.problem.with_p(p), a.t0, y0, True))
    return np.array(out)


def _solve_local(spec, params, indices, t_span, y0, method, threads, kwargs, keep_dense=False):
    """Solves the runs `indices` of `params` here, on `threads` threads; list of summaries.
    Ctrl-C stops every run: KeyboardInterrupt with the finished runs as an EnsembleResult in
    its attribute ``result``."""
    holder, a, y0rows = _settings(spec, t_span, y0, method, kwargs)
    P = _params_matrix(params)[indices]
    if y0rows is not None and y0rows.shape[0] > 1:
        if y0rows.shape[0] != len(params):
            raise ValueError("solve_many: y0 must have one row or one row per parameter set "
                             "(%d), got %d" % (len(params), y0rows.shape[0]))
        y0rows = y0rows[indices]
    if len(P) == 0:
        return []
    if a.initialize:
        y0rows = _initial_rows(holder, a, y0rows, P)
    try:
        results = _daekit._solve_many(None if holder else a.problem, holder, a.t0, a.t1,
                                      y0rows, P, a.method, a.method_options, a.options, a.args, True,
                                      int(threads))
    except BaseException as e:
        partial = getattr(e, "result", None)
        if isinstance(partial, list):
            e.result = EnsembleResult([
                _summary(r, i, p, keep_dense) for r, i, p in zip(partial, indices, P)
                if r is not None and r.status != "interrupted"])
        raise
    for r in results:
        r.method_choice = a.method_choice or ""
    return [_summary(r, i, p, keep_dense) for r, i, p in zip(results, indices, P)]


def _params_matrix(params):
    P = real_array(params, "params", ndim=(1, 2))
    if P.ndim == 1:
        P = P.reshape(-1, 1)
    return P


def _dask_chunk(spec, params, indices, kwargs):
    """A Dask task: the runs `indices` (one thread per worker thread)."""
    return _solve_local(spec, params, indices, threads=1, **kwargs)


def solve_many(problem, params, t_span=None, y0=None, method="auto", *, backend="threads",
               threads=None, client=None, comm=None, chunks=None, **kwargs):
    """Solves ``problem`` once per row of ``params`` (its parameter vector p for that run).

    problem
        a built-in problem's name (its recommended tolerances and interval are the defaults;
        mechanical problems get consistent initial values for each p), a ``CompiledProblem``,
        or (threads only) a problem object, a compiled callback or a Python callable
        ``f(t, y, *args, p)``.
    params
        an (N, np) array, one parameter vector per run (a vector: one parameter).
    y0
        one initial vector, or one per run.
    method
        a registered method, or ``"auto"`` (the default, as ``daekit solve`` and
        ``daekit.problem(name).solve()``): chosen once from the problem's size, index tags and
        rtol; the result's ``method`` and ``method_choice`` say which and why.
    backend
        ``"threads"`` (``threads`` worker threads, default the number of CPUs), ``"dask"``
        (``client``: a ``dask.distributed.Client``; ``chunks`` tasks, default 4 per worker)
        or ``"mpi"`` (``comm``, default ``mpi4py.MPI.COMM_WORLD``: each rank solves a block of
        runs, every rank gets all results).
    ``**kwargs``
        solve_ivp's keyword arguments with the same meaning (``rtol``, ``atol``, ``t_eval``,
        ``dense_output``, ``events``, ``args``, ``mass``, ``jac``, ``jac_sparsity``,
        ``index``, ``initialize`` (per run, for its p), ``first_step``, ``max_step``,
        ``tableau``, ``component_names``, ``name``, ``min_step``, ``lband``/``uband``, the
        method's options such as ``stages=4`` (``daekit.method_info(method)``) and daekit's
        options such as ``max_steps``); ``mass``, ``jac``, ``jac_sparsity`` and ``index``
        describe a callable
        or compiled problem, as in solve_ivp.  Callbacks and event functions and actions get
        the run's parameters as their last argument, ``(t, y, *args, p)``.  Other keywords
        are refused (TypeError naming them); ``p`` comes from ``params``.  With
        ``dense_output=True`` (threads only) each run has its ``sol``.

    Returns an ``EnsembleResult``; the same problem and parameters give bit-identical results
    on every backend.  Ctrl-C stops every run (threads): KeyboardInterrupt, with the runs that
    had finished as an ``EnsembleResult`` in its attribute ``result``.
    """
    P = _params_matrix(params)
    local = dict(t_span=t_span, y0=y0, method=method, kwargs=kwargs)
    indices = np.arange(len(P))
    if backend == "threads":
        n = threads or os.cpu_count() or 1
        return EnsembleResult(_solve_local(problem, P, indices, threads=n, keep_dense=True,
                                           **local))
    if not isinstance(problem, (str, CompiledProblem)):
        raise TypeError("solve_many with backend %r: problems travel by reference, give a "
                        "built-in problem's name or a daekit.CompiledProblem (got %s)"
                        % (backend, type(problem).__name__))
    for k in _NOT_REMOTE:
        if kwargs.get(k) is not None:
            raise TypeError("solve_many with backend %r: option %r would send a Python "
                            "callable to other processes" % (backend, k))
    if kwargs.get("dense_output"):
        raise TypeError("solve_many with backend %r: dense_output keeps the interpolants in the "
                        "process that solved; use t_eval" % (backend,))
    _settings(problem, t_span, y0, method, kwargs)  # every argument checked before sending
    if backend == "dask":
        if client is None:
            raise ValueError("backend 'dask' needs client= (a dask.distributed.Client)")
        if chunks is None:
            workers = max(1, sum(client.nthreads().values()))
            chunks = min(len(P), 4 * workers)
        parts = [c for c in np.array_split(indices, max(1, chunks)) if len(c)]
        futures = client.map(_dask_chunk, [problem] * len(parts), [P] * len(parts), parts,
                             [local] * len(parts), pure=False)
        runs = [r for part in client.gather(futures) for r in part]
        return EnsembleResult(runs)
    if backend == "mpi":
        if comm is None:
            from mpi4py import MPI
            comm = MPI.COMM_WORLD
        size, rank = comm.Get_size(), comm.Get_rank()
        mine = np.array_split(indices, size)[rank]
        local_runs = _solve_local(problem, P, mine, threads=threads or 1, **local)
        runs = [r for part in comm.allgather(local_runs) for r in part]
        return EnsembleResult(runs)
    raise ValueError("backend must be 'threads', 'dask' or 'mpi', got %r" % (backend,))
